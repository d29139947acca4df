//! Apply you can trust: each test is named after the failure it pins (the ones users
//! of agent edit tools and codemods report; docs/DESIGN.md section 4 is the protocol
//! they check) and asserts the bytes on disk.

use crate::common::Tree;
use crate::common::json::{Preview, ResolveResult, UndoResult};
use crate::common::store::pending;

const PAT: &str = "fetch_data($$$A)";
const OUT: &str = "load_data($$$A)";

/// Preview of the fetch_data rename on python/: 3 files (app.py, crlf.py, test_app.py).
fn preview_py(t: &Tree) -> Preview {
    let p: Preview = t.run(&["run", "-p", PAT, "-r", OUT, "-l", "py", "python", "--json"]).ok().json();
    assert_eq!(p.files_touched, 3);
    p
}

/// Folders of undo records in the state dir (any depth), named by their leaf.
fn journal_records(t: &Tree) -> Vec<String> {
    journal_record_dirs(t).iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect()
}

/// The undo records' folders: any folder in a `journal` folder of the state dir.
fn journal_record_dirs(t: &Tree) -> Vec<std::path::PathBuf> {
    fn walk(d: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                if p.parent().and_then(|q| q.file_name()).is_some_and(|n| n == "journal") {
                    out.push(p.clone());
                }
                walk(&p, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(t.state.path(), &mut out);
    out.sort();
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
    assert!(r.stderr.starts_with("Apply failed: 1 file changed since the preview: python/app.py."), "{}", r.stderr);
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
    let j: ResolveResult = t.run(&["resolve", "apply", "--reason", "r", "--extra", r#"{"files":["python/crlf.py"]}"#, "--json"]).code(3).json();
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
#[cfg_attr(not(feature = "fault-injection"), ignore = "injects a fault: run with --features fault-injection")]
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
    let p: Preview = t.run(&["run", "-p", "fetch_data($A)", "-r", "load_data($A)", "--max-filesize", "300", "--json"]).limited().json();
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
    assert!(
        r.stderr.starts_with(
            "Apply failed: nothing was written: apply refuses the only file selected, whose rewrite is flagged:\n  s.py: the rewrite introduces syntax errors\nTo write these too, run `ast-edit resolve apply --extra '{\"allowSyntaxErrors\":true}'` (with -U: `--allow-flagged`). Or fix the pattern or the rewrite and preview again.\n"
        ),
        "{}",
        r.stderr
    );
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

/// A file undo cannot write back (a full disk, a folder that refuses writes)
/// keeps the undo record, originals and all: the next undo puts it back. It
/// used to delete the record and answer "Nothing to undo" after.
#[test]
#[cfg_attr(not(feature = "fault-injection"), ignore = "injects a fault: run with --features fault-injection")]
fn a_failed_undo_keeps_its_record_and_the_next_undo_puts_the_file_back() {
    let t = Tree::fixtures();
    let orig = t.snapshot();
    preview_py(&t);
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    let applied = t.snapshot();
    assert_eq!(journal_records(&t).len(), 1);
    let r = t.run_env(&["undo"], &[("AST_EDIT_FAIL_RESTORE_AT", "2")]).code(3);
    assert!(r.stdout.contains("failed   python/crlf.py: injected restore failure"), "{}", r.stdout);
    assert!(r.stdout.contains("\nThe undo record is kept, originals and all: undo again once these files can be written."), "{}", r.stdout);
    assert_eq!(t.read_bytes("python/crlf.py"), applied.get("python/crlf.py").unwrap().as_slice(), "not written back");
    assert_eq!(journal_records(&t).len(), 1, "the record is kept");
    let r = t.run(&["undo"]).ok();
    assert!(r.stdout.contains("restored 1 file; 2 files already held their original bytes"), "{}", r.stdout);
    assert_eq!(t.snapshot(), orig, "every file holds its original bytes");
    assert_eq!(journal_records(&t), Vec::<String>::new());
    let r = t.run(&["undo"]).code(1);
    assert!(r.stderr.contains("Nothing to undo"), "{}", r.stderr);
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
        // The loser may wait on the winner's lock long enough (200 ms, on a
        // slow machine) to say so first; that line is documented output.
        let stderr = String::from_utf8_lossy(&loser.stderr);
        let stderr = stderr.strip_prefix("waiting for another ast-edit process (pending-action store locked)...\n").unwrap_or(&stderr);
        assert_eq!(stderr, "No pending action to resolve. Nothing to apply or discard.\n");
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
    // Eight different previews (a preview identical to one pending in the same
    // session is not staged again).
    let rewrite = |i: usize| format!("self.assertEqual($A, $B, {i})");
    for i in 0..4 {
        t.run(&["run", "-p", "self.assertEquals($A, $B)", "-r", &rewrite(i), "-l", "py", "--json"]).ok();
    }
    let mut children = Vec::new();
    for i in 0..8 {
        let out = rewrite(4 + i);
        let args: Vec<&str> = if i % 2 == 0 {
            vec!["resolve", "discard", "--reason", "r"]
        } else {
            vec!["run", "-p", "self.assertEquals($A, $B)", "-r", &out, "-l", "py", "--json"]
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
#[cfg_attr(not(feature = "fault-injection"), ignore = "injects a fault: run with --features fault-injection")]
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
    // The minimal rewrite (docs/DESIGN.md section 2.5.9) keeps the call's lines.
    assert_eq!(t.read("python/app.py"), orig.read("python/app.py").replace("fetch_data(os", "load_data(os").replace("more = fetch_data(", "more = load_data("));
    let r = t.run(&["pending"]).ok();
    assert!(r.stderr.contains("was interrupted: 1 of 3 files written (python/app.py), 2 leftover temp files removed"), "{}", r.stderr);
    assert!(temp_files(&t).is_empty());
    // Undo puts the one written file back.
    t.run(&["undo"]).ok();
    assert_eq!(t.snapshot(), orig.snapshot());
}

#[cfg(unix)]
fn mode_of(t: &Tree, rel: &str) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(t.path().join(rel)).unwrap().permissions().mode() & 0o7777
}

#[cfg(unix)]
fn set_mode(t: &Tree, rel: &str, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(t.path().join(rel), std::fs::Permissions::from_mode(mode)).unwrap();
}

#[cfg(target_os = "linux")]
fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

#[cfg(unix)]
#[test]
#[cfg_attr(not(feature = "fault-injection"), ignore = "injects a fault: run with --features fault-injection")]
fn failed_rename_rollback_and_undo_put_back_each_file_with_its_mode() {
    let t = Tree::fixtures();
    set_mode(&t, "python/app.py", 0o755);
    set_mode(&t, "python/crlf.py", 0o640);
    set_mode(&t, "python/test_app.py", 0o604);
    let modes = |t: &Tree| [mode_of(t, "python/app.py"), mode_of(t, "python/crlf.py"), mode_of(t, "python/test_app.py")];
    preview_py(&t);
    for k in ["2", "3"] {
        let r = t.run_env(&["resolve", "apply", "--reason", "r"], &[("AST_EDIT_FAIL_RENAME_AT", k)]).code(1);
        assert!(r.stderr.contains("every file already written was restored, nothing changed"), "{}", r.stderr);
        assert_eq!(modes(&t), [0o755, 0o640, 0o604], "rename {k} failed: the files put back keep their modes");
    }
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert_eq!(modes(&t), [0o755, 0o640, 0o604], "applied");
    t.run(&["undo"]).ok();
    assert_eq!(t.snapshot(), Tree::fixtures().snapshot());
    assert_eq!(modes(&t), [0o755, 0o640, 0o604], "undone");
}

/// Flips one byte of `rel`'s saved original in the newest undo record.
fn corrupt_journal_copy(t: &Tree, rel: &str) {
    let dir = journal_record_dirs(t).pop().expect("an undo record");
    let rec: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("record.json")).unwrap()).unwrap();
    let f = rec["files"].as_array().unwrap().iter().find(|f| f["path"] == rel).expect("the file is in the record");
    let at = f["offset"].as_u64().unwrap() as usize + 10;
    let p = dir.join("originals.bin");
    let mut bytes = std::fs::read(&p).unwrap();
    bytes[at] ^= 0x20;
    std::fs::write(&p, bytes).unwrap();
}

#[test]
fn undo_refuses_a_file_whose_journal_copy_is_corrupted() {
    let t = Tree::fixtures();
    preview_py(&t);
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    let applied = t.read_bytes("python/app.py");
    corrupt_journal_copy(&t, "python/app.py");
    let u: UndoResult = t.run(&["undo", "--json"]).code(3).json();
    let rep = u.details.unwrap();
    assert_eq!(rep.status, "incomplete");
    assert_eq!(rep.restored, vec!["python/crlf.py", "python/test_app.py"]);
    assert_eq!(rep.outstanding.len(), 1);
    let o = &rep.outstanding[0];
    assert_eq!((o.path.as_str(), o.status.as_str()), ("python/app.py", "failed"));
    assert_eq!(o.reason, "the undo journal's copy of this file is corrupted (digest mismatch); left as it is");
    assert!(u.content.contains("failed   python/app.py: the undo journal's copy of this file is corrupted"), "{}", u.content);
    assert_eq!(t.read_bytes("python/app.py"), applied, "the applied bytes stay");
    let orig = Tree::fixtures();
    assert_eq!(t.read_bytes("python/crlf.py"), orig.read_bytes("python/crlf.py"));
}

/// Runs `c` to its end and returns its exit code, its stderr and its peak RSS in
/// KiB (`ru_maxrss` of getrusage(RUSAGE_CHILDREN)), taken in a small python3
/// parent whose only child it is. Measured from this process, the figure would
/// be useless: Linux starts a child's `ru_maxrss` at the peak of the process that
/// spawned it, and this test process, running the other tests in parallel, peaks
/// far above an ast-edit run.
#[cfg(target_os = "linux")]
fn run_measured(c: std::process::Command) -> (i32, String, i64) {
    const PARENT: &str = "import resource, subprocess, sys\n\
        r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n\
        print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)";
    let mut p = std::process::Command::new("python3");
    p.arg("-c").arg(PARENT).arg(c.get_program()).args(c.get_args());
    for (k, v) in c.get_envs() {
        match v {
            Some(v) => p.env(k, v),
            None => p.env_remove(k),
        };
    }
    p.current_dir(c.get_current_dir().expect("the tree's command sets its folder"));
    let o = p.output().expect("python3 runs");
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let nums: Vec<i64> = out.split_whitespace().map(|n| n.parse().unwrap()).collect();
    assert!(o.status.success() && nums.len() == 2, "{out}\n{err}");
    (nums[0] as i32, err, nums[1])
}

#[cfg(target_os = "linux")]
#[test]
fn stale_check_of_a_grown_file_compares_sizes_before_reading_it() {
    const GROWN: u64 = 64 << 20;
    // Baseline: the same stale apply, where the file changed but stayed small.
    let small = Tree::fixtures();
    preview_py(&small);
    small.write("python/app.py", "# changed\n");
    let (code, err, baseline) = run_measured(small.command(&["resolve", "apply", "--reason", "r"]));
    assert_eq!(code, 1, "{err}");
    let t = Tree::fixtures();
    preview_py(&t);
    let before = t.snapshot();
    let f = std::fs::OpenOptions::new().write(true).open(t.path().join("python/app.py")).unwrap();
    f.set_len(GROWN).unwrap(); // sparse: costs no disk, but 64 MB to whoever reads it
    drop(f);
    let (code, err, grown) = run_measured(t.command(&["resolve", "apply", "--reason", "r"]));
    assert_eq!(code, 1, "{err}");
    assert!(err.starts_with("Apply failed: 1 file changed since the preview: python/app.py."), "{err}");
    assert!(grown < baseline + (48 << 10), "peak RSS {grown} KiB against {baseline} KiB for a small stale file: the grown file was read");
    assert_eq!(std::fs::metadata(t.path().join("python/app.py")).unwrap().len(), GROWN, "left alone");
    let after = t.snapshot();
    assert_eq!(after["python/crlf.py"], before["python/crlf.py"]);
    assert_eq!(after["python/test_app.py"], before["python/test_app.py"]);
}

#[cfg(target_os = "linux")]
#[test]
#[cfg_attr(not(feature = "fault-injection"), ignore = "injects a fault: run with --features fault-injection")]
#[cfg_attr(not(root), ignore = "changing a file's owner needs root (the tests were built as another user)")]
fn owner_and_group_are_kept_by_apply_rollback_and_undo() {
    use std::os::unix::fs::MetadataExt;
    assert!(is_root(), "built as root (cfg(root)) but run as another user: changing a file's owner needs root");
    let t = Tree::fixtures();
    let owner = |rel: &str| {
        let m = std::fs::metadata(t.path().join(rel)).unwrap();
        (m.uid(), m.gid())
    };
    std::os::unix::fs::chown(t.path().join("python/app.py"), Some(1234), Some(1234)).unwrap();
    std::os::unix::fs::chown(t.path().join("python/crlf.py"), Some(1235), Some(1236)).unwrap();
    preview_py(&t);
    // Rolled back after the third rename failed: both files were written, then put back.
    t.run_env(&["resolve", "apply", "--reason", "r"], &[("AST_EDIT_FAIL_RENAME_AT", "3")]).code(1);
    assert_eq!([owner("python/app.py"), owner("python/crlf.py")], [(1234, 1234), (1235, 1236)], "after the rollback");
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert!(t.read("python/app.py").contains("load_data("));
    assert_eq!([owner("python/app.py"), owner("python/crlf.py")], [(1234, 1234), (1235, 1236)], "after the apply");
    t.run(&["undo"]).ok();
    assert_eq!(t.snapshot(), Tree::fixtures().snapshot());
    assert_eq!([owner("python/app.py"), owner("python/crlf.py")], [(1234, 1234), (1235, 1236)], "after the undo");
}

/// Gives `p` and everything under it to `uid`.
#[cfg(target_os = "linux")]
fn chown_tree(p: &std::path::Path, uid: u32) {
    std::os::unix::fs::lchown(p, Some(uid), Some(uid)).unwrap();
    if p.is_dir() {
        for e in std::fs::read_dir(p).unwrap() {
            chown_tree(&e.unwrap().path(), uid);
        }
    }
}

#[cfg(target_os = "linux")]
#[test]
#[cfg_attr(not(root), ignore = "running as another user needs root (the tests were built as another user)")]
fn file_owned_by_another_user_is_refused_when_its_owner_cannot_be_kept() {
    use std::os::unix::fs::MetadataExt;
    use std::os::unix::process::CommandExt;
    assert!(is_root(), "built as root (cfg(root)) but run as another user: running as another user needs root");
    // The tree and the store belong to uid 1234, who runs ast-edit; app.py belongs
    // to uid 4321 (readable by all, in a folder 1234 may write: a rename would
    // silently make it 1234's).
    let t = Tree::fixtures();
    chown_tree(t.path(), 1234);
    chown_tree(t.state.path(), 1234);
    std::os::unix::fs::chown(t.path().join("python/app.py"), Some(4321), Some(4321)).unwrap();
    let as_user = |args: &[&str]| {
        let mut c = t.command(args);
        c.uid(1234).gid(1234);
        let o = c.output().unwrap();
        (o.status.code().unwrap(), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
    };
    let mut probe = t.command(&["--version"]);
    if !probe.uid(1234).gid(1234).output().is_ok_and(|o| o.status.success()) {
        eprintln!("skipping: uid 1234 cannot run the binary here (a target dir in a private folder?)");
        return;
    }
    let (code, _, err) = as_user(&["run", "-p", PAT, "-r", OUT, "-l", "py", "python"]);
    assert_eq!(code, 0, "{err}");
    let before = t.snapshot();
    let (code, _, err) = as_user(&["resolve", "apply", "--reason", "r"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.starts_with("Apply failed: 1 file cannot be written safely: python/app.py (owned by uid 4321, gid 4321"), "{err}");
    assert_eq!(t.snapshot(), before, "nothing written");
    assert!(temp_files(&t).is_empty(), "{:?}", temp_files(&t));
    // With stale: skip the other files are written; app.py is outstanding, untouched.
    let (code, out, err) = as_user(&["resolve", "apply", "--reason", "r", "--extra", r#"{"stale":"skip"}"#, "--json"]);
    assert_eq!(code, 3, "{err}");
    let j: ResolveResult = serde_json::from_str(&out).unwrap();
    let rep = j.details.source_result_details.unwrap();
    assert_eq!(rep.files_touched, 2);
    let o = &rep.outstanding[0];
    assert_eq!((o.path.as_str(), o.status.as_str()), ("python/app.py", "failed"));
    assert!(o.reason.contains("writing it would make it yours"), "{}", o.reason);
    assert_eq!(t.read_bytes("python/app.py"), before["python/app.py"]);
    let m = std::fs::metadata(t.path().join("python/app.py")).unwrap();
    assert_eq!((m.uid(), m.gid()), (4321, 4321));
    assert!(t.read("python/crlf.py").contains("load_data("));
}

#[cfg(unix)]
#[test]
fn file_with_hard_links_is_refused_so_its_links_are_not_broken() {
    use std::os::unix::fs::MetadataExt;
    let t = Tree::fixtures();
    // A second name for app.py, outside the walk (no known extension).
    std::fs::hard_link(t.path().join("python/app.py"), t.path().join("app.py.bak")).unwrap();
    preview_py(&t);
    let before = t.snapshot();
    let r = t.run(&["resolve", "apply", "--reason", "r"]).code(1);
    assert!(
        r.stderr.starts_with("Apply failed: 1 file cannot be written safely: python/app.py (has 2 hard links: writing it would break them"),
        "{}",
        r.stderr
    );
    assert_eq!(t.snapshot(), before, "nothing written");
    assert_eq!(pending(&t).len(), 1, "action kept");
    let j: ResolveResult = t.run(&["resolve", "apply", "--reason", "r", "--extra", r#"{"stale":"skip"}"#, "--json"]).code(3).json();
    let rep = j.details.source_result_details.unwrap();
    assert_eq!(rep.files_touched, 2);
    let f = rep.files.iter().find(|f| f.path == "python/app.py").unwrap();
    assert_eq!(f.status, "failed");
    assert_eq!(rep.outstanding.len(), 1);
    assert_eq!((rep.outstanding[0].path.as_str(), rep.outstanding[0].status.as_str()), ("python/app.py", "failed"));
    assert!(rep.outstanding[0].reason.starts_with("has 2 hard links"), "{}", rep.outstanding[0].reason);
    let ino = |rel: &str| std::fs::metadata(t.path().join(rel)).unwrap().ino();
    assert_eq!(ino("python/app.py"), ino("app.py.bak"), "still one file under two names");
    assert_eq!(t.read_bytes("python/app.py"), before["python/app.py"]);
    assert!(t.read("python/crlf.py").contains("load_data("));
    // Undo refuses the same way: crlf.py got a second name since the apply.
    std::fs::hard_link(t.path().join("python/crlf.py"), t.path().join("crlf.py.bak")).unwrap();
    let u: UndoResult = t.run(&["undo", "--json"]).code(3).json();
    let rep = u.details.unwrap();
    assert_eq!(rep.restored, vec!["python/test_app.py"]);
    assert_eq!((rep.outstanding[0].path.as_str(), rep.outstanding[0].status.as_str()), ("python/crlf.py", "failed"));
    assert!(rep.outstanding[0].reason.starts_with("has 2 hard links: restoring it would break them"), "{}", rep.outstanding[0].reason);
    assert_eq!(ino("python/crlf.py"), ino("crlf.py.bak"));
    assert!(t.read("python/crlf.py").contains("load_data("), "left as it is");
}

#[cfg(unix)]
#[test]
fn file_swapped_for_a_symlink_after_the_preview_is_stale() {
    let t = Tree::fixtures();
    preview_py(&t);
    // Same bytes, but now through a link to a file outside the walk.
    std::fs::copy(t.path().join("python/app.py"), t.path().join("elsewhere.txt")).unwrap();
    std::fs::remove_file(t.path().join("python/app.py")).unwrap();
    std::os::unix::fs::symlink("../elsewhere.txt", t.path().join("python/app.py")).unwrap();
    let before = t.snapshot();
    let r = t.run(&["resolve", "apply", "--reason", "r"]).code(1);
    assert!(r.stderr.starts_with("Apply failed: 1 file changed since the preview: python/app.py (now a symbolic link"), "{}", r.stderr);
    assert_eq!(t.snapshot(), before, "nothing written");
    assert!(std::fs::symlink_metadata(t.path().join("python/app.py")).unwrap().file_type().is_symlink(), "still a link");
    let j: ResolveResult = t.run(&["resolve", "apply", "--reason", "r", "--extra", r#"{"stale":"skip"}"#, "--json"]).code(3).json();
    let rep = j.details.source_result_details.unwrap();
    assert_eq!((rep.outstanding[0].path.as_str(), rep.outstanding[0].status.as_str()), ("python/app.py", "stale"));
    assert!(rep.outstanding[0].reason.starts_with("now a symbolic link"), "{}", rep.outstanding[0].reason);
    assert!(std::fs::symlink_metadata(t.path().join("python/app.py")).unwrap().file_type().is_symlink(), "still a link");
    assert_eq!(t.read_bytes("elsewhere.txt"), before["elsewhere.txt"]);
}

#[cfg(unix)]
#[test]
#[cfg_attr(not(feature = "fault-injection"), ignore = "injects a fault: run with --features fault-injection")]
fn interrupted_apply_of_many_files_lists_ten_and_undo_counts_only_files_put_back() {
    use std::io::BufRead;
    let t = Tree::empty();
    for i in 1..=15 {
        t.write(&format!("f{i:02}.py"), format!("fetch_data({i})\n"));
    }
    let orig = t.snapshot();
    t.run(&["run", "-p", "fetch_data($A)", "-r", "load_data($A)"]).ok();
    let mut c = t.command(&["resolve", "apply", "--reason", "r"]);
    c.env("AST_EDIT_PAUSE_AFTER_RENAME", "12").stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert_eq!(line, "paused after rename 12\n");
    child.kill().unwrap();
    child.wait().unwrap();
    let r = t.run(&["pending"]).ok();
    let listed: Vec<String> = (1..=10).map(|i| format!("f{i:02}.py")).collect();
    let expected = format!("was interrupted: 12 of 15 files written ({} and 2 more), 3 leftover temp files removed", listed.join(", "));
    assert!(r.stderr.contains(&expected), "{}", r.stderr);
    let u: UndoResult = t.run(&["undo", "--json"]).ok().json();
    let rep = u.details.unwrap();
    assert_eq!(rep.status, "restored");
    assert_eq!(rep.restored.len(), 15, "every file holds its original bytes");
    let first = u.content.lines().next().unwrap();
    assert!(
        first.ends_with(": restored 12 files; 3 files already held their original bytes (never written, or put back since) and were left as they are."),
        "{}",
        u.content
    );
    assert_eq!(u.content.lines().filter(|l| l.starts_with("  restored ")).count(), 12, "{}", u.content);
    assert!(!u.content.contains("f13.py"), "{}", u.content);
    assert_eq!(t.snapshot(), orig);
}
