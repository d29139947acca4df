//! Generated files stay in step with what they are generated from.
//!
//! Each test runs a script of `tools/` and compares its output with the committed
//! file. The scripts find the crates of Cargo.lock with `cargo metadata --locked
//! --filter-platform <triple>` (see tools/cargo_locked.py), run with the cargo that
//! runs the tests (`CARGO`): the crates come from where this build downloaded them,
//! and cargo fetches whatever is missing, so a fresh machine needs nothing more than
//! `cargo test --locked` does.

use std::process::Command;

/// Runs `tools/<script>` and fails unless its output equals the committed `file`.
fn regenerates(script: &str, file: &str) {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new("python3").arg(format!("{root}/tools/{script}")).env("CARGO", env!("CARGO")).output().expect("python3 runs");
    assert!(out.status.success(), "tools/{script} failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let committed = std::fs::read_to_string(format!("{root}/{file}")).unwrap();
    assert!(String::from_utf8_lossy(&out.stdout) == committed, "{file} is stale: run tools/{script} > {file}");
}

/// `crates/lib/src/compile/tight_ends.rs` is what `tools/gen_tight_ends.py` makes
/// from the grammar crates in Cargo.lock (tree-sitter-javascript, -typescript,
/// -rust, -c, -cpp, -go, -java and -python, read from their `grammar.json`).
#[test]
fn tight_ends_table_matches_the_grammars() {
    regenerates("gen_tight_ends.py", "crates/lib/src/compile/tight_ends.rs");
}

/// `crates/lib/src/compile/kind_words.rs` is what `tools/gen_kind_words.py`
/// makes from the same grammar crates (the keywords every node of a kind holds).
#[test]
fn kind_words_table_matches_the_grammars() {
    regenerates("gen_kind_words.py", "crates/lib/src/compile/kind_words.rs");
}

/// `THIRD-PARTY-NOTICES.md` is what `tools/gen_notices.py` makes from the crates
/// Cargo.lock compiles into the binary on Linux (`cargo tree -e normal,no-proc-macro`)
/// and the licence files in their packages (or, for a crate whose package has none,
/// the upstream repository's text kept in `tools/licences/`).
#[test]
fn third_party_notices_match_the_lockfile() {
    regenerates("gen_notices.py", "THIRD-PARTY-NOTICES.md");
}
