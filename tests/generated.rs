//! Generated sources stay in step with what they are generated from.

use std::process::Command;

/// `src/tight_ends.rs` is what `tools/gen_tight_ends.py` makes from the grammar
/// crates in Cargo.lock (the script finds them with `cargo metadata`).
#[test]
fn tight_ends_table_matches_the_grammars() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new("python3")
        .arg(format!("{root}/tools/gen_tight_ends.py"))
        .env("CARGO", env!("CARGO"))
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let committed = std::fs::read_to_string(format!("{root}/src/tight_ends.rs")).unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout) == committed,
        "src/tight_ends.rs is stale: run tools/gen_tight_ends.py > src/tight_ends.rs"
    );
}
