//! The profile-guided C build (docs/REFERENCE.md, "Profile-guided C"): `pgo/cc`,
//! the C compiler `.cargo/config.toml` names for x86_64 Linux, adds the stored
//! profile of `pgo/gcc` to an optimized compile of a source its manifest names,
//! and changes nothing else. These tests run the script itself: with a stand-in
//! compiler that records what it was given, and with the machine's gcc on
//! tree-sitter's runtime, the code a scan spends most of its time in.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn wrapper() -> PathBuf {
    root().join("pgo/cc")
}

/// `pgo/gcc/MANIFEST`: its compiler line, and each source's key (package-version/path)
/// with its SHA-256.
fn manifest() -> (String, BTreeMap<String, String>) {
    let text = std::fs::read_to_string(root().join("pgo/gcc/MANIFEST")).unwrap();
    let mut lines = text.lines();
    let compiler = lines.next().and_then(|l| l.strip_prefix("compiler\t")).expect("the first line names the compiler").to_string();
    let sources = lines.map(|l| l.split_once('\t').map(|(k, v)| (k.to_string(), v.to_string())).expect("key<TAB>sha256")).collect();
    (compiler, sources)
}

/// The folder of each package Cargo.lock pins for this machine, by `name-version`.
fn package_dirs() -> BTreeMap<String, PathBuf> {
    let cargo = option_env!("CARGO").unwrap_or("cargo");
    let host = if cfg!(all(target_os = "linux", target_arch = "x86_64", target_env = "gnu")) { "x86_64-unknown-linux-gnu" } else { "" };
    let mut cmd = Command::new(cargo);
    cmd.args(["metadata", "--locked", "--offline", "--format-version", "1"]).current_dir(root());
    if !host.is_empty() {
        cmd.args(["--filter-platform", host]);
    }
    let out = cmd.output().expect("cargo metadata runs");
    assert!(out.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let dir = Path::new(p["manifest_path"].as_str().unwrap()).parent().unwrap().to_path_buf();
            (format!("{}-{}", p["name"].as_str().unwrap(), p["version"].as_str().unwrap()), dir)
        })
        .collect()
}

fn sha256(path: &Path) -> String {
    let out = Command::new("sha256sum").arg(path).output().expect("sha256sum (coreutils) runs");
    assert!(out.status.success(), "sha256sum {}: {}", path.display(), String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).split_whitespace().next().unwrap_or_default().to_string()
}

/// Every stored profile is of a source Cargo.lock pins, with the bytes it was
/// made from: a lock file that moves a C-building crate without `pgo/train.sh`
/// fails here, not as a silently slower build.
#[test]
#[cfg_attr(not(all(target_os = "linux", target_arch = "x86_64")), ignore = "pgo/cc is the C compiler of x86_64 Linux builds only")]
fn the_stored_profiles_are_of_the_locked_sources() {
    let (_, sources) = manifest();
    assert!(sources.len() >= 30, "{} profiles in pgo/gcc/MANIFEST", sources.len());
    let dirs = package_dirs();
    for (key, sum) in &sources {
        let (package, file) = key.split_once('/').unwrap();
        let dir = dirs.get(package).unwrap_or_else(|| panic!("pgo/gcc/MANIFEST names {package}, which Cargo.lock does not pin: run pgo/train.sh"));
        assert_eq!(&sha256(&dir.join(file)), sum, "{key} changed since its profile was made: run pgo/train.sh");
        let profile = root().join("pgo/gcc").join(Path::new(key).with_extension("gcda"));
        assert!(profile.is_file(), "{} is missing", profile.display());
    }
    // The packages that build C for the binary all have theirs.
    for package in ["tree-sitter-0", "tree-sitter-rust-", "tree-sitter-c-0", "tree-sitter-python-", "libmimalloc-sys-"] {
        assert!(sources.keys().any(|k| k.starts_with(package)), "no profile for {package}*");
    }
}

/// A stand-in compiler: answers `-v` as the manifest's compiler (or `other`),
/// and writes the arguments of any other call to `args`, one per line, with
/// `exists` or `missing` for the profile a `-fprofile-use=DIR` names.
fn stand_in(dir: &Path, version: &str) -> PathBuf {
    let cc = dir.join("fake-cc");
    let script = format!(
        "#!/bin/sh\nif [ \"$1\" = -v ]; then echo '{version}' >&2; exit 0; fi\n: >\"{args}\"\nfor a in \"$@\"; do\n  printf '%s\\n' \"$a\" >>\"{args}\"\n  case $a in -fprofile-use=*) d=${{a#-fprofile-use=}}; if ls \"$d\"/ast-edit-pgo/*.gcda >/dev/null 2>&1; then echo exists >>\"{args}\"; else echo missing >>\"{args}\"; fi ;; esac\ndone\n",
        args = dir.join("args").display()
    );
    std::fs::write(&cc, script).unwrap();
    std::fs::set_permissions(&cc, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    cc
}

/// Runs pgo/cc as tree-sitter's build script would (in the package's folder, with
/// cargo's variables), with `cc` as $CC, and returns the arguments the compiler got.
fn compile_as_tree_sitter(package: &Path, cc: &Path, env: &[(&str, &str)], args: &[&str]) -> Vec<String> {
    let record = cc.with_file_name("args");
    let _ = std::fs::remove_file(&record);
    let mut cmd = wrapper_as_tree_sitter(package);
    cmd.args(args).env("CC", cc);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "pgo/cc: {}", String::from_utf8_lossy(&out.stderr));
    std::fs::read_to_string(record).unwrap().lines().map(str::to_string).collect()
}

/// pgo/cc as cargo runs it for tree-sitter's build script (in the package's
/// folder, with cargo's variables for it), and without the variables a test
/// sets when it means to.
fn wrapper_as_tree_sitter(package: &Path) -> Command {
    let mut cmd = Command::new(wrapper());
    cmd.current_dir(package)
        .env("CARGO_PKG_NAME", "tree-sitter")
        .env("CARGO_PKG_VERSION", version_of(package))
        .env("CARGO_MANIFEST_DIR", package)
        .env_remove("AST_EDIT_PGO")
        .env_remove("OPT_LEVEL");
    cmd
}

/// The version in the folder name of tree-sitter's package (`tree-sitter-0.27.1`).
fn version_of(package: &Path) -> String {
    package.file_name().unwrap().to_str().unwrap().trim_start_matches("tree-sitter-").to_string()
}

fn tree_sitter_dir() -> PathBuf {
    let (_, sources) = manifest();
    let key = sources.keys().find(|k| k.starts_with("tree-sitter-0") && k.ends_with("/src/lib.c")).expect("tree-sitter's runtime in the manifest").clone();
    package_dirs().remove(key.split_once('/').unwrap().0).unwrap()
}

/// In an optimized build the compiler gets the stored profile, under a fixed
/// object name and with the package's paths relative to its folder (so the
/// profile fits any cargo home and target folder); in every other case it gets
/// exactly the arguments cargo gave.
#[test]
#[cfg_attr(not(all(target_os = "linux", target_arch = "x86_64")), ignore = "pgo/cc is the C compiler of x86_64 Linux builds only")]
fn the_wrapper_adds_the_profile_to_optimized_builds_of_known_sources_only() {
    let (compiler, _) = manifest();
    let tmp = tempfile::tempdir().unwrap();
    let pkg = tree_sitter_dir();
    let src = pkg.join("src/lib.c");
    let include = format!("-I{}", pkg.join("include").display());
    let obj = tmp.path().join("out/lib.o");
    let src_dir = pkg.join("src");
    let args = ["-O3", "-I", src_dir.to_str().unwrap(), &include, "-o", obj.to_str().unwrap(), "-c", src.to_str().unwrap()];
    let given: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let same = stand_in(tmp.path(), &compiler);

    let got = compile_as_tree_sitter(&pkg, &same, &[("OPT_LEVEL", "3")], &args);
    let version = version_of(&pkg).replace('.', "_");
    let expected_base = format!("tree-sitter-{version}+src+lib");
    for want in [
        "-dumpdir",
        "/ast-edit-pgo/",
        "-dumpbase",
        &expected_base,
        "-fprofile-correction",
        "-fprofile-partial-training",
        "exists",
        "src",
        "-Iinclude",
        "src/lib.c",
    ] {
        assert!(got.iter().any(|a| a == want), "{want:?} not in {got:?}");
    }
    assert!(got.iter().any(|a| a.starts_with("-fprofile-use=")), "{got:?}");
    assert!(got.iter().any(|a| a == obj.to_str().unwrap()), "the object stays where cargo wants it: {got:?}");
    assert!(!got.iter().any(|a| a.contains(pkg.to_str().unwrap())), "a path of the package left absolute: {got:?}");

    // A debug build, AST_EDIT_PGO=off, another compiler: untouched.
    assert_eq!(compile_as_tree_sitter(&pkg, &same, &[], &args), given);
    assert_eq!(compile_as_tree_sitter(&pkg, &same, &[("OPT_LEVEL", "0")], &args), given);
    assert_eq!(compile_as_tree_sitter(&pkg, &same, &[("OPT_LEVEL", "3"), ("AST_EDIT_PGO", "off")], &args), given);
    let other = tempfile::tempdir().unwrap();
    let other_cc = stand_in(other.path(), "clang version 19.1.7");
    assert_eq!(compile_as_tree_sitter(&pkg, &other_cc, &[("OPT_LEVEL", "3")], &args), given);

    // Cross-compiling to x86_64 Linux with no compiler named: the cross compiler
    // cc-rs would have run, found on the PATH.
    let cross = tempfile::tempdir().unwrap();
    std::fs::rename(stand_in(cross.path(), &compiler), cross.path().join("x86_64-linux-gnu-gcc")).unwrap();
    let path = format!("{}:{}", cross.path().display(), std::env::var("PATH").unwrap_or_default());
    let out = wrapper_as_tree_sitter(&pkg)
        .args(args)
        .env_remove("CC")
        .env_remove("TARGET_CC")
        .env("PATH", path)
        .env("HOST", "aarch64-unknown-linux-gnu")
        .env("TARGET", "x86_64-unknown-linux-gnu")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let got = std::fs::read_to_string(cross.path().join("args")).expect("the cross compiler ran");
    assert_eq!(got.lines().collect::<Vec<_>>(), args);

    // The same package name and version with different bytes (a patched or
    // vendored copy): untouched.
    let copy = tmp.path().join(pkg.file_name().unwrap());
    std::fs::create_dir_all(copy.join("src")).unwrap();
    std::fs::write(copy.join("src/lib.c"), "int changed(void) { return 1; }\n").unwrap();
    let copy_src = copy.join("src/lib.c");
    let copy_args = ["-O3", "-o", obj.to_str().unwrap(), "-c", copy_src.to_str().unwrap()];
    let copy_given: Vec<String> = copy_args.iter().map(|a| a.to_string()).collect();
    assert_eq!(compile_as_tree_sitter(&copy, &same, &[("OPT_LEVEL", "3")], &copy_args), copy_given);
}

/// With the machine's gcc (the one `pgo/train.sh` made the profiles with), the
/// stored profile of tree-sitter's runtime fits every function gcc compiles from
/// it: a profile made under other paths (another cargo home, target folder or
/// object name) would leave over a hundred of them unprofiled, each one a
/// `-Wmissing-profile` warning, and the build silently as slow as a plain one.
#[test]
#[cfg_attr(not(all(target_os = "linux", target_arch = "x86_64")), ignore = "pgo/cc is the C compiler of x86_64 Linux builds only")]
fn the_runtime_s_stored_profile_fits_the_machine_s_gcc() {
    let (compiler, _) = manifest();
    let version = Command::new("cc").arg("-v").output().expect("cc runs");
    let local = String::from_utf8_lossy(&version.stderr).lines().last().unwrap_or_default().to_string();
    assert_eq!(local, compiler, "pgo/gcc was made with another compiler than this machine's cc: run pgo/train.sh (or build with AST_EDIT_PGO=off)");
    let tmp = tempfile::tempdir().unwrap();
    let pkg = tree_sitter_dir();
    let obj = tmp.path().join("lib.o");
    let src = pkg.join("src/lib.c");
    let inc: Vec<String> = ["src", "src/wasm", "include"].iter().map(|d| format!("-I{}", pkg.join(d).display())).collect();
    // The flags cc-rs gives tree-sitter's runtime in a release build.
    let mut args: Vec<&str> = vec!["-O3", "-ffunction-sections", "-fdata-sections", "-fPIC", "-m64", "-march=x86-64", "-std=c11"];
    args.extend(inc.iter().map(String::as_str));
    args.extend(["-fvisibility=hidden", "-D_POSIX_C_SOURCE=200112L", "-D_DEFAULT_SOURCE", "-D_BSD_SOURCE", "-D_DARWIN_C_SOURCE", "-Wmissing-profile"]);
    args.extend(["-o", obj.to_str().unwrap(), "-c", src.to_str().unwrap()]);
    let out = wrapper_as_tree_sitter(&pkg).args(&args).env_remove("CC").env("OPT_LEVEL", "3").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(obj.is_file());
    assert!(!stderr.contains("mismatch") && !stderr.contains("corrupted"), "{stderr}");
    // One static inline function gcc emits only where the profile says it is
    // called is the known exception.
    let missing = stderr.matches("not found in profile data").count();
    assert!(missing <= 2, "{missing} functions without their profile:\n{stderr}");
}

/// `pgo/order.txt`, the functions build.rs has the linker place together in an
/// optimized build (docs/REFERENCE.md, "Function order"), is a sorted list of
/// symbol names as the linker spells them (mangled), most of them this code
/// base's: an empty, demangled or foreign list would order nothing, silently.
#[test]
fn the_function_order_lists_this_code_base_s_mangled_symbols() {
    let text = std::fs::read_to_string(root().join("pgo/order.txt")).expect("pgo/order.txt (pgo/order.sh makes it)");
    let names: Vec<&str> = text.lines().collect();
    assert!(names.len() >= 1000, "{} names", names.len());
    assert!(names.windows(2).all(|w| w[0] < w[1]), "not sorted and unique");
    assert!(names.iter().all(|n| !n.is_empty() && !n.contains(char::is_whitespace)), "a name with spaces: demangled?");
    let ours = names.iter().filter(|n| (n.starts_with("_ZN") || n.starts_with("_R")) && n.contains("ast_edit")).count();
    let parser = names.iter().filter(|n| n.starts_with("ts_parser")).count();
    assert!(ours >= 300, "{ours} of this code base's functions");
    assert!(parser >= 5, "{parser} of tree-sitter's parser");
}
