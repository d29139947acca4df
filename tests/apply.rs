//! Apply you can trust: each test is named after the failure it pins (the ones users
//! of agent edit tools and codemods report) and asserts the bytes on disk.

mod common;

use common::json::{PendingRow, Preview, ResolveResult, UndoResult};
use common::Tree;

const PAT: &str = "fetch_data($$$A)";
const OUT: &str = "load_data($$$A)";

/// Preview of the fetch_data rename on python/: 3 files (app.py, crlf.py, test_app.py).
fn preview_py(t: &Tree) -> Preview {
    let p: Preview = t.run(&["run", "-p", PAT, "-r", OUT, "-l", "py", "python", "--json"]).ok().json();
    assert_eq!(p.files_touched, 3);
    p
}

fn pending(t: &Tree) -> Vec<PendingRow> {
    t.run(&["pending", "--json"]).ok().json()
}

/// Folders of undo records in the state dir (any depth), named by their leaf.
fn journal_records(t: &Tree) -> Vec<String> {
    fn walk(d: &std::path::Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                if p.parent().and_then(|q| q.file_name()).is_some_and(|n| n == "journal") {
                    out.push(e.file_name().to_string_lossy().into_owned());
                }
                walk(&p, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(t.state.path(), &mut out);
    out
}

fn temp_files(t: &Tree) -> Vec<String> {
    t.snapshot().into_keys().filter(|k| k.contains(".ast-edit-")).collect()
}

#[test]
fn stale_file_aborts_the_whole_apply_and_keeps_the_action() {
    let t = Tree::fixtures();
    preview_py(&t);
    t.write("python/app.py", "# edited by someone else\n");
    let before = t.snapshot();
    let r = t.run(&["resolve", "apply", "--reason", "r"]).code(1);
    assert!(
        r.stderr.starts_with("Apply failed: 1 file changed since the preview: python/app.py."),
        "{}",
        r.stderr
    );
    assert_eq!(t.snapshot(), before, "nothing written");
    // The fresh files were staged in the same pass that found the stale one: their
    // temp files and the journal record begun for them are gone again.
    assert!(temp_files(&t).is_empty(), "{:?}", temp_files(&t));
    assert_eq!(journal_records(&t), Vec::<String>::new());
    assert_eq!(pending(&t).len(), 1, "action kept");
    // Discard still works afterwards.
    t.run(&["resolve", "discard", "--reason", "stale"]).ok();
}

#[test]
fn deleted_file_counts_as_stale() {
    let t = Tree::fixtures();
    preview_py(&t);
    std::fs::remove_file(t.path().join("python/crlf.py")).unwrap();
    let j: ResolveResult = t.run(&["resolve", "apply", "--reason", "r", "--json"]).code(1).json();
    assert!(j.is_error);
    assert!(j.content.starts_with("Apply failed: 1 file changed since the preview: python/crlf.py"), "{}", j.content);
    assert_eq!(t.read("python/app.py"), Tree::fixtures().read("python/app.py"));
}

#[test]
fn stale_skip_writes_the_fresh_files_and_reports_the_rest_with_exit_3() {
    let t = Tree::fixtures();
    preview_py(&t);
    t.write("python/app.py", "# edited\nfetch_data(1)\n");
    let j: ResolveResult = t.run(&["resolve", "apply", "--reason", "r", "--extra", r#"{"stale":"skip"}"#, "--json"]).code(3).json();
    let rep = j.details.source_result_details.unwrap();
    assert_eq!(rep.status, "incomplete");
    assert_eq!(rep.files_touched, 2);
    assert_eq!(rep.outstanding.len(), 1);
    assert_eq!((rep.outstanding[0].path.as_str(), rep.outstanding[0].status.as_str()), ("python/app.py", "stale"));
    let stale = rep.files.iter().find(|f| f.path == "python/app.py").unwrap();
    assert_eq!(stale.status, "stale");
    assert_eq!(t.read("python/app.py"), "# edited\nfetch_data(1)\n", "stale file untouched");
    assert!(t.read("python/test_app.py").contains("load_data(\"a.txt\")"));
    assert!(j.content.contains("Incomplete: 1 file not applied"), "{}", j.content);
    assert!(pending(&t).is_empty());
}

#[test]
fn extra_files_applies_only_the_named_files() {
    let t = Tree::fixtures();
    preview_py(&t);
    let j: ResolveResult = t
        .run(&["resolve", "apply", "--reason", "r", "--extra", r#"{"files":["python/crlf.py"]}"#, "--json"])
        .code(3)
        .json();
    let rep = j.details.source_result_details.unwrap();
    assert_eq!(rep.files_touched, 1);
    assert_eq!(rep.outstanding.iter().map(|o| o.status.as_str()).collect::<Vec<_>>(), vec!["not_selected", "not_selected"]);
    assert_eq!(t.read_bytes("python/crlf.py"), b"def run():\r\n    return load_data(\"crlf.txt\")\r\n");
    assert_eq!(t.read("python/app.py"), Tree::fixtures().read("python/app.py"));
    // A path the action does not hold is refused, action kept.
    t.run(&["run", "-p", PAT, "-r", OUT, "-l", "py", "python"]).ok();
    let r = t.run(&["resolve", "apply", "--reason", "r", "--extra", r#"{"files":["nope.py"]}"#]).code(1);
    assert!(r.stderr.starts_with("Apply failed: extra.files names nope.py not in this action"), "{}", r.stderr);
    assert_eq!(pending(&t).len(), 1);
}

#[test]
fn failed_rename_midway_rolls_back_every_file() {
    let t = Tree::fixtures();
    preview_py(&t);
    let before = t.snapshot();
    for k in ["1", "2", "3"] {
        let r = t.run_env(&["resolve", "apply", "--reason", "r"], &[("AST_EDIT_FAIL_RENAME_AT", k)]).code(1);
        assert!(r.stderr.contains("injected rename failure"), "{}", r.stderr);
        assert!(r.stderr.contains("every file already written was restored"), "{}", r.stderr);
        assert_eq!(t.snapshot(), before, "rename {k} failed: every file keeps its original bytes");
        assert_eq!(pending(&t).len(), 1);
    }
    assert_eq!(journal_records(&t), Vec::<String>::new(), "rolled back: no undo record");
    // Without the fault the same action applies, and leaves one undo record.
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert!(temp_files(&t).is_empty());
    assert_eq!(journal_records(&t).len(), 1, "{:?}", journal_records(&t));
}

#[cfg(unix)]
#[test]
fn file_mode_is_kept_and_unchanged_files_are_never_written() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let t = Tree::fixtures();
    let app = t.path().join("python/app.py");
    std::fs::set_permissions(&app, std::fs::Permissions::from_mode(0o750)).unwrap();
    let ino = |rel: &str| std::fs::metadata(t.path().join(rel)).unwrap().ino();
    let untouched = ino("python/latin1.py");
    let go = ino("go/main.go");
    preview_py(&t);
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert_eq!(std::fs::metadata(&app).unwrap().permissions().mode() & 0o777, 0o750);
    assert_eq!(ino("python/latin1.py"), untouched);
    assert_eq!(ino("go/main.go"), go);
}

#[test]
fn crlf_file_stays_crlf_on_every_line_including_inserted_ones() {
    let t = Tree::empty();
    t.write("w.py", "a = 1\r\nfetch_data(1)\r\nb = 2\r\n");
    t.run(&["run", "-p", "fetch_data($A)", "-r", "if ok:\n    load_data($A)"]).ok();
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert_eq!(t.read_bytes("w.py"), b"a = 1\r\nif ok:\r\n    load_data(1)\r\nb = 2\r\n");
    let lf = Tree::empty();
    lf.write("w.py", "a = 1\nfetch_data(1)\n");
    lf.run(&["run", "-p", "fetch_data($A)", "-r", "if ok:\n    load_data($A)", "-U"]).ok();
    assert_eq!(lf.read_bytes("w.py"), b"a = 1\nif ok:\n    load_data(1)\n");
}

#[test]
fn utf8_bom_is_kept() {
    let t = Tree::empty();
    t.write("b.py", b"\xEF\xBB\xBFfetch_data(1)\n");
    t.run(&["run", "-p", "fetch_data($A)", "-r", "load_data($A)", "-U"]).ok();
    assert_eq!(t.read_bytes("b.py"), b"\xEF\xBB\xBFload_data(1)\n");
}

#[test]
fn non_utf8_binary_and_oversized_files_are_skipped_with_reasons_and_never_touched() {
    let t = Tree::empty();
    t.write("latin1.py", b"fetch_data('caf\xe9')\n");
    t.write("bin.py", b"fetch_data(1)\n\0\0\0");
    t.write("big.py", format!("fetch_data(1)\n{}", "x = 1\n".repeat(100)));
    t.write("ok.py", "fetch_data(1)\n");
    let before = t.snapshot();
    let p: Preview = t.run(&["run", "-p", "fetch_data($A)", "-r", "load_data($A)", "--max-filesize", "300", "--json"]).ok().json();
    let reasons: Vec<(&str, &str)> = p.skipped.iter().map(|s| (s.path.as_str(), s.reason.as_str())).collect();
    assert_eq!(reasons.len(), 3, "{reasons:?}");
    assert!(reasons[0].0 == "big.py" && reasons[0].1.starts_with("too large (614 bytes; the cap is 300 bytes"), "{reasons:?}");
    assert!(reasons[1].0 == "bin.py" && reasons[1].1.starts_with("binary file"), "{reasons:?}");
    assert!(reasons[2].0 == "latin1.py" && reasons[2].1.starts_with("not valid UTF-8"), "{reasons:?}");
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    let after = t.snapshot();
    for f in ["latin1.py", "bin.py", "big.py"] {
        assert_eq!(after[f], before[f], "{f} untouched");
    }
    assert_eq!(after["ok.py"], b"load_data(1)\n");
}

#[test]
fn rewrite_that_breaks_syntax_is_flagged_and_refused_unless_allowed() {
    let t = Tree::empty();
    t.write("s.py", "fetch_data(1)\n");
    t.write("fine.py", "x = 1\n");
    let p: Preview = t.run(&["run", "-p", "fetch_data($A)", "-r", "load_data($A", "--json"]).ok().json();
    assert!(p.files[0].syntax_errors_introduced);
    assert!(p.warnings.iter().any(|w| w.starts_with("s.py: the rewrite introduces syntax errors")), "{:?}", p.warnings);
    let r = t.run(&["resolve", "apply", "--reason", "r"]).code(1);
    assert!(r.stderr.starts_with("Apply failed: the rewrite introduces syntax errors in 1 file: s.py"), "{}", r.stderr);
    assert_eq!(t.read("s.py"), "fetch_data(1)\n");
    t.run(&["resolve", "apply", "--reason", "r", "--extra", r#"{"allowSyntaxErrors":true}"#]).ok();
    assert_eq!(t.read("s.py"), "load_data(1\n");
}

#[test]
fn undo_restores_only_files_that_still_hold_what_apply_wrote() {
    let t = Tree::fixtures();
    preview_py(&t);
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    t.write("python/app.py", "# changed after the apply\n");
    let u: UndoResult = t.run(&["undo", "--json"]).code(3).json();
    let rep = u.details.unwrap();
    assert_eq!(rep.status, "incomplete");
    assert_eq!(rep.restored, vec!["python/crlf.py", "python/test_app.py"]);
    assert_eq!(rep.outstanding[0].path, "python/app.py");
    assert_eq!(t.read("python/app.py"), "# changed after the apply\n", "left alone");
    let orig = Tree::fixtures();
    assert_eq!(t.read_bytes("python/crlf.py"), orig.read_bytes("python/crlf.py"));
    assert_eq!(t.read("python/test_app.py"), orig.read("python/test_app.py"));
}

#[test]
fn undo_twice_restores_the_action_before_that() {
    let t = Tree::fixtures();
    let orig = t.snapshot();
    t.run(&["run", "-p", PAT, "-r", OUT, "-l", "py", "-U"]).ok();
    let after_first = t.snapshot();
    t.run(&["run", "-p", "load_data($$$A)", "-r", "read_data($$$A)", "-l", "py", "-U"]).ok();
    assert!(t.read("python/app.py").contains("read_data("));
    t.run(&["undo"]).ok();
    assert_eq!(t.snapshot(), after_first);
    t.run(&["undo"]).ok();
    assert_eq!(t.snapshot(), orig);
    let r = t.run(&["undo"]).code(1);
    assert!(r.stderr.contains("Nothing to undo"), "{}", r.stderr);
}

#[test]
fn two_concurrent_resolves_apply_the_action_exactly_once() {
    for _ in 0..3 {
        let t = Tree::fixtures();
        preview_py(&t);
        let spawn = || {
            let mut c = t.command(&["resolve", "apply", "--reason", "race"]);
            c.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
            c.spawn().unwrap()
        };
        let (a, b) = (spawn(), spawn());
        let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
        let mut codes = vec![a.status.code().unwrap(), b.status.code().unwrap()];
        codes.sort();
        assert_eq!(codes, vec![0, 1]);
        let loser = if a.status.success() { &b } else { &a };
        assert_eq!(String::from_utf8_lossy(&loser.stderr), "No pending action to resolve. Nothing to apply or discard.\n");
        assert!(t.read("python/app.py").contains("load_data(os.path.join"));
        // Exactly one journal entry: one undo restores, the next has nothing.
        t.run(&["undo"]).ok();
        assert_eq!(t.snapshot(), Tree::fixtures().snapshot());
        t.run(&["undo"]).code(1);
    }
}

#[test]
fn previews_running_while_an_apply_writes_keep_the_store_readable() {
    let t = Tree::fixtures();
    for _ in 0..4 {
        preview_py(&t);
    }
    let mut children = Vec::new();
    for i in 0..8 {
        let args: Vec<&str> = if i % 2 == 0 {
            vec!["resolve", "discard", "--reason", "r"]
        } else {
            vec!["run", "-p", "self.assertEquals($A, $B)", "-r", "self.assertEqual($A, $B)", "-l", "py", "--json"]
        };
        let mut c = t.command(&args);
        c.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
        children.push(c.spawn().unwrap());
    }
    for mut c in children {
        c.wait().unwrap();
    }
    // 4 staged + 4 more - 4 discarded.
    assert_eq!(pending(&t).len(), 4);
}

#[cfg(unix)]
#[test]
fn apply_killed_halfway_leaves_whole_files_and_the_next_run_cleans_up() {
    use std::io::BufRead;
    let t = Tree::fixtures();
    preview_py(&t);
    let orig = Tree::fixtures();
    let mut c = t.command(&["resolve", "apply", "--reason", "r"]);
    c.env("AST_EDIT_PAUSE_AFTER_RENAME", "1").stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert_eq!(line, "paused after rename 1\n");
    assert_eq!(temp_files(&t).len(), 2, "two files still staged when killed");
    child.kill().unwrap();
    child.wait().unwrap();
    // Every file is whole: either the original or the planned new text.
    for f in ["python/app.py", "python/crlf.py", "python/test_app.py"] {
        let now = t.read_bytes(f);
        assert!(now == orig.read_bytes(f) || String::from_utf8_lossy(&now).contains("load_data("), "{f} is half-written");
    }
    assert_eq!(t.read("python/app.py"), orig.read("python/app.py").replace("fetch_data(os", "load_data(os").replace("more = fetch_data(\n        \"other.txt\",\n        retries=5,\n    )", "more = load_data(\"other.txt\",\n    retries=5,)"));
    let r = t.run(&["pending"]).ok();
    assert!(r.stderr.contains("was interrupted: 1 of 3 files written (python/app.py), 2 leftover temp files removed"), "{}", r.stderr);
    assert!(temp_files(&t).is_empty());
    // Undo puts the one written file back.
    t.run(&["undo"]).ok();
    assert_eq!(t.snapshot(), orig.snapshot());
}
