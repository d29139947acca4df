//! Files that are not files, and snapshots that would land elsewhere, through
//! the real binary and MCP server (docs/DESIGN.md §7): every file the tool reads
//! by name is opened without waiting and read only when it is a regular file
//! under its cap; the store's entries and its lock too, and a store locked by
//! another process delays the MCP server's start by at most its documented
//! wait; every ignore file a walk reads (in the folders walked and above them,
//! git's `info/exclude` and config) is checked before the `ignore` crate reads
//! it, and refuses the walk when it is not a regular file under its cap; `test -U`
//! writes snapshots only inside the project, with the umask's mode; a rule id's
//! control characters never reach the terminal. Each run is under a watchdog, so
//! a hang fails the test instead of the suite.

#![cfg(unix)]

use crate::common::Tree;

/// A watchdog far above any of these runs' time (they take milliseconds).
const WATCHDOG_SECS: u64 = 30;

fn mkfifo(t: &Tree, rel: &str) {
    let p = t.path().join(rel);
    assert!(std::process::Command::new("mkfifo").arg(&p).status().unwrap().success());
}

fn link_to_zero(t: &Tree, rel: &str) {
    std::os::unix::fs::symlink("/dev/zero", t.path().join(rel)).unwrap();
}

const RULE: &str = "id: no-print\nlanguage: python\nrule: {pattern: print($A)}\nfix: log($A)\n";

#[test]
fn a_fifo_or_dev_zero_named_as_a_rule_config_request_or_code_file_is_refused_at_once() {
    let t = Tree::empty();
    t.write("a.py", "print(1)\n");
    mkfifo(&t, "fifo.yml");
    link_to_zero(&t, "zero.yml");
    let cases: [(&[&str], i32, &str); 6] = [
        (&["scan", "-r", "X"], 6, "rule file X is"),
        (&["scan", "-c", "X"], 6, "config file X is"),
        (&["test", "-c", "X"], 6, "config file X is"),
        (&["search", "--rule", "X"], 2, "the rule file X is"),
        (&["tree", "-l", "py", "-f", "X"], 2, "the file X is"),
        (&["run", "--request", "X"], 2, "the request file X is"),
    ];
    for (file, kind) in [("fifo.yml", "a FIFO"), ("zero.yml", "a character device")] {
        for (args, code, says) in &cases {
            let args: Vec<&str> = args.iter().map(|a| if *a == "X" { file } else { a }).collect();
            let r = t.run_within(&args, "", WATCHDOG_SECS);
            let says = says.replace('X', file);
            assert_eq!(r.code, *code, "{args:?}: {}", r.stderr);
            assert_eq!(r.stderr, format!("error: {says} {kind}, not a regular file: name a regular file\n"), "{args:?}");
        }
    }
}

#[test]
fn a_rule_file_over_its_cap_is_not_read() {
    let t = Tree::empty();
    let cap = ast_edit::app::project::MAX_RULE_FILE_BYTES as usize;
    t.write("big.yml", format!("{RULE}# {}\n", "x".repeat(cap)));
    let r = t.run_within(&["scan", "-r", "big.yml"], "", WATCHDOG_SECS);
    assert_eq!(r.code, 6, "{}", r.stderr);
    assert!(
        r.stderr.starts_with(&format!("error: rule file big.yml is {} bytes; the limit is {cap} bytes for such a file: split it", RULE.len() + cap + 3)),
        "{}",
        r.stderr
    );
}

/// A FIFO and a link to /dev/zero among the pending actions: listed as
/// damaged, never read, by `pending` and by the MCP server, which answers
/// `initialize` and a ping.
#[test]
fn store_entries_that_are_not_files_are_reported_not_read() {
    let t = Tree::fixtures();
    t.run(&["run", "-l", "py", "-p", crate::common::ASSERT_PAT, "-r", crate::common::ASSERT_OUT]).ok();
    let pending = t.state.path().join("pending");
    assert!(std::process::Command::new("mkfifo").arg(pending.join("ae-ffffff.json")).status().unwrap().success());
    std::os::unix::fs::symlink("/dev/zero", pending.join("ae-eeeeee.json")).unwrap();
    let r = t.run_within(&["pending"], "", WATCHDOG_SECS);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout.lines().filter(|l| l.starts_with("ae-")).count(), 1, "{}", r.stdout);
    assert!(r.stderr.contains("ae-ffffff.json: this pending action is a FIFO, not a regular file; delete the file to drop it"), "{}", r.stderr);
    assert!(r.stderr.contains("ae-eeeeee.json: this pending action is a character device, not a regular file; delete the file to drop it"), "{}", r.stderr);
    let r = t.run_within(&["mcp"], &session_lines(), WATCHDOG_SECS);
    answered(&r);
}

/// `initialize`, `initialized` and a ping, as JSON-RPC lines.
fn session_lines() -> String {
    [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
    ]
    .map(|l| format!("{l}\n"))
    .concat()
}

/// The server answered `initialize` and the ping, then ended with stdin.
#[track_caller]
fn answered(r: &crate::common::Run) {
    assert_eq!(r.code, 0, "{}", r.stderr);
    let replies: Vec<serde_json::Value> = r.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(replies.len(), 2, "{}", r.stdout);
    assert_eq!(replies[0]["result"]["serverInfo"]["name"], "ast-edit", "{}", r.stdout);
    assert_eq!((replies[1]["id"].clone(), replies[1]["result"].clone()), (serde_json::json!(2), serde_json::json!({})), "{}", r.stdout);
}

/// Another process holds the store's lock for longer than the server's start
/// waits: the server answers anyway, and says why on stderr.
#[test]
fn a_store_locked_by_another_process_delays_the_server_start_by_its_wait_only() {
    let t = Tree::fixtures();
    t.run(&["run", "-l", "py", "-p", crate::common::ASSERT_PAT, "-r", crate::common::ASSERT_OUT]).ok();
    let lock = std::fs::File::options().write(true).open(t.state.path().join("lock")).unwrap();
    lock.lock().unwrap();
    let start = std::time::Instant::now();
    let r = t.run_within(&["mcp"], &session_lines(), WATCHDOG_SECS);
    answered(&r);
    assert!(start.elapsed() < std::time::Duration::from_secs(WATCHDOG_SECS));
    assert!(r.stderr.contains("has been locked by another ast-edit process for over 2 s; starting without it"), "{}", r.stderr);
    lock.unlock().unwrap();
}

/// A project whose rule `id` has tests, in `tests/` (snapshots in `snapshot_dir`).
fn project(id: &str, snapshot_dir: Option<&str>) -> Tree {
    let t = Tree::empty();
    let snap = snapshot_dir.map_or(String::new(), |d| format!("\n    snapshotDir: {d}"));
    t.write("proj/sgconfig.yml", format!("ruleDirs: [rules]\ntestConfigs:\n  - testDir: tests{snap}\n"));
    t.write("proj/rules/r.yml", format!("id: '{id}'\nlanguage: python\nrule: {{pattern: print($A)}}\nfix: log($A)\n"));
    t.write("proj/tests/r.yml", format!("id: '{id}'\nvalid: ['x = 1']\ninvalid: ['print(1)']\n"));
    t
}

#[test]
fn test_u_writes_no_snapshot_outside_the_project() {
    for (id, dir, says) in [
        ("../../../escape", None, "rule `../../../escape`: its id holds a path separator"),
        ("/tmp/abs-escape", None, "rule `/tmp/abs-escape`: its id holds a path separator"),
        ("no-print", Some("../../outside"), "the snapshot folder of `no-print` ("),
    ] {
        let t = project(id, dir);
        let before = t.snapshot();
        let r = t.run_within(&["test", "-c", "proj/sgconfig.yml", "-U"], "", WATCHDOG_SECS);
        assert_eq!(r.code, 2, "{id}: {}", r.stderr);
        assert!(r.stderr.starts_with(&format!("error: {says}")) && r.stderr.trim_end().ends_with("Nothing was written"), "{id}: {}", r.stderr);
        assert_eq!(t.snapshot(), before, "{id}: nothing written in the tree");
        assert!(!std::path::Path::new("/tmp/abs-escape-snapshot.yml").exists());
        assert!(!t.path().parent().unwrap().join("escape-snapshot.yml").exists());
    }
    // Given on the command line, a folder outside is the user's choice.
    let t = project("no-print", None);
    let out = tempfile::tempdir().unwrap();
    let r = t.run_within(&["test", "-c", "proj/sgconfig.yml", "-t", "proj/tests", "--snapshot-dir", out.path().to_str().unwrap(), "-U"], "", WATCHDOG_SECS);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(out.path().join("no-print-snapshot.yml").is_file());
}

/// The project's snapshot folder judged by where a write would really land:
/// through a symlinked `testDir`, a link on the way to a `snapshotDir` not made
/// yet, a dangling link; and a snapshot file that is itself a link to a file
/// outside is replaced by a file in the project, the outside file untouched.
#[test]
fn test_u_follows_links_in_the_snapshot_folders_path_and_writes_nothing_outside() {
    let outside = tempfile::tempdir().unwrap();
    let out = outside.path().canonicalize().unwrap();
    type Make<'a> = &'a dyn Fn(&Tree);
    let cases: [(&str, Make<'_>); 4] = [
        ("a symlinked testDir", &|t: &Tree| {
            std::fs::rename(t.path().join("proj/tests"), out.join("tests")).unwrap();
            std::os::unix::fs::symlink(out.join("tests"), t.path().join("proj/tests")).unwrap();
        }),
        ("a link on the way to snapshotDir", &|t: &Tree| {
            t.write("proj/sgconfig.yml", "ruleDirs: [rules]\ntestConfigs:\n  - testDir: tests\n    snapshotDir: snaps/deep/er\n");
            std::os::unix::fs::symlink(&out, t.path().join("proj/tests/snaps")).unwrap();
        }),
        ("a __snapshots__ linked outside", &|t: &Tree| {
            std::os::unix::fs::symlink(&out, t.path().join("proj/tests/__snapshots__")).unwrap();
        }),
        ("a dangling snapshotDir", &|t: &Tree| {
            std::os::unix::fs::symlink(out.join("not-there"), t.path().join("proj/tests/__snapshots__")).unwrap();
        }),
    ];
    for (what, make) in cases {
        let t = project("no-print", None);
        make(&t);
        let before = t.snapshot();
        let r = t.run_within(&["test", "-c", "proj/sgconfig.yml", "-U"], "", WATCHDOG_SECS);
        assert_eq!(r.code, 2, "{what}: {}{}", r.stdout, r.stderr);
        assert!(r.stderr.starts_with("error: the snapshot folder of `no-print` ("), "{what}: {}", r.stderr);
        assert!(r.stderr.trim_end().ends_with("Nothing was written"), "{what}: {}", r.stderr);
        assert!(!r.stdout.contains("wrote"), "{what}: {}", r.stdout);
        assert_eq!(t.snapshot(), before, "{what}: nothing written in the tree");
        let left: Vec<_> = crate::common::files_under(&out).into_keys().filter(|f| f.to_string_lossy().contains("snapshot")).collect();
        assert!(left.is_empty(), "{what}: written outside: {left:?}");
        let _ = std::fs::remove_dir_all(out.join("tests"));
    }
    // A snapshot file linked to a file outside: the link is replaced inside the
    // project, and the file it pointed to keeps its bytes.
    let t = project("no-print", None);
    std::fs::write(out.join("victim.yml"), "precious\n").unwrap();
    std::fs::create_dir_all(t.path().join("proj/tests/__snapshots__")).unwrap();
    std::os::unix::fs::symlink(out.join("victim.yml"), t.path().join("proj/tests/__snapshots__/no-print-snapshot.yml")).unwrap();
    let r = t.run_within(&["test", "-c", "proj/sgconfig.yml", "-U"], "", WATCHDOG_SECS);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(std::fs::read_to_string(out.join("victim.yml")).unwrap(), "precious\n");
    let snap = t.path().join("proj/tests/__snapshots__/no-print-snapshot.yml");
    assert!(std::fs::symlink_metadata(&snap).unwrap().is_file(), "the link became a file in the project");
    assert!(t.read("proj/tests/__snapshots__/no-print-snapshot.yml").contains("fixed: log(1)"));
}

#[test]
fn a_snapshot_that_is_not_a_file_is_refused_and_the_umask_gives_a_new_ones_mode() {
    use std::os::unix::fs::PermissionsExt;
    let t = project("no-print", None);
    let snap = "proj/tests/__snapshots__/no-print-snapshot.yml";
    std::fs::create_dir_all(t.path().join("proj/tests/__snapshots__")).unwrap();
    for (make, kind) in [(mkfifo as fn(&Tree, &str), "a FIFO"), (link_to_zero, "a character device")] {
        make(&t, snap);
        let r = t.run_within(&["test", "-c", "proj/sgconfig.yml", "-U"], "", WATCHDOG_SECS);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert_eq!(
            r.stderr,
            format!(
                "error: snapshot file tests/__snapshots__/no-print-snapshot.yml is {kind}, not a regular file: remove it to let `test -U` write the snapshot there. Nothing was written\n"
            )
        );
        std::fs::remove_file(t.path().join(snap)).unwrap();
    }
    // New: the umask's mode (0644 under 022), not the temp file's 0600.
    let sh = format!("umask 022; exec {} test -c proj/sgconfig.yml -U", env!("CARGO_BIN_EXE_ast-edit"));
    let out = std::process::Command::new("sh").args(["-c", &sh]).current_dir(t.path()).env("AST_EDIT_STATE_DIR", t.state.path()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mode = |t: &Tree| std::fs::metadata(t.path().join(snap)).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode(&t), 0o644);
    // Rewritten: it keeps its own mode.
    std::fs::set_permissions(t.path().join(snap), std::fs::Permissions::from_mode(0o640)).unwrap();
    t.write("proj/tests/r.yml", "id: 'no-print'\nvalid: ['x = 1']\ninvalid: ['print(1)', 'print(2)']\n");
    t.run_within(&["test", "-c", "proj/sgconfig.yml", "-U"], "", WATCHDOG_SECS);
    assert!(t.read(snap).contains("print(2)"));
    assert_eq!(mode(&t), 0o640);
}

/// A snapshot folder that cannot be made (a file holds its name): bad input,
/// one message, not the code of a failed case.
#[test]
fn a_snapshot_folder_that_cannot_be_made_is_bad_input() {
    let t = project("no-print", None);
    t.write("proj/tests/__snapshots__", "a file where the folder goes\n");
    let r = t.run_within(&["test", "-c", "proj/sgconfig.yml", "-U"], "", WATCHDOG_SECS);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.starts_with("error: cannot create tests/__snapshots__: "), "{}", r.stderr);
    assert!(r.stderr.trim_end().ends_with("check the folder's permissions, or give another --snapshot-dir"), "{}", r.stderr);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
}

/// A rule id with an escape sequence: the label that names it shows it escaped
/// wherever a label is printed.
#[test]
fn control_characters_in_a_rule_id_never_reach_the_terminal() {
    let t = Tree::empty();
    t.write("a.py", "print(1)\n");
    t.write("r.yml", "id: \"fx\\e[1mBOLD\"\nlanguage: python\nrule: {pattern: print($A)}\nfix: log($A)\n");
    for args in [&["scan", "-r", "r.yml"][..], &["pending"], &["resolve", "discard", "--reason", "no"]] {
        let r = t.run_within(args, "", WATCHDOG_SECS);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        assert!(!r.stdout.contains('\u{1b}') && !r.stderr.contains('\u{1b}'), "{args:?}: {:?}", r.stdout);
        assert!(r.stdout.contains("(rules: fx\\033[1mBOLD)"), "{args:?}: {}", r.stdout);
    }
}

/// Terminal escapes in a rule's id, message, note and label (ESC, an OSC that
/// sets the window title, the C1 control 0x9B, BEL, a carriage return, a
/// bidirectional override) and in the code a frame shows: printed escaped in
/// every text style, in `github` annotations and in `test`'s report, never raw;
/// a note of several lines keeps its lines; `--json` keeps the exact strings.
#[test]
fn terminal_escapes_from_a_rule_or_a_file_are_printed_escaped_in_every_format() {
    let t = Tree::empty();
    t.write("sgconfig.yml", "ruleDirs: [rules]\n");
    let id = "bad\\e]0;pwned\\a\\x9b31m\\rX";
    t.write(
        "rules/r.yml",
        format!("id: \"{id}\"\nlanguage: python\nseverity: warning\nmessage: \"msg \\e[31mred\\r\\u202eZ\"\nnote: \"line one \\e[2J\\nline two\"\nrule: {{pattern: print($A)}}\nlabels:\n  A: {{style: primary, message: \"lab \\e[5m\"}}\n"),
    );
    t.write("rules/fix.yml", "id: \"fx\\x9bZ\"\nlanguage: python\nmessage: \"fix \\e[1m\"\nrule: {pattern: show($A)}\nfix: log($A)\n");
    t.write("a.py", "print('\x1b[2J\u{9b}31m')  # \u{202e}hidden\rcover\nshow(1)\n");
    t.write("rules-test/r.yml", format!("id: \"{id}\"\nvalid: [\"print('\\e[7m')\"]\ninvalid: [\"print('\\e[1m')\"]\n"));
    let raw = |out: &str| {
        out.contains('\u{1b}') || out.contains('\u{9b}') || out.contains('\u{7}') || out.contains('\u{202e}') || out.replace("\r\n", "").contains('\r')
    };
    for args in [
        &["scan"][..],
        &["scan", "--report-style", "medium"],
        &["scan", "--report-style", "short"],
        &["scan", "--format", "github"],
        &["scan", "--color", "always"],
        &["test", "-t", "rules-test", "--skip-snapshot-tests"],
    ] {
        let r = t.run_within(args, "", WATCHDOG_SECS);
        // A scan's warnings pass; the test's valid case is noisy, so its code is shown.
        assert_eq!(r.code, if args[0] == "test" { 4 } else { 0 }, "{args:?}: {}", r.stderr);
        if args[0] == "test" {
            assert!(r.stdout.contains("[Noisy] Expect bad\\033]0;pwned\\a\\302\\23331m\\rX to report no issue"), "{}", r.stdout);
            assert!(r.stdout.contains("\n  print('\\033[7m')\n"), "{}", r.stdout);
        }
        // Plain, a diff keeps the file's bytes (`git apply` needs them); for a
        // terminal (colour), it is escaped too.
        let plain = if args.contains(&"always") {
            without_colours(&r.stdout)
        } else {
            r.stdout.lines().filter(|l| !l.starts_with([' ', '+', '-'])).collect::<Vec<_>>().join("\n")
        };
        assert!(!raw(&plain) && !raw(&r.stderr), "{args:?}: {:?} {:?}", r.stdout, r.stderr);
        if args[0] == "scan" {
            assert!(plain.contains("bad\\033]0;pwned\\a\\302\\23331m\\rX"), "{args:?}: {}", r.stdout);
        }
        if args.len() == 1 || args.contains(&"medium") {
            let note = if args.len() == 1 { "  = line one \\033[2J\n    line two\n" } else { " = line one \\033[2J\n   line two\n" };
            assert!(r.stdout.contains(note), "{args:?}: a note of two lines: {}", r.stdout);
        }
    }
    // --json keeps the exact strings (JSON escapes them).
    let r = t.run_within(&["scan", "--json"], "", WATCHDOG_SECS);
    let records: Vec<serde_json::Value> = serde_json::from_str(&r.stdout).unwrap();
    assert!(records.iter().any(|m| m["ruleId"] == "bad\u{1b}]0;pwned\u{7}\u{9b}31m\rX"), "{}", r.stdout);
}

/// `text` without the colours ast-edit paints (`ESC [ <digits and ;> m`); any
/// other escape stays.
fn without_colours(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("\u{1b}[") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let params = after.find(|c: char| !c.is_ascii_digit() && c != ';').unwrap_or(after.len());
        if after[params..].starts_with('m') {
            rest = &after[params + 1..];
        } else {
            out.push('\u{1b}');
            rest = &rest[at + 1..];
        }
    }
    out + rest
}

/// A rule file or a rule test file that a project's folder walk finds but
/// that is not a regular file (a FIFO, a socket) is named and fails the run
/// (exit 6), as a named one is; it used to be left out without a word
/// ("Running 0 tests", exit 0).
#[test]
fn a_fifo_or_socket_found_in_a_rule_or_test_folder_is_named_not_skipped() {
    for (at, command) in [("rules/f.yml", "scan"), ("tests/t.yml", "test"), ("rules/deep/s.yaml", "scan"), ("tests/s.yml", "test")] {
        let t = Tree::empty();
        t.write("sgconfig.yml", "ruleDirs: [rules]\ntestConfigs:\n  - testDir: tests\n");
        t.write("rules/r.yml", "id: r\nlanguage: python\nrule: {pattern: print($A)}\n");
        t.write("tests/r.yml", "id: r\nvalid: ['x = 1']\ninvalid: ['print(1)']\n");
        t.write("a.py", "print(1)\n");
        std::fs::create_dir_all(t.path().join(at).parent().unwrap()).unwrap();
        let kind = if at.contains("/s.") {
            let _socket = std::os::unix::net::UnixListener::bind(t.path().join(at)).unwrap();
            "a socket"
        } else {
            mkfifo(&t, at);
            "a FIFO"
        };
        let r = t.run_within(&[command], "", WATCHDOG_SECS);
        assert_eq!(r.code, 6, "{at}: {}{}", r.stdout, r.stderr);
        let what = if command == "test" { "test file " } else { "" };
        assert!(r.stderr.contains(&format!("error: {what}{} is {kind}, not a regular file", at)), "{at}: {}", r.stderr);
    }
}

#[test]
fn a_duplicate_yaml_key_says_to_give_it_once() {
    let t = Tree::empty();
    t.write("r.yml", "id: a\nid: b\nlanguage: python\nrule: {pattern: print($A)}\n");
    let r = t.run_within(&["scan", "-r", "r.yml"], "", WATCHDOG_SECS);
    assert!(r.stderr.contains("duplicate mapping key: id (give each key once)"), "{}", r.stderr);
    assert!(!r.stderr.contains("DuplicateKeyPolicy"), "{}", r.stderr);
}

/// 200 matches 2,000 levels deep: listing them walks each match's ancestors
/// once (it climbed with tree-sitter's `parent`, which walks down from the
/// root each time: 55 s on the release build). The watchdog is a hang guard,
/// thirty times what the listing takes in a debug build.
#[test]
fn matches_deep_in_nested_code_are_listed_without_climbing_the_tree_per_level() {
    let t = Tree::empty();
    let depth = 2000;
    let mut src = String::new();
    for i in 0..depth {
        src.push_str("f(");
        if i % 10 == 0 {
            src.push_str("1, ");
        }
    }
    src.push_str(&")".repeat(depth));
    src.push('\n');
    t.write("deep.py", &src);
    let r = t.run_within(&["search", "-p", "1", "-l", "py", "--limit", "200", "--json"], "", WATCHDOG_SECS);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["totalMatches"], 200, "{}", r.stdout);
    assert_eq!(v["matches"].as_array().unwrap().len(), 200);
}

/// The tree of the ignore-file tests: `proj/` with code in it and in a
/// subfolder; the walks search `proj`, so the tree's root is its parent.
fn ignore_tree() -> Tree {
    let t = Tree::empty();
    t.write("proj/a.py", "print(1)\n");
    t.write("proj/sub/b.py", "print(2)\n");
    t.write("r.yml", RULE);
    t
}

/// The commands that walk `proj`: a search, an edit, a scan, and the search's JSON.
const WALKS: [&[&str]; 4] = [
    &["search", "-l", "py", "-p", "print($A)", "proj"],
    &["search", "-l", "py", "-p", "print($A)", "--json", "proj"],
    &["run", "-l", "py", "-p", "print($A)", "-r", "log($A)", "proj"],
    &["scan", "-r", "r.yml", "proj"],
];

/// The refusal of an ignore file `shown` that `is` what it is.
fn ignore_refusal(shown: &str, is: &str) -> String {
    format!("error: ignore file {shown} is {is}, not a regular file: make it a regular file or remove it; ast-edit reads it to know which files to leave out\n")
}

/// Every walk in `t` is refused at once with `says` on stderr (exit 2), and
/// writes nothing: the tree is as it was, nothing is pending.
#[track_caller]
fn refused_by_every_walk(t: &Tree, says: &str) {
    let before = t.snapshot();
    for args in WALKS {
        let r = t.run_within(args, "", WATCHDOG_SECS);
        assert_eq!((r.code, r.stderr.as_str(), r.stdout.as_str()), (2, says, ""), "{args:?}");
        assert_eq!(t.snapshot(), before, "{args:?}: nothing written in the tree");
        assert!(crate::common::files_under(t.state.path()).keys().all(|p| !p.starts_with("pending")), "{args:?}: nothing staged");
    }
}

/// A FIFO where the walk reads an ignore file: in the folder searched, in a
/// folder below it, in the folder above it (the walk reads the ignore files
/// of a root's parents), as `.git/info/exclude`. Before, each walk waited
/// forever for a writer.
#[test]
fn a_fifo_as_an_ignore_file_anywhere_the_walk_reads_one_is_refused_at_once() {
    for fifo in ["proj/.gitignore", "proj/sub/.gitignore", ".gitignore", "proj/.ignore", "proj/.git/info/exclude"] {
        let t = ignore_tree();
        std::fs::create_dir_all(t.path().join("proj/.git/info")).unwrap();
        mkfifo(&t, fifo);
        refused_by_every_walk(&t, &ignore_refusal(fifo, "a FIFO"));
        // With --no-ignore no ignore file is read: the walk goes on.
        let r = t.run_within(&["search", "-l", "py", "-p", "print($A)", "proj", "--no-ignore"], "", WATCHDOG_SECS);
        assert_eq!(r.code, 0, "{fifo}: {}", r.stderr);
        assert!(r.stdout.contains("proj/sub/b.py"), "{fifo}: {}", r.stdout);
    }
}

/// `.ignore` linked to `/dev/zero` (read, it never ends), a `.gitignore` that
/// is a folder, and one over the cap: none is read.
#[test]
fn an_ignore_file_that_is_a_device_a_folder_or_over_its_cap_is_refused() {
    let t = ignore_tree();
    link_to_zero(&t, "proj/.ignore");
    refused_by_every_walk(&t, &ignore_refusal("proj/.ignore", "a character device"));
    let t = ignore_tree();
    std::fs::create_dir_all(t.path().join("proj/sub/.gitignore")).unwrap();
    refused_by_every_walk(&t, &ignore_refusal("proj/sub/.gitignore", "a folder"));
    let t = ignore_tree();
    let cap = ast_edit::app::files::MAX_IGNORE_FILE_BYTES;
    t.write("proj/sub/.gitignore", "x\n".repeat(cap as usize / 2 + 1));
    refused_by_every_walk(
        &t,
        &format!(
            "error: ignore file proj/sub/.gitignore is {} bytes; the limit is {cap} bytes for such a file: shorten it or remove it; ast-edit reads it to know which files to leave out\n",
            cap + 2
        ),
    );
}

/// A `.git` file (a linked worktree's) points to a git folder whose
/// `commondir` is a FIFO: the walk would read it to find `info/exclude`.
#[test]
fn a_git_file_leading_to_a_fifo_is_refused() {
    let t = ignore_tree();
    std::fs::create_dir_all(t.path().join("gd")).unwrap();
    t.write("proj/.git", format!("gitdir: {}\n", t.path().join("gd").display()));
    mkfifo(&t, "gd/commondir");
    refused_by_every_walk(&t, &ignore_refusal("gd/commondir", "a FIFO").replace("ignore file", "git file"));
}

/// git's global config, where the walk learns of git's global excludes file,
/// is a FIFO.
#[test]
fn a_fifo_as_git_config_is_refused() {
    let t = ignore_tree();
    let home = tempfile::tempdir().unwrap();
    assert!(std::process::Command::new("mkfifo").arg(home.path().join(".gitconfig")).status().unwrap().success());
    let env = [("HOME", home.path().to_str().unwrap()), ("XDG_CONFIG_HOME", home.path().to_str().unwrap())];
    let r = t.run_within_env(WALKS[0], &env, "", WATCHDOG_SECS);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        format!(
            "error: git config file {} is a FIFO, not a regular file: make it a regular file or remove it; ast-edit reads it to know which files to leave out\n",
            home.path().join(".gitconfig").display()
        )
    );
}

/// A rule folder of a project is walked too: a FIFO `.gitignore` there is
/// refused as a file of the project that cannot be read (ast-grep's code 6).
#[test]
fn a_fifo_ignore_file_in_a_rule_folder_is_refused() {
    let t = ignore_tree();
    t.write("proj/sgconfig.yml", "ruleDirs: [rules]\n");
    t.write("proj/rules/r.yml", RULE);
    mkfifo(&t, "proj/rules/.gitignore");
    let r = t.run_within(&["scan", "-c", "proj/sgconfig.yml", "proj"], "", WATCHDOG_SECS);
    assert_eq!((r.code, r.stderr.as_str()), (6, ignore_refusal("rules/.gitignore", "a FIFO").as_str()));
}

/// The reply to request `id`, or the test fails (and the server is killed)
/// once the watchdog's time has passed.
fn reply(s: &crate::common::lines::Server, id: u64) -> serde_json::Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(WATCHDOG_SECS);
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let v = s.lines.recv_timeout(left).unwrap_or_else(|_| panic!("no reply to request {id} within {WATCHDOG_SECS} s"));
        if v["id"] == id {
            return v;
        }
    }
}

/// Over MCP a FIFO `.gitignore` is a tool error naming it, and the server
/// goes on serving. Before, each such call held one of the 16 call slots
/// forever.
#[test]
fn over_mcp_a_fifo_ignore_file_is_a_tool_error_and_the_server_serves_on() {
    let t = ignore_tree();
    mkfifo(&t, "proj/sub/.gitignore");
    let mut s = crate::common::lines::Server::start(&t);
    let args = serde_json::json!({"ops": [{"pat": "print($A)"}], "lang": "py", "paths": ["proj"]});
    s.send(&serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ast_search", "arguments": args}}));
    let v = reply(&s, 2);
    assert_eq!(v["result"]["isError"], true, "{v}");
    let says = ignore_refusal("proj/sub/.gitignore", "a FIFO");
    assert_eq!(v["result"]["content"][0]["text"], says.trim_end().trim_start_matches("error: "), "{v}");
    s.ping(3);
    s.end();
}

/// A FIFO as the store's lock: every command that takes the lock says so at
/// once (it waited for a writer forever), nothing is written, and the MCP
/// server answers `initialize`, then says so for a call that needs the store.
#[test]
fn a_fifo_as_the_store_lock_is_refused_at_once_and_the_server_still_starts() {
    let t = ignore_tree();
    let lock = t.state.path().join("lock");
    assert!(std::process::Command::new("mkfifo").arg(&lock).status().unwrap().success());
    let before = t.snapshot();
    let says = format!("pending-action store at {}: the store's lock is a FIFO, not a regular file: delete it; ast-edit makes it again", lock.display());
    for args in [WALKS[2], &["pending"]] {
        let r = t.run_within(args, "", WATCHDOG_SECS);
        assert_eq!((r.code, r.stderr.as_str()), (1, format!("error: {says}\n").as_str()), "{args:?}");
        assert_eq!(t.snapshot(), before, "{args:?}");
    }
    assert!(crate::common::files_under(t.state.path()).is_empty(), "nothing written in the store");
    let mut s = crate::common::lines::Server::start(&t);
    s.send(&serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ast_pending", "arguments": {}}}));
    let v = reply(&s, 2);
    assert_eq!((v["result"]["isError"].clone(), v["result"]["content"][0]["text"].clone()), (serde_json::json!(true), serde_json::json!(says)), "{v}");
    s.ping(3);
    s.end();
    // A link (even to a regular file: the store makes its lock itself) and a
    // folder are named likewise.
    std::fs::remove_file(&lock).unwrap();
    std::os::unix::fs::symlink(t.path().join("proj/a.py"), &lock).unwrap();
    let r = t.run_within(&["pending"], "", WATCHDOG_SECS);
    assert_eq!((r.code, r.stderr), (1, format!("error: {}\n", says.replace("a FIFO", "a symbolic link"))));
    std::fs::remove_file(&lock).unwrap();
    std::fs::create_dir(&lock).unwrap();
    let r = t.run_within(&["pending"], "", WATCHDOG_SECS);
    assert_eq!((r.code, r.stderr), (1, format!("error: {}\n", says.replace("a FIFO", "a folder"))));
}

/// A `.json` rule file is first read to see whether it is in the retired
/// catalog format: a FIFO or a link to `/dev/zero` is refused there too.
#[test]
fn a_fifo_or_dev_zero_named_as_a_json_rule_file_is_refused_at_once() {
    let t = Tree::empty();
    mkfifo(&t, "fifo.json");
    link_to_zero(&t, "zero.json");
    for (file, kind) in [("fifo.json", "a FIFO"), ("zero.json", "a character device")] {
        let r = t.run_within(&["scan", "-r", file], "", WATCHDOG_SECS);
        assert_eq!((r.code, r.stderr), (6, format!("error: rule file {file} is {kind}, not a regular file: name a regular file\n")));
    }
}

/// `show --full` re-reads a file whose stored diff was cut: one replaced by a
/// FIFO since the preview is not read, and the diff stays cut.
#[test]
fn show_full_does_not_read_a_file_replaced_by_a_fifo() {
    let t = Tree::empty();
    t.write("a.py", format!("print(1); x = '{}'\n", "a".repeat(5000)));
    let id = t.run(&["run", "-l", "py", "-p", "print($A)", "-r", "log($A)", "--json"]).ok().json::<serde_json::Value>()["id"].as_str().unwrap().to_string();
    std::fs::remove_file(t.path().join("a.py")).unwrap();
    mkfifo(&t, "a.py");
    let r = t.run_within(&["show", &id, "--full"], "", WATCHDOG_SECS);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stderr, "warning: a.py changed since the preview; its diff stays cut\n");
}
