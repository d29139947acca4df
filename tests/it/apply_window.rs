//! Another process writing a file while an apply runs, between the file's stale
//! check and its rename: the apply must not overwrite what it wrote (the lost
//! update), and says so. Apply opens each file just before its rename, holds it
//! across the rename and reads it again after it (docs/DESIGN.md section 4.3).
//! Each test pauses the apply at a rename (`AST_EDIT_PAUSE_BEFORE_RENAME` or
//! `_AFTER_RENAME`, the `fault-injection` feature), writes the file as another
//! process would, and lets the apply go on (`AST_EDIT_RESUME_FILE`).

#![cfg(unix)]

use std::io::{BufRead, Write};

use crate::common::Tree;

const PAT: &str = "fetch_data($$$A)";
const OUT: &str = "load_data($$$A)";
/// The first file the apply renames (path order), and the others.
const FIRST: &str = "python/app.py";
const OTHERS: [&str; 2] = ["python/crlf.py", "python/test_app.py"];

/// How another process writes the first file while the apply is paused.
#[derive(Debug)]
enum By {
    /// Appends a line in place (`>>`), before the rename.
    Append,
    /// Overwrites its first bytes in place, same size, before the rename.
    SameSize,
    /// Saves a new file over it by rename (as editors do), before the rename.
    Replace,
    /// Appends through a descriptor it opened before the apply began, after the
    /// rename: the bytes land in the old file, which no longer has the name.
    HeldOpen,
}

/// Starts ast-edit `args` in `t` with `env` (a pause of the `fault-injection`
/// feature), waits until it says it paused (`at`, its first line on stderr),
/// and gives the child, the rest of its stderr and that line.
fn paused(t: &Tree, args: &[&str], env: &[(&str, &str)], at: &str) -> (std::process::Child, std::io::BufReader<std::process::ChildStderr>, String) {
    let mut c = t.command(args);
    c.envs(env.iter().copied()).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert_eq!(line, at);
    (child, err, line)
}

/// Previews the fetch_data rename over python/ (3 files), applies it paused at
/// the first file's rename, writes that file as `how` says, lets the apply
/// finish; returns the run's exit code, stdout and stderr.
fn apply_with(t: &Tree, how: &By) -> (i32, String, String) {
    t.run(&["run", "-p", PAT, "-r", OUT, "-l", "py", "python", "--json"]).ok();
    let resume = t.path().join("resume");
    let path = t.path().join(FIRST);
    let mut held = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
    let (pause, at) = match how {
        By::HeldOpen => ("AST_EDIT_PAUSE_AFTER_RENAME", "paused after rename 1\n"),
        _ => ("AST_EDIT_PAUSE_BEFORE_RENAME", "paused before rename 1\n"),
    };
    let (child, mut err, line) = paused(t, &["resolve", "apply", "--reason", "r"], &[(pause, "1"), ("AST_EDIT_RESUME_FILE", resume.to_str().unwrap())], at);
    match how {
        By::Append | By::HeldOpen => held.write_all(b"# written by another process\n").unwrap(),
        By::SameSize => {
            use std::os::unix::fs::FileExt;
            std::fs::OpenOptions::new().write(true).open(&path).unwrap().write_all_at(b"#", 0).unwrap();
        }
        By::Replace => {
            let new = t.path().join("python/.app.py.swp");
            std::fs::write(&new, "# saved by an editor\n").unwrap();
            std::fs::rename(&new, &path).unwrap();
        }
    }
    drop(held);
    std::fs::write(&resume, "").unwrap();
    let out = child.wait_with_output().unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut err, &mut rest).unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), line + &rest)
}

#[test]
#[cfg_attr(not(feature = "fault-injection"), ignore = "injects a fault: run with --features fault-injection")]
fn a_file_written_during_the_apply_is_left_as_written_reported_and_not_undone() {
    for how in [By::Append, By::SameSize, By::Replace, By::HeldOpen] {
        let t = Tree::fixtures();
        let orig = Tree::fixtures();
        let (code, stdout, stderr) = apply_with(&t, &how);
        let theirs = match how {
            By::Append | By::HeldOpen => format!("{}# written by another process\n", orig.read(FIRST)),
            By::SameSize => format!("#{}", &orig.read(FIRST)[1..]),
            By::Replace => "# saved by an editor\n".to_string(),
        };
        let what = format!("{how:?}");
        assert_eq!(t.read(FIRST), theirs, "{what}: the other process's bytes are kept");
        assert_eq!(code, 3, "{what}: incomplete\n{stdout}{stderr}");
        assert!(
            stdout.contains("stale    python/app.py: changed by another process during the apply: left as that process wrote it, not rewritten"),
            "{what}: {stdout}{stderr}"
        );
        for f in OTHERS {
            assert!(t.read(f).contains("load_data("), "{what}: {f} applied");
        }
        assert!(t.snapshot().keys().all(|k| !k.contains(".ast-edit-")), "{what}: no temp file left");
        // Undo puts back the files the apply wrote, and leaves the other one.
        let u = t.run(&["undo"]).ok();
        assert!(u.stdout.contains("restored 2 files"), "{what}: {}", u.stdout);
        assert_eq!(t.read(FIRST), theirs, "{what}: undo leaves it");
        for f in OTHERS {
            assert_eq!(t.read(f), orig.read(f), "{what}: {f} put back");
        }
    }
}

/// An apply killed (SIGKILL) while it stages its files, before any rename:
/// the temp files it staged beside the sources are removed by the next run
/// that opens the store, which says so; nothing was written, nothing to undo.
#[test]
#[cfg_attr(not(feature = "fault-injection"), ignore = "injects a fault: run with --features fault-injection")]
fn an_apply_killed_while_staging_leaves_no_temp_file_after_the_next_run() {
    let t = Tree::fixtures();
    let orig = Tree::fixtures();
    t.run(&["run", "-p", PAT, "-r", OUT, "-l", "py", "python", "--json"]).ok();
    let (mut child, _err, _) = paused(&t, &["resolve", "apply", "--reason", "r"], &[("AST_EDIT_PAUSE_AFTER_STAGE", "1")], "paused after stage 1\n");
    let temps = || t.snapshot().into_keys().filter(|k| k.contains(".ast-edit-")).collect::<Vec<_>>();
    assert!(!temps().is_empty(), "a staged file is beside its source");
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!temps().is_empty(), "the kill leaves it");
    let r = t.run(&["pending"]).ok();
    assert!(r.stderr.contains("an earlier apply was stopped while it staged its files, before it wrote any: "), "{}", r.stderr);
    assert!(temps().is_empty(), "removed: {:?}", temps());
    assert_eq!(t.snapshot(), orig.snapshot(), "nothing written");
    // The action is still pending, and applies.
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert!(t.read(FIRST).contains("load_data("));
    assert!(temps().is_empty());
    // Only that apply is undone.
    let u = t.run(&["undo"]).ok();
    assert!(u.stdout.contains("restored 3 files"), "{}", u.stdout);
    assert_eq!(t.snapshot(), orig.snapshot());
}

/// The same window in `undo`: a file written in place between the check that
/// it holds what the apply wrote and its original's rename over it keeps what
/// the other process wrote, the undo says so (exit 3) and keeps its record; the
/// other files are put back, and the next undo leaves that file alone.
#[test]
#[cfg_attr(not(feature = "fault-injection"), ignore = "injects a fault: run with --features fault-injection")]
fn a_file_written_during_the_undo_is_left_as_written_and_reported() {
    let t = Tree::fixtures();
    let orig = Tree::fixtures();
    t.run(&["run", "-p", PAT, "-r", OUT, "-l", "py", "python", "--json"]).ok();
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    let applied = t.read(FIRST);
    let resume = t.path().join("resume");
    let env = [("AST_EDIT_PAUSE_BEFORE_RESTORE", "1"), ("AST_EDIT_PAUSE_MS", "5000"), ("AST_EDIT_RESUME_FILE", resume.to_str().unwrap())];
    let (child, _err, _) = paused(&t, &["undo"], &env, "paused before restore 1\n");
    // The first file restored is the first in path order.
    std::fs::OpenOptions::new().append(true).open(t.path().join(FIRST)).unwrap().write_all(b"# written by another process\n").unwrap();
    std::fs::write(&resume, "").unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert!(stdout.contains("python/app.py: changed by another process during the undo: left as that process wrote it"), "{stdout}");
    assert_eq!(t.read(FIRST), format!("{applied}# written by another process\n"), "its bytes are kept");
    for f in OTHERS {
        assert_eq!(t.read(f), orig.read(f), "{f} put back");
    }
    // The next undo leaves it alone and ends the record.
    let again = t.run(&["undo"]);
    assert!(again.stdout.contains("python/app.py: changed since the apply; left alone"), "{}", again.stdout);
    assert_eq!(t.read(FIRST), format!("{applied}# written by another process\n"));
    assert!(t.run(&["undo"]).stdout.contains("Nothing to undo") || t.run(&["undo"]).stderr.contains("Nothing to undo"));
}
