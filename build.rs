//! Build script of the binary package. It only tells the tests which outside
//! tools run here: `cfg(peer)` when `$AST_GREP` (else `ast-grep` on the PATH)
//! says it is ast-grep 0.51.1, the peer the tests compare with; `cfg(pyyaml)`
//! when `python3` imports PyYAML (the catalog's check.py needs it); `cfg(mcp_sdk)`
//! when it imports the official MCP Python SDK (tests/it/mcp_sdk.rs). A test that
//! needs one carries `#[cfg_attr(not(peer), ignore = "...")]` (or `pyyaml`), so
//! without it `cargo test` reports that test as ignored, never as passed
//! (tests/it/common/mod.rs, `ast_grep`). With `AST_EDIT_REQUIRE_PEER` set (CI's
//! `.ci/run` sets it) a missing tool stops the build instead. Likewise
//! `cfg(root)` when the build runs as root (the tests that change a file's
//! owner) and `cfg(git)` when `git` runs (the tests that compare with it).
//!
//! The peer found on the PATH is passed to the tests by its absolute path
//! (`AST_EDIT_PEER`), and the script reruns when that file changes, not when
//! the PATH does: activating a virtualenv or adding cargo's bin folder to the
//! PATH rebuilds nothing. Only while no peer is found does a PATH change rerun
//! it, so a peer installed later is found.

use std::process::Command;

/// The peer version the tests were written against.
const PEER: &str = "ast-grep 0.51.1";

fn main() {
    println!("cargo::rustc-check-cfg=cfg(peer)");
    println!("cargo::rerun-if-changed=build.rs");
    for var in ["AST_GREP", "AST_EDIT_REQUIRE_PEER"] {
        println!("cargo::rerun-if-env-changed={var}");
    }
    println!("cargo::rustc-check-cfg=cfg(pyyaml)");
    let required = std::env::var_os("AST_EDIT_REQUIRE_PEER").is_some();
    let bin = std::env::var_os("AST_GREP").map(std::path::PathBuf::from).or_else(|| on_path("ast-grep"));
    let found = bin.as_ref().filter(|b| Command::new(b).arg("--version").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == PEER));
    if let Some(bin) = found {
        println!("cargo::rerun-if-changed={}", bin.display());
        println!("cargo::rustc-env=AST_EDIT_PEER={}", bin.display());
        println!("cargo::rustc-cfg=peer");
    } else if required {
        let bin = bin.map_or_else(|| "ast-grep".to_string(), |b| b.display().to_string());
        panic!("AST_EDIT_REQUIRE_PEER is set but `{bin} --version` is not `{PEER}`: pip install ast-grep-cli==0.51.1, or point AST_GREP at it");
    } else {
        // None yet: look again when the PATH changes.
        println!("cargo::rerun-if-env-changed=PATH");
    }
    // Tests that need root (file owners) or git: ignored with the reason when
    // the tests are built without them, failed (not passed) when built with
    // them and run without.
    println!("cargo::rustc-check-cfg=cfg(root)");
    if Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0") {
        println!("cargo::rustc-cfg=root");
    }
    println!("cargo::rustc-check-cfg=cfg(git)");
    if Command::new("git").arg("--version").output().is_ok_and(|o| o.status.success()) {
        println!("cargo::rustc-cfg=git");
    }
    println!("cargo::rustc-check-cfg=cfg(mcp_sdk)");
    if Command::new("python3").args(["-c", "import mcp.client.stdio"]).output().is_ok_and(|o| o.status.success()) {
        println!("cargo::rustc-cfg=mcp_sdk");
    } else if required {
        panic!("AST_EDIT_REQUIRE_PEER is set but `python3 -c 'import mcp.client.stdio'` fails: pip install mcp==1.12.4");
    }
    let yaml = Command::new("python3").args(["-c", "import yaml"]).output().is_ok_and(|o| o.status.success());
    if yaml {
        println!("cargo::rustc-cfg=pyyaml");
    } else if required {
        panic!("AST_EDIT_REQUIRE_PEER is set but `python3 -c 'import yaml'` fails: pip install pyyaml");
    }
}

/// The first executable file named `name` in a folder of the PATH, as a shell
/// would run it (absolute, so the tests run the same file whatever their PATH).
fn on_path(name: &str) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file() && runnable(&m)))
}

#[cfg(unix)]
fn runnable(m: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    m.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn runnable(_: &std::fs::Metadata) -> bool {
    true
}
