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
//! It also packs the binary's relative relocations (`-z pack-relative-relocs`,
//! `cfg(relr)`) where the C library that will load it reads them
//! ([`pack_relocations`]), lays out the functions everyday runs execute together
//! ([`order_functions`]), and links gcc's profiling runtime into the build
//! `pgo/train.sh` makes ([`profile_generation`]).
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
    pack_relocations();
    profile_generation();
    order_functions();
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

/// Links the binary with packed relative relocations (DT_RELR) when it is built
/// for the machine that builds it, on Linux with glibc 2.36 or later (the first
/// whose loader applies them; the linker then marks the binary as needing it).
/// The position-independent binary holds about 42,000 relative relocations:
/// 1 MB of table that the loader reads whole at every start, and that stayed
/// resident; packed it is 10 KB. Measured on a 12-file project's scan: peak RSS
/// 15.6 against 17.4 MB, the same time (docs/REFERENCE.md, "Build profile").
/// Elsewhere (an older glibc, another C library, a cross build) nothing changes.
fn pack_relocations() {
    println!("cargo::rustc-check-cfg=cfg(relr)");
    if var("CARGO_CFG_TARGET_OS") != "linux" || var("CARGO_CFG_TARGET_ENV") != "gnu" || var("HOST") != var("TARGET") {
        return;
    }
    // `getconf GNU_LIBC_VERSION` prints `glibc 2.36`.
    let Ok(out) = Command::new("getconf").arg("GNU_LIBC_VERSION").output() else { return };
    let text = String::from_utf8_lossy(&out.stdout);
    let mut parts = text.trim().trim_start_matches("glibc ").split('.').map(|n| n.parse::<u32>().unwrap_or(0));
    let version = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    if out.status.success() && version >= (2, 36) {
        println!("cargo::rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
        println!("cargo::rustc-cfg=relr");
    }
}

/// In the instrumented build `pgo/train.sh` makes (`AST_EDIT_PGO=generate:DIR`,
/// under which `pgo/cc` compiles the C code with `-fprofile-generate`), links
/// gcc's profiling runtime and sets `cfg(pgo_generate)`, under which `main`
/// writes the profiles out before it ends the process with `_exit`.
fn profile_generation() {
    println!("cargo::rustc-check-cfg=cfg(pgo_generate)");
    println!("cargo::rerun-if-env-changed=AST_EDIT_PGO");
    if std::env::var("AST_EDIT_PGO").is_ok_and(|v| v.starts_with("generate:")) {
        println!("cargo::rustc-link-arg-bins=-lgcov");
        println!("cargo::rustc-cfg=pgo_generate");
    }
}

/// In an optimized build for x86_64 Linux, asks the linker to place the
/// functions `pgo/order.txt` lists (those everyday runs execute, found by
/// `pgo/order.sh`) together, in that order: spread over the binary's 15 MB of
/// code, each page a run touches made the kernel map the 64 KB around it, and
/// those code pages were most of a small scan's resident memory
/// (docs/REFERENCE.md, "Function order"). Only lld and gold take the option, and
/// the build's linker may be another: an empty program is linked with the same
/// rustc, target, linker and flags first, and the option is given only if that
/// link succeeds (`cfg(function_order)`).
fn order_functions() {
    println!("cargo::rustc-check-cfg=cfg(function_order)");
    println!("cargo::rerun-if-changed=pgo/order.txt");
    println!("cargo::rerun-if-env-changed=RUSTC_LINKER");
    if var("OPT_LEVEL") != "3" || var("TARGET") != "x86_64-unknown-linux-gnu" {
        return;
    }
    let order = std::path::Path::new(&var("CARGO_MANIFEST_DIR")).join("pgo/order.txt");
    let out = std::path::PathBuf::from(var("OUT_DIR"));
    if !order.is_file() || std::fs::write(out.join("probe.rs"), "fn main() {}\n").is_err() {
        return;
    }
    let arg = format!("-Wl,--symbol-ordering-file={},--no-warn-symbol-ordering", order.display());
    let mut probe = Command::new(var("RUSTC"));
    probe.args(["--edition=2021", "--crate-type=bin", "--target", "x86_64-unknown-linux-gnu", "-o"]);
    probe.arg(out.join("probe")).arg(out.join("probe.rs")).arg(format!("-Clink-arg={arg}"));
    if let Ok(linker) = std::env::var("RUSTC_LINKER") {
        probe.arg(format!("-Clinker={linker}"));
    }
    probe.args(var("CARGO_ENCODED_RUSTFLAGS").split('\x1f').filter(|f| !f.is_empty()));
    if probe.output().is_ok_and(|o| o.status.success()) {
        println!("cargo::rustc-link-arg-bins={arg}");
        println!("cargo::rustc-cfg=function_order");
    }
}

/// A variable cargo gives build scripts, empty when unset.
fn var(k: &str) -> String {
    std::env::var(k).unwrap_or_default()
}
