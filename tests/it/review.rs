//! Interactive review (`run -i`, `scan -i`) driven through a real pseudo-terminal:
//! per file the diff and a question; only the accepted files are written.

#![cfg(unix)]

use crate::common::Tree;
use rexpect::session::spawn_command;

/// Presses one key (no Enter).
fn key(p: &mut rexpect::session::PtySession, k: &str) {
    p.send(k).unwrap();
    p.flush().unwrap();
}

const PY: [&str; 8] = ["run", "-i", "-l", "py", "-p", "fetch_data($$$A)", "-r", "load_data($$$A)"];

#[test]
fn interactive_review_writes_only_the_accepted_files() {
    let t = Tree::fixtures();
    let orig = Tree::fixtures();
    let mut p = spawn_command(t.command(&PY), Some(20_000)).unwrap();
    p.exp_string("+    text = load_data(os.path.join(cwd, \"data.txt\"))").unwrap();
    p.exp_string("[1/3] Apply this change to python/app.py? [y]es [n]o [a]ll remaining [q]uit: ").unwrap();
    // One key per answer, no Enter: each is echoed on the question's line.
    key(&mut p, "n");
    p.exp_string("n\r\n").unwrap();
    p.exp_string("+    return load_data(\"crlf.txt\")").unwrap();
    p.exp_string("[2/3] Apply this change to python/crlf.py?").unwrap();
    key(&mut p, "x");
    p.exp_string("Please answer y, n, a or q.").unwrap();
    p.exp_string("[2/3] Apply this change to python/crlf.py?").unwrap();
    key(&mut p, "y");
    p.exp_string("[3/3] Apply this change to python/test_app.py?").unwrap();
    key(&mut p, "q");
    p.exp_string("Applied 1 replacement in 1 file.").unwrap();
    p.exp_string("applied  python/crlf.py").unwrap();
    // The declined files are named, and the way back.
    p.exp_string("Declined: 2 files left unchanged:").unwrap();
    p.exp_string("declined python/app.py").unwrap();
    p.exp_string("declined python/test_app.py").unwrap();
    p.exp_string("To undo: `ast-edit undo --id ae-").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(t.read_bytes("python/crlf.py"), b"def run():\r\n    return load_data(\"crlf.txt\")\r\n");
    assert_eq!(t.read("python/app.py"), orig.read("python/app.py"));
    assert_eq!(t.read("python/test_app.py"), orig.read("python/test_app.py"));
    // Journalled like any apply.
    t.run(&["undo"]).ok();
    assert_eq!(t.snapshot(), orig.snapshot());
}

#[test]
fn answering_all_accepts_this_and_every_remaining_file() {
    let t = Tree::fixtures();
    let mut p = spawn_command(t.command(&PY), Some(20_000)).unwrap();
    p.exp_string("[1/3] Apply this change to python/app.py?").unwrap();
    key(&mut p, "y");
    p.exp_string("[2/3] Apply this change to python/crlf.py?").unwrap();
    key(&mut p, "a");
    p.exp_string("Applied 5 replacements in 3 files.").unwrap();
    p.exp_eof().unwrap();
    assert!(t.read("python/test_app.py").contains("load_data(\"a.txt\")"));
    assert!(t.read("python/app.py").contains("load_data(os.path.join"));
}

#[test]
fn scan_interactive_reviews_rule_edits() {
    let t = Tree::fixtures();
    t.write("r.yml", "id: py-assert\nlanguage: python\nrule: {pattern: '$S.assertEquals($A, $B)'}\nfix: $S.assertEqual($A, $B)\n");
    let mut p = spawn_command(t.command(&["scan", "-i", "--rules", "r.yml"]), Some(20_000)).unwrap();
    p.exp_string("[1/1] Apply this change to python/test_app.py?").unwrap();
    key(&mut p, "y");
    p.exp_string("Applied 2 replacements in 1 file.").unwrap();
    p.exp_eof().unwrap();
    assert!(t.read("python/test_app.py").contains("self.assertEqual(len("));
}

#[test]
fn interactive_without_a_terminal_is_refused() {
    let t = Tree::fixtures();
    let r = t.run_stdin(&PY, "y\n").code(2);
    assert!(r.stderr.contains("--interactive needs a terminal on stdin"), "{}", r.stderr);
    assert_eq!(t.snapshot(), Tree::fixtures().snapshot());
}
