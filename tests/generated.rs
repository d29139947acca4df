//! Generated sources stay in step with what they are generated from.

use std::path::PathBuf;
use std::process::Command;

/// `src/tight_ends.rs` is what `tools/gen_tight_ends.py` makes from the grammar
/// crates in Cargo.lock (cargo has unpacked them into its registry to build us).
#[test]
fn tight_ends_table_matches_the_grammars() {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".cargo"));
    let src = home.join("registry").join("src");
    let registry = std::fs::read_dir(&src)
        .unwrap_or_else(|e| panic!("{}: {e}", src.display()))
        .filter_map(|d| d.ok().map(|d| d.path()))
        .find(|p| std::fs::read_dir(p).is_ok_and(|mut r| r.any(|e| e.is_ok_and(|e| e.file_name().to_string_lossy().starts_with("tree-sitter-javascript-")))))
        .expect("the grammar crates in cargo's registry");
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new("python3").arg(format!("{root}/tools/gen_tight_ends.py")).arg(&registry).output().expect("python3");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let committed = std::fs::read_to_string(format!("{root}/src/tight_ends.rs")).unwrap();
    assert!(String::from_utf8_lossy(&out.stdout) == committed, "src/tight_ends.rs is stale: run tools/gen_tight_ends.py > src/tight_ends.rs");
}
