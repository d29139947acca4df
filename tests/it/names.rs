//! Hostile file names (docs/DESIGN.md §2.2, §2.7, §5): a newline, a tab, an ESC
//! sequence, a backslash, a double quote, non-ASCII, a name that is not UTF-8,
//! and paths that are not regular files. Human output and diff headers show
//! names git-quoted, JSON carries them exactly, apply writes the right file, and
//! nothing aliases or hangs.

#![cfg(unix)]

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

use crate::common::Tree;
use crate::common::json::{Preview, ResolveResult};

const PAT: &str = "foo($A)";
const OUT: &str = "bar($A)";

/// Each hostile name with the form git gives it (`core.quotePath` on).
const NAMES: &[(&str, &str)] = &[
    ("nl\nx.py", r#""nl\nx.py""#),
    ("tab\there.py", r#""tab\there.py""#),
    ("esc\x1b[31mred.py", r#""esc\033[31mred.py""#),
    ("back\\slash.py", r#""back\\slash.py""#),
    ("q\"uote.py", r#""q\"uote.py""#),
    ("é.py", r#""\303\251.py""#),
];

fn hostile_tree() -> Tree {
    let t = Tree::empty();
    for (i, (name, _)) in NAMES.iter().enumerate() {
        t.write(name, format!("foo({i})\n"));
    }
    t
}

/// Writes a file whose name is raw bytes (not UTF-8).
fn write_bytes_name(t: &Tree, name: &[u8], contents: &str) {
    std::fs::write(t.path().join(OsStr::from_bytes(name)), contents).unwrap();
}

/// The bytes of `text` that must never reach a terminal raw: control bytes other
/// than the line feeds that end lines, and DEL.
fn raw_controls(text: &str) -> Vec<u8> {
    text.bytes().filter(|&b| (b < 0x20 && b != b'\n') || b == 0x7f).collect()
}

fn git(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    let o = std::process::Command::new("git")
        .args(["-c", "core.quotePath=true", "-c", "core.autocrlf=false"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(o.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    o
}

#[test]
fn hostile_names_are_git_quoted_in_human_output_and_exact_in_json() {
    let t = hostile_tree();
    let r = t.run(&["run", "-p", PAT, "-r", OUT]).ok();
    assert_eq!(raw_controls(&r.stdout), Vec::<u8>::new(), "stdout:\n{}", r.stdout);
    assert_eq!(raw_controls(&r.stderr), Vec::<u8>::new(), "stderr:\n{}", r.stderr);
    for (_, quoted) in NAMES {
        let inner = &quoted[1..quoted.len() - 1];
        assert!(r.stdout.contains(&format!("--- \"a/{inner}\"\n+++ \"b/{inner}\"\n@@ -1 +1 @@\n")), "{quoted}:\n{}", r.stdout);
    }
    // Every line is one the preview prints: no name broke a line in two.
    for line in r.stdout.lines() {
        let known = ["--- \"a/", "+++ \"b/", "@@ ", "-foo(", "+bar(", "AST Edit: ", "Staged as ", "  apply:", "  discard:"];
        assert!(known.iter().any(|k| line.starts_with(k)), "unexpected line {line:?} in\n{}", r.stdout);
    }
    // JSON: the exact names, and the same quoted diffs.
    let p: Preview = t.run(&["run", "-p", PAT, "-r", OUT, "--json"]).ok().json();
    let mut want: Vec<&str> = NAMES.iter().map(|(n, _)| *n).collect();
    want.sort();
    let got: Vec<&str> = p.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(got, want);
    for f in &p.files {
        let quoted = NAMES.iter().find(|(n, _)| *n == f.path).unwrap().1;
        let inner = &quoted[1..quoted.len() - 1];
        assert!(f.diff.starts_with(&format!("--- \"a/{inner}\"\n+++ \"b/{inner}\"\n")), "{}", f.diff);
    }
}

#[test]
fn apply_writes_each_hostile_name_and_reports_it_quoted() {
    let t = hostile_tree();
    t.run(&["run", "-p", PAT, "-r", OUT]).ok();
    let r = t.run(&["resolve", "apply", "--reason", "r", "--json"]).ok();
    let res: ResolveResult = r.json();
    for (i, (name, quoted)) in NAMES.iter().enumerate() {
        assert_eq!(t.read(name), format!("bar({i})\n"), "{name:?}");
        assert!(res.content.contains(&format!("\n  applied  {quoted} (1 replacement)")), "{}", res.content);
    }
    assert_eq!(raw_controls(&res.content), Vec::<u8>::new(), "{}", res.content);
    let report = res.details.source_result_details.unwrap();
    let mut paths: Vec<&str> = report.files.iter().map(|f| f.path.as_str()).collect();
    paths.sort();
    let mut want: Vec<&str> = NAMES.iter().map(|(n, _)| *n).collect();
    want.sort();
    assert_eq!(paths, want, "JSON keeps the exact names");
    // The undo text quotes them too.
    let u = t.run(&["undo"]).ok();
    assert_eq!(raw_controls(&u.stdout), Vec::<u8>::new(), "{}", u.stdout);
    assert!(u.stdout.contains("\n  restored \"tab\\there.py\""), "{}", u.stdout);
    assert_eq!(t.read("tab\there.py"), "foo(1)\n");
}

/// `git apply` reads the quoted headers, and its result is what `resolve apply`
/// writes; after the apply, `git diff` prints the same headers as the preview.
#[test]
#[cfg_attr(not(git), ignore = "git was not found when the tests were built")]
fn diffs_with_quoted_names_match_git_and_git_apply_them() {
    let t = hostile_tree();
    git(t.path(), &["init", "-q"]);
    git(t.path(), &["add", "-A"]);
    let p: Preview = t.run(&["run", "-p", PAT, "-r", OUT, "--json"]).ok().json();
    let patch: String = p.files.iter().map(|f| f.diff.as_str()).collect();

    let other = hostile_tree();
    std::fs::write(other.path().join("preview.patch"), &patch).unwrap();
    git(other.path(), &["apply", "preview.patch"]);
    std::fs::remove_file(other.path().join("preview.patch")).unwrap();

    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    let mut written = t.snapshot();
    written.retain(|k, _| !k.starts_with(".git/"));
    assert_eq!(written, other.snapshot());

    let headers = |text: &str| -> Vec<String> {
        let mut v: Vec<String> = text.lines().filter(|l| l.starts_with("--- ") || l.starts_with("+++ ")).map(String::from).collect();
        v.sort();
        v
    };
    let diff = String::from_utf8(git(t.path(), &["diff"]).stdout).unwrap();
    assert_eq!(headers(&patch), headers(&diff), "git diff:\n{diff}");
}

/// `back\slash.py` is one file and `back/slash.py` another: both are previewed,
/// staged and selected by their own names.
#[test]
fn backslash_is_part_of_a_name_not_a_separator() {
    let t = Tree::empty();
    t.write("back\\slash.py", "foo(1)\n");
    t.write("back/slash.py", "foo(2)\n");
    let p: Preview = t.run(&["run", "-p", PAT, "-r", OUT, "--json"]).ok().json();
    let paths: Vec<&str> = p.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, vec!["back/slash.py", "back\\slash.py"]);
    assert!(p.files[0].diff.contains("+bar(2)"));
    assert!(p.files[1].diff.contains("+bar(1)"));
    let rows: Vec<crate::common::json::PendingRow> = t.run(&["pending", "--json"]).ok().json();
    assert_eq!(rows[0].files, vec!["back/slash.py", "back\\slash.py"]);
    let r = t.run(&["resolve", "apply", "--reason", "r", "--extra", r#"{"files":["back\\slash.py"]}"#, "--json"]).code(3);
    let res: ResolveResult = r.json();
    let report = res.details.source_result_details.unwrap();
    assert_eq!(report.files.len(), 1);
    assert_eq!(report.files[0].path, "back\\slash.py");
    assert_eq!(report.outstanding[0].path, "back/slash.py");
    assert_eq!(report.outstanding[0].status, "not_selected");
    assert_eq!(t.read("back\\slash.py"), "bar(1)\n");
    assert_eq!(t.read("back/slash.py"), "foo(2)\n");
}

/// A name that is not UTF-8 cannot be carried exactly by JSON: it is skipped
/// with a reason (its git-quoted form as the path), never renamed to U+FFFD, and
/// the other files are staged as usual.
#[test]
fn name_not_utf8_is_skipped_with_a_reason_and_the_rest_is_staged() {
    let t = Tree::empty();
    write_bytes_name(&t, b"\xff.py", "foo(1)\n");
    std::fs::create_dir(t.path().join(OsStr::from_bytes(b"d\xfe"))).unwrap();
    write_bytes_name(&t, b"d\xfe/in.py", "foo(1)\n");
    t.write("ok.py", "foo(2)\n");
    let before = t.snapshot();
    let p: Preview = t.run(&["run", "-p", PAT, "-r", OUT, "--json"]).ok().json();
    assert_eq!(p.status, "pending");
    assert_eq!(p.files.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(), vec!["ok.py"]);
    let reason = "file name is not valid UTF-8; rename it to edit it";
    let skipped: Vec<(&str, &str)> = p.skipped.iter().map(|s| (s.path.as_str(), s.reason.as_str())).collect();
    assert_eq!(skipped, vec![(r#""\377.py""#, reason), (r#""d\376/in.py""#, reason)]);
    assert!(!p.warnings.iter().any(|w| w.contains('\u{fffd}')), "{:?}", p.warnings);

    let r = t.run(&["run", "-p", PAT, "-r", OUT]).ok();
    assert!(r.stdout.contains(&format!("skipped \"\\377.py\": {reason}\n")), "{}", r.stdout);
    assert!(r.stdout.contains("(searched 1 file, 2 files skipped)"), "{}", r.stdout);
    assert_eq!(raw_controls(&r.stdout), Vec::<u8>::new());
    assert_eq!(t.snapshot(), before, "a preview writes nothing");
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert_eq!(t.read("ok.py"), "bar(2)\n");
    assert_eq!(std::fs::read(t.path().join(OsStr::from_bytes(b"\xff.py"))).unwrap(), b"foo(1)\n");
}

/// A FIFO or a device named explicitly is skipped with what it is, instead of
/// the "No file searched" warning, and is never opened for reading (a FIFO
/// without a writer would block the run).
#[test]
fn fifo_or_device_named_explicitly_is_skipped_as_not_a_regular_file() {
    let t = Tree::empty();
    let st = std::process::Command::new("mkfifo").arg(t.path().join("pipe.py")).status().unwrap();
    assert!(st.success());
    let p: Preview = t.run(&["run", "-l", "py", "-p", PAT, "-r", OUT, "pipe.py", "/dev/zero", "--json"]).ok().json();
    let skipped: Vec<(&str, &str)> = p.skipped.iter().map(|s| (s.path.as_str(), s.reason.as_str())).collect();
    assert_eq!(skipped, vec![("/dev/zero", "not a regular file (a character device)"), ("pipe.py", "not a regular file (a FIFO)")]);
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    assert_eq!(p.files_searched, 0);
    let r = t.run(&["run", "-l", "py", "-p", PAT, "-r", OUT, "pipe.py"]).ok();
    assert!(r.stdout.starts_with("skipped pipe.py: not a regular file (a FIFO)\n"), "{}", r.stdout);
    assert!(!r.stdout.contains("No file searched"), "{}", r.stdout);
    // Inside a folder, a FIFO is not a candidate (and not read) either.
    t.write("a.py", "foo(1)\n");
    let p: Preview = t.run(&["run", "-p", PAT, "-r", OUT, "--json"]).ok().json();
    assert_eq!((p.files_searched, p.files.len(), p.skipped.len()), (1, 1, 0));
}

/// Warnings that name a file quote it: the syntax-error warning of the preview
/// and of the diff listing.
#[test]
fn warnings_name_files_quoted() {
    let t = Tree::empty();
    t.write("tab\there.py", "foo(1)\n");
    let r = t.run(&["run", "-p", PAT, "-r", "bar($A"]).ok();
    assert!(r.stdout.contains("warning: \"tab\\there.py\": this rewrite introduces syntax errors\n"), "{}", r.stdout);
    assert!(r.stdout.contains("warning: \"tab\\there.py\": the rewrite introduces syntax errors ("), "{}", r.stdout);
    assert_eq!(raw_controls(&r.stdout), Vec::<u8>::new(), "{}", r.stdout);
}
