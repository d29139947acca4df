//! Build script of the binary package. It only tells the tests which outside
//! tools run here: `cfg(peer)` when `$AST_GREP` (else `ast-grep` on the PATH)
//! says it is ast-grep 0.51.1, the peer the tests compare with; `cfg(pyyaml)`
//! when `python3` imports PyYAML (the catalog's check.py needs it). A test that
//! needs one carries `#[cfg_attr(not(peer), ignore = "...")]` (or `pyyaml`), so
//! without it `cargo test` reports that test as ignored, never as passed
//! (tests/it/common/mod.rs, `ast_grep`). With `AST_EDIT_REQUIRE_PEER` set (CI's
//! `.ci/run` sets it) a missing tool stops the build instead.

use std::process::Command;

/// The peer version the tests were written against.
const PEER: &str = "ast-grep 0.51.1";

fn main() {
    println!("cargo::rustc-check-cfg=cfg(peer)");
    println!("cargo::rerun-if-changed=build.rs");
    for var in ["AST_GREP", "PATH", "AST_EDIT_REQUIRE_PEER"] {
        println!("cargo::rerun-if-env-changed={var}");
    }
    println!("cargo::rustc-check-cfg=cfg(pyyaml)");
    let required = std::env::var_os("AST_EDIT_REQUIRE_PEER").is_some();
    let bin = std::env::var("AST_GREP").unwrap_or_else(|_| "ast-grep".into());
    let found = Command::new(&bin).arg("--version").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == PEER);
    if found {
        println!("cargo::rustc-cfg=peer");
    } else if required {
        panic!("AST_EDIT_REQUIRE_PEER is set but `{bin} --version` is not `{PEER}`: pip install ast-grep-cli==0.51.1, or point AST_GREP at it");
    }
    let yaml = Command::new("python3").args(["-c", "import yaml"]).output().is_ok_and(|o| o.status.success());
    if yaml {
        println!("cargo::rustc-cfg=pyyaml");
    } else if required {
        panic!("AST_EDIT_REQUIRE_PEER is set but `python3 -c 'import yaml'` fails: pip install pyyaml");
    }
}
