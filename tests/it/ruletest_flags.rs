//! The flags `ast-edit test` shares with `ast-grep test` 0.51.1 beyond
//! `-U`/`--filter`/`--skip-snapshot-tests` (tests/it/ruletest.rs): `-t/--test-dir`,
//! `--snapshot-dir`, `--include-off`, `--follow` and `-i/--interactive`
//! (src/cli/test_review.rs). Each runs through the binary on a small project
//! and checks the exit code, the report and the bytes on disk; where ast-grep
//! 0.51.1 is installed (always in CI), `ast-grep test` runs with the same flags
//! on an identical copy and must give the same lines per rule, the same exit
//! code and the same files.

use crate::common::{Run, Tree, ast_grep};
use rexpect::session::spawn_command;

const RULES: [(&str, &str); 3] = [
    ("sgconfig.yml", "ruleDirs: [rules]\ntestConfigs:\n  - testDir: tests\n"),
    ("rules/no-print.yml", "id: no-print\nlanguage: python\nrule: {pattern: print($A)}\nfix: log($A)\n"),
    ("rules/no-eval.yml", "id: no-eval\nlanguage: python\nseverity: off\nrule: {pattern: eval($A)}\n"),
];

/// Two identical projects (ours, the peer's): the rules above and `files`.
fn projects(files: &[(&str, &str)]) -> (Tree, Tree) {
    let make = || {
        let t = Tree::empty();
        for (p, c) in RULES.iter().chain(files) {
            t.write(p, c);
        }
        t
    };
    (make(), make())
}

/// The `PASS`/`FAIL`/`SKIP` lines and the `Running N test(s)` count, in order.
fn summary(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter(|l| ["PASS ", "FAIL ", "SKIP ", "Running "].iter().any(|p| l.starts_with(p)))
        .map(|l| l.trim_end().trim_end_matches('s').to_string())
        .collect()
}

/// `ast-edit test ARGS` in `ours`, `ast-grep test ARGS` in `peer`: the same
/// lines per rule, the same exit code, the same files afterwards.
#[track_caller]
fn same_as_ast_grep(ours: &Tree, peer: &Tree, args: &[&str]) -> Run {
    let mut full = vec!["test"];
    full.extend_from_slice(args);
    let r = ours.run(&full);
    let o = std::process::Command::new(ast_grep()).args(&full).current_dir(peer.path()).env("NO_COLOR", "1").output().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(summary(&r.stdout), summary(&stdout), "{args:?}\nours:\n{}\nast-grep:\n{stdout}", r.stdout);
    assert_eq!(Some(r.code), o.status.code(), "{args:?}\nours:\n{}{}\nast-grep:\n{stdout}", r.stdout, r.stderr);
    assert_eq!(ours.snapshot(), peer.snapshot(), "{args:?}: the files differ after the run");
    r
}

const ALT: [(&str, &str); 2] = [
    ("tests/no-print-test.yml", "id: no-print\nvalid: [log(1)]\ninvalid: [print(1)]\n"),
    ("alt/no-print-test.yml", "id: no-print\nvalid: [log(2)]\ninvalid: [print(2)]\n"),
];

#[test]
fn test_dir_reads_the_tests_of_the_folder_given_instead_of_test_configs() {
    let (t, _) = projects(&ALT);
    let r = t.run(&["test", "-t", "alt"]).code(4);
    assert!(r.stdout.contains("Running 1 tests\n"), "{}", r.stdout);
    assert!(r.stdout.contains("[Wrong] No no-print baseline found."), "{}", r.stdout);
    assert!(r.stdout.contains("  print(2)"), "{}", r.stdout);
    let r = t.run(&["test", "--test-dir", "alt", "-U"]).ok();
    assert!(r.stdout.contains("wrote alt/__snapshots__/no-print-snapshot.yml"), "{}", r.stdout);
    assert!(t.read("alt/__snapshots__/no-print-snapshot.yml").contains("print(2):\n    fixed: log(2)\n"));
    assert!(!t.path().join("tests/__snapshots__").exists(), "the project's testConfigs were not read");
    // From a subfolder, DIR is relative to the working directory.
    let mut c = t.command(&["test", "-t", "../alt"]);
    c.current_dir(t.path().join("tests"));
    let o = c.output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let r = t.run(&["test", "-t", "nowhere"]).code(6);
    assert!(r.stderr.contains("the test folder") && r.stderr.contains("nowhere is not a folder: create it or name another"), "{}", r.stderr);
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn test_dir_and_snapshot_dir_read_and_write_like_ast_grep() {
    let (ours, peer) = projects(&ALT);
    same_as_ast_grep(&ours, &peer, &["-t", "alt"]);
    let r = same_as_ast_grep(&ours, &peer, &["-t", "alt", "--snapshot-dir", "snaps", "-U"]);
    assert!(r.stdout.contains("wrote alt/snaps/no-print-snapshot.yml"), "{}", r.stdout);
    same_as_ast_grep(&ours, &peer, &["-t", "alt", "--snapshot-dir", "snaps"]).ok();
    same_as_ast_grep(&ours, &peer, &["-t", "nowhere"]).code(6);
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn snapshot_dir_without_test_dir_is_ignored_with_a_warning_as_ast_grep_ignores_it() {
    let (ours, peer) = projects(&ALT);
    let r = same_as_ast_grep(&ours, &peer, &["--snapshot-dir", "snaps", "-U"]).ok();
    assert!(r.stderr.contains("warning: --snapshot-dir is ignored without --test-dir"), "{}", r.stderr);
    assert!(ours.path().join("tests/__snapshots__/no-print-snapshot.yml").is_file());
    assert!(!ours.path().join("tests/snaps").exists());
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn include_off_also_tests_the_rules_of_severity_off() {
    let files = [("tests/t.yml", "id: no-print\nvalid: [log(1)]\ninvalid: [print(1)]\n---\nid: no-eval\nvalid: [x]\ninvalid: [eval(1)]\n")];
    let (ours, peer) = projects(&files);
    let r = same_as_ast_grep(&ours, &peer, &["--skip-snapshot-tests"]).ok();
    assert!(r.stdout.contains("Rule not found: `no-eval` (tests/t.yml): the rule has `severity: off`"), "{}", r.stdout);
    let r = same_as_ast_grep(&ours, &peer, &["--include-off", "--skip-snapshot-tests"]).ok();
    assert!(r.stdout.contains("PASS no-eval  .."), "{}", r.stdout);
    assert!(!r.stdout.contains("Rule not found"), "{}", r.stdout);
    same_as_ast_grep(&ours, &peer, &["--include-off"]).code(4);
    let r = same_as_ast_grep(&ours, &peer, &["--include-off", "-U"]).ok();
    assert!(r.stdout.contains("wrote tests/__snapshots__/no-eval-snapshot.yml"), "{}", r.stdout);
    // Its snapshot kept, a run without the flag still leaves the rule out.
    same_as_ast_grep(&ours, &peer, &[]).ok();
    // A filter sees the off rules too, with or without the flag.
    same_as_ast_grep(&ours, &peer, &["--filter", "eval", "--include-off"]).ok();
}

#[cfg(unix)]
#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn follow_walks_test_folders_behind_symbolic_links() {
    let (ours, peer) = projects(&[("elsewhere/t.yml", "id: no-print\nvalid: [log(1)]\ninvalid: [print(1)]\n")]);
    for t in [&ours, &peer] {
        std::fs::create_dir_all(t.path().join("tests")).unwrap();
        std::os::unix::fs::symlink("../elsewhere", t.path().join("tests/linked")).unwrap();
    }
    let r = same_as_ast_grep(&ours, &peer, &[]).ok();
    assert!(r.stdout.contains("Running 0 tests\n"), "the linked folder is not walked:\n{}", r.stdout);
    let r = same_as_ast_grep(&ours, &peer, &["--follow"]).code(4);
    assert!(r.stdout.contains("FAIL no-print  .W"), "{}", r.stdout);
    same_as_ast_grep(&ours, &peer, &["--follow", "-U"]).ok();
    assert!(ours.path().join("tests/__snapshots__/no-print-snapshot.yml").is_file(), "the snapshots of a linked folder are in the testDir's __snapshots__");
}

/// Three test documents in one file (so that both tools see them in this
/// order): two `wrong` (no snapshot kept) around a `missing` one.
const REVIEW: [(&str, &str); 2] = [
    ("rules/no-exec.yml", "id: no-exec\nlanguage: python\nrule: {pattern: exec($A)}\nfix: run($A)\n"),
    ("tests/t.yml", "id: no-print\ninvalid: [print(1)]\n---\nid: no-exec\ninvalid: [x = 1]\n---\nid: no-eval\ninvalid: [eval(1)]\n"),
];

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn interactive_without_a_terminal_is_refused_before_anything_is_written() {
    let (ours, peer) = projects(&REVIEW);
    let before = ours.snapshot();
    let r = ours.run(&["test", "-i", "--include-off"]).code(7);
    assert!(r.stderr.contains("`ast-edit test -i` asks about each failing case on the terminal, but stdin is not a terminal"), "{}", r.stderr);
    assert!(r.stdout.is_empty(), "nothing shown before the refusal:\n{}", r.stdout);
    assert_eq!(ours.snapshot(), before);
    // ast-grep 0.51.1 shows the first case, fails to read the terminal and exits 1.
    let o = std::process::Command::new(ast_grep()).args(["test", "-i", "--include-off"]).current_dir(peer.path()).output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(peer.snapshot(), before);
    // With nothing to ask, no terminal is needed, in both.
    for t in [&ours, &peer] {
        t.write("tests/t.yml", "id: no-print\nvalid: [log(1)]\n");
    }
    same_as_ast_grep(&ours, &peer, &["-i"]).ok();
}

/// `-i` in a terminal: `n` to no-print, Enter past no-exec (missing: nothing to
/// accept), `y` to no-eval. Only no-eval's snapshot is taken; the run still
/// fails (4) on the two cases left.
#[test]
fn interactive_review_takes_the_accepted_snapshots_only() {
    let (t, _) = projects(&REVIEW);
    let mut p = spawn_command(t.command(&["test", "-i", "--include-off"]), Some(20_000)).unwrap();
    p.exp_string("Running 3 tests").unwrap();
    p.exp_string("[Wrong] No no-print baseline found.").unwrap();
    p.exp_string("Accept new snapshot? (Yes[y], No[n], Accept All[a], Quit[q]) ").unwrap();
    p.send_line("n").unwrap();
    p.exp_string("[Missing] Expect rule no-exec to report issues, but none found in:").unwrap();
    p.exp_string("Next[enter], Quit[q] ").unwrap();
    p.send_line("maybe").unwrap();
    p.exp_string("Unrecognized command, try again?").unwrap();
    p.exp_string("Next[enter], Quit[q] ").unwrap();
    p.send_line("").unwrap();
    p.exp_string("[Wrong] No no-eval baseline found").unwrap();
    p.exp_string("Accept new snapshot?").unwrap();
    p.send_line("y").unwrap();
    p.exp_string("FAIL no-print  W").unwrap();
    p.exp_string("FAIL no-exec  M").unwrap();
    p.exp_string("PASS no-eval  U").unwrap();
    p.exp_string("test failed. 1 passed; 2 failed;").unwrap();
    p.exp_eof().unwrap();
    let status = p.process_mut().wait().unwrap();
    assert!(format!("{status:?}").starts_with("Exited(") && format!("{status:?}").ends_with(", 4)"), "exit 4: {status:?}");
    assert_eq!(
        t.read("tests/__snapshots__/no-eval-snapshot.yml"),
        "id: no-eval\nsnapshots:\n  eval(1):\n    labels:\n    - source: eval(1)\n      style: primary\n      start: 0\n      end: 7\n"
    );
    assert_eq!(t.read("tests/__snapshots__/no-print-snapshot.yml"), "id: no-print\nsnapshots: {}\n", "declined: no snapshot, as ast-grep writes it");
    // `a` takes this one and every later one; `q` stops and keeps what was taken.
    let (t, _) = projects(&REVIEW);
    let mut p = spawn_command(t.command(&["test", "-i", "--include-off"]), Some(20_000)).unwrap();
    p.exp_string("Accept new snapshot?").unwrap();
    p.send_line("a").unwrap();
    p.exp_string("Next[enter], Quit[q] ").unwrap();
    p.send_line("q").unwrap();
    p.exp_string("FAIL no-eval  W").unwrap();
    p.exp_eof().unwrap();
    assert!(t.read("tests/__snapshots__/no-print-snapshot.yml").contains("fixed: log(1)"));
    assert_eq!(t.read("tests/__snapshots__/no-eval-snapshot.yml"), "id: no-eval\nsnapshots: {}\n");
}

/// The same review in ast-grep 0.51.1 (which reads single keys) leaves the
/// same bytes on disk.
#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn interactive_review_writes_what_ast_grep_writes() {
    let (ours, peer) = projects(&REVIEW);
    let mut p = spawn_command(ours.command(&["test", "-i", "--include-off"]), Some(20_000)).unwrap();
    for answer in ["n", "", "y"] {
        p.exp_regex(r"Accept new snapshot\?|Next\[enter\]").unwrap();
        p.send_line(answer).unwrap();
    }
    p.exp_eof().unwrap();
    let mut c = std::process::Command::new(ast_grep());
    c.args(["test", "-i", "--include-off"]).current_dir(peer.path()).env("NO_COLOR", "1");
    let mut p = spawn_command(c, Some(20_000)).unwrap();
    for key in ["n", "\r", "y"] {
        p.exp_regex(r"Accept new snapshot\?|Next\[enter\]").unwrap();
        p.send(key).unwrap();
        p.flush().unwrap();
    }
    p.exp_eof().unwrap();
    assert!(ours.read("tests/__snapshots__/no-eval-snapshot.yml").contains("eval(1):"));
    assert_eq!(ours.snapshot(), peer.snapshot());
}
