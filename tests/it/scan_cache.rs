//! The scan cache (docs/DESIGN.md section 2.14), through the binary: a warm
//! report, preview (`scan`, `run --request` with rules), rule test (`test`)
//! and search is the cold one byte for byte and is served from the cache (an
//! entry edited by hand shows); a file rewritten with its size and
//! modification time kept, a rule edited and a severity flag are each seen;
//! `-U` and `resolve apply` store what the rules make of the files they
//! wrote; `--no-cache` reads and writes nothing; scans at once, and scans
//! during an apply, never read a torn or stale entry. The MCP server's use of
//! it: mcp_cache.rs.

use std::path::{Path, PathBuf};

use crate::common::{Run, Tree};

const RULES: &str = "id: no-print\nlanguage: python\nseverity: error\nmessage: no print of $A\nrule: {pattern: print($A)}\nfix: log($A)\n---\nid: eq-none\nlanguage: python\nseverity: warning\nmessage: compare with is\nrule: {pattern: $A == None}\n";

pub(crate) fn project() -> Tree {
    let t = Tree::empty();
    t.write("sgconfig.yml", "ruleDirs: [rules]\n");
    t.write("rules/r.yml", RULES);
    t.write("src/a.py", "print(1)\nif x == None:\n    print(x)\n");
    t.write("src/b.py", "y = 2\n");
    t.write("src/c.py", "print(c)\n");
    t
}

/// The cache's packs in `t`'s state folder.
fn entries(t: &Tree) -> Vec<PathBuf> {
    packs(t.state.path())
}

/// The cache's packs in the state folder `state`.
pub(crate) fn packs(state: &Path) -> Vec<PathBuf> {
    let dir = state.join("scan-cache");
    let mut out: Vec<PathBuf> =
        std::fs::read_dir(&dir).into_iter().flatten().flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "pack")).collect();
    out.sort();
    out
}

/// Edits every entry of the packs in the state folder `state` by hand:
/// `from` becomes `to`, of the same length (the packs' indexes still hold).
pub(crate) fn tamper(state: &Path, from: &str, to: &str) {
    assert_eq!(from.len(), to.len());
    let (from, to) = (from.as_bytes(), to.as_bytes());
    for e in packs(state) {
        let mut bytes = std::fs::read(&e).unwrap();
        let mut i = 0;
        while let Some(p) = bytes[i..].windows(from.len()).position(|w| w == from) {
            bytes[i + p..i + p + to.len()].copy_from_slice(to);
            i += p + to.len();
        }
        std::fs::write(e, bytes).unwrap();
    }
}

/// How many entries of the kind `format` (the first line of their keys, as
/// `plan/cache.rs` writes them) the packs in the state folder `state` hold.
pub(crate) fn records(state: &Path, format: &str) -> usize {
    let needle = format!("{format}\n");
    packs(state).iter().map(|p| String::from_utf8_lossy(&std::fs::read(p).unwrap()).matches(&needle).count()).sum()
}

/// The kinds of entry (`plan/preview_cache.rs`, `plan/search/stored.rs`,
/// `rules/ruletest/stored.rs`).
pub(crate) const PREVIEW: &str = "ast-edit preview cache 1";
pub(crate) const COUNT: &str = "ast-edit search count cache 1";
const REPORT: &str = "ast-edit report cache 4";
const TEST: &str = "ast-edit rule test cache 1";

/// `s` with each pending action id (`ae-` and 6 hex digits) as `ae-?`: a
/// preview staged again gets a new id.
pub(crate) fn no_ids(s: &str) -> String {
    regex::Regex::new(r"ae-[0-9a-f]{6}").unwrap().replace_all(s, "ae-?").into_owned()
}

/// Rewrites src/a.py of `project` with other bytes of the same length, its
/// modification time kept (as `touch -r`): `print(2)`, `z == None`, `print(q)`.
fn rewrite_a_keeping_size_and_time(t: &Tree) {
    let a = t.path().join("src/a.py");
    let before = std::fs::metadata(&a).unwrap();
    std::fs::write(&a, "print(2)\nif z == None:\n    print(q)\n").unwrap();
    std::fs::File::options().write(true).open(&a).unwrap().set_modified(before.modified().unwrap()).unwrap();
    let after = std::fs::metadata(&a).unwrap();
    assert_eq!((after.len(), after.modified().unwrap()), (before.len(), before.modified().unwrap()));
}

fn scan(t: &Tree, extra: &[&str]) -> Run {
    t.run(&[&["scan", "--json=compact"][..], extra].concat())
}

#[test]
fn a_warm_report_is_the_cold_one_and_is_served_from_the_cache() {
    let t = project();
    let cold = scan(&t, &[]).code(1);
    // One pack, with the entries of a.py and c.py (b.py holds no rule's
    // literal: it is not parsed and gets no entry).
    let stored = entries(&t);
    assert_eq!(stored.len(), 1, "{stored:?}");
    let pack = std::fs::read(&stored[0]).unwrap();
    assert_eq!(String::from_utf8_lossy(&pack).matches("{\"lists\":").count(), 2);
    assert!(String::from_utf8_lossy(&pack).contains("src/a.py") && !String::from_utf8_lossy(&pack).contains("src/b.py"));
    let warm = scan(&t, &[]).code(1);
    assert_eq!(warm.stdout, cold.stdout);
    assert_eq!(entries(&t), stored, "a hit stores nothing new");
    // What is served is the entry: an entry edited by hand shows (this is how
    // the test knows a hit is not a second parse), and --no-cache ignores it.
    tamper(t.state.path(), "no print of", "NO PRINT OF");
    assert!(scan(&t, &[]).stdout.contains("NO PRINT OF"), "served from the cache");
    assert_eq!(scan(&t, &["--no-cache"]).stdout, cold.stdout);
    // A pack cut short (packs are not synced) is no pack: its entries are
    // made again and stored again, here in a pack of the same name and bytes
    // (a pack is named by its index), which takes the cut one's place.
    scan(&t, &["--no-cache"]);
    std::fs::remove_file(&stored[0]).unwrap();
    scan(&t, &[]).code(1);
    let whole = std::fs::read(&stored[0]).unwrap();
    std::fs::write(&stored[0], &whole[..whole.len() / 2]).unwrap();
    assert_eq!(scan(&t, &[]).stdout, cold.stdout);
    assert_eq!(entries(&t), stored);
    assert_eq!(std::fs::read(&stored[0]).unwrap(), whole);
    assert_eq!(scan(&t, &[]).stdout, cold.stdout);
    // The text styles and the annotations are drawn from the same entries.
    assert_eq!(t.run(&["scan", "--format", "github"]).stdout, t.run(&["scan", "--format", "github", "--no-cache"]).stdout);
}

/// A rule whose patterns sit in an `any` list (here through a local utility)
/// parses only the files that hold what one of its items needs: the others
/// get no entry. A match around a parse error is found as ast-grep finds it
/// (`f(1)` in `f(:defprint:1)`, where an ERROR node sits between `(` and `1`).
/// The findings are those of the same patterns as separate rules.
#[test]
fn a_file_meeting_no_item_of_an_any_list_is_not_parsed() {
    let t = Tree::empty();
    t.write("sgconfig.yml", "ruleDirs: [rules]\n");
    t.write(
        "rules/r.yml",
        "id: either\nlanguage: python\nseverity: warning\nmessage: m\nrule:\n  any:\n    - pattern: print($A)\n    - matches: eq-none\n    - pattern: f(1)\nutils:\n  eq-none: {pattern: $A == None}\n",
    );
    t.write("src/a.py", "print(1)\n");
    t.write("src/b.py", "y = 2\nf = g\n");
    t.write("src/c.py", "if x == None:\n    pass\n");
    t.write("src/d.py", "f(:defprint:1)\n");
    let out = scan(&t, &[]).code(0);
    let found: Vec<&str> = out.stdout.match_indices("\"file\":\"").map(|(i, _)| &out.stdout[i + 8..i + 16]).collect();
    assert_eq!(found, ["src/a.py", "src/c.py", "src/d.py"], "{}", out.stdout);
    assert!(out.stdout.contains("\"text\":\"f(:defprint:1)\""), "{}", out.stdout);
    assert_eq!(records(t.state.path(), REPORT), 3, "b.py holds no `print`, no `None` and no `1`");
    let packs = entries(&t);
    assert!(!String::from_utf8_lossy(&std::fs::read(&packs[0]).unwrap()).contains("src/b.py"));
    t.write(
        "rules/r.yml",
        "id: p\nlanguage: python\nseverity: warning\nmessage: m\nrule: {pattern: print($A)}\n---\nid: n\nlanguage: python\nseverity: warning\nmessage: m\nrule: {pattern: $A == None}\n---\nid: f\nlanguage: python\nseverity: warning\nmessage: m\nrule: {pattern: f(1)}\n",
    );
    let apart = scan(&t, &["--no-cache"]).code(0);
    let either = regex::Regex::new(r#""ruleId":"[pnf]""#).unwrap();
    assert_eq!(either.replace_all(&apart.stdout, "\"ruleId\":\"either\""), out.stdout);
}

#[test]
fn a_file_rewritten_with_its_size_and_time_kept_a_rule_edited_and_a_severity_flag_are_seen() {
    let t = project();
    scan(&t, &[]).code(1);
    // Same size, same modification time, other bytes: the content decides.
    rewrite_a_keeping_size_and_time(&t);
    let r = scan(&t, &[]).code(1);
    assert!(r.stdout.contains("no print of 2") && r.stdout.contains("\"text\":\"print(q)\""), "{}", r.stdout);
    assert_eq!(r.stdout, scan(&t, &["--no-cache"]).stdout);
    // A severity flag and a rule's new message change every record they touch.
    let r = scan(&t, &["--warning=no-print"]).code(0);
    assert!(!r.stdout.contains("\"severity\":\"error\""), "{}", r.stdout);
    assert_eq!(r.stdout, scan(&t, &["--warning=no-print", "--no-cache"]).stdout);
    t.write("rules/r.yml", RULES.replace("no print of $A", "say no to print($A)"));
    let r = scan(&t, &[]).code(1);
    assert!(r.stdout.contains("say no to print(2)"), "{}", r.stdout);
}

#[test]
fn no_cache_reads_and_writes_nothing() {
    let t = project();
    scan(&t, &["--no-cache"]).code(1);
    assert!(entries(&t).is_empty());
}

/// Three scans at once storing the same entries, with the files rewritten
/// between rounds (each file one of two texts of the same size, so a stale or
/// torn entry would show as the other text's records or as none): every
/// report equals the report without the cache.
#[test]
fn scans_at_once_never_read_a_torn_or_stale_entry() {
    let t = project();
    let texts = ["print(aaaa)\nprint(1)\n", "print(bbbb)\nprint(2)\n"];
    let files: Vec<String> = (0..24).map(|i| format!("src/m{i:02}.py")).collect();
    let write_all = |k: usize| {
        for f in &files {
            t.write(f, texts[k]);
        }
    };
    let expected: Vec<String> = (0..2)
        .map(|k| {
            write_all(k);
            scan(&t, &["--no-cache", "src/m00.py"]).stdout
        })
        .collect();
    for round in 0..6 {
        write_all(round % 2);
        let runs: Vec<Run> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..3).map(|_| s.spawn(|| scan(&t, &[]))).collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let want = scan(&t, &["--no-cache"]).stdout;
        for r in &runs {
            assert_eq!(r.stdout, want, "round {round}");
        }
        // One file's own report is one of the two texts', whole.
        let one = scan(&t, &["src/m00.py"]).stdout;
        assert_eq!(one, expected[round % 2], "round {round}");
    }
    assert!(!entries(&t).is_empty());
}

/// Runs the binary in the folder `rel` of `t`; (exit code, stdout).
fn run_in(t: &Tree, rel: &str, args: &[&str]) -> (i32, String) {
    let o = t.command(args).current_dir(t.path().join(rel)).output().unwrap();
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stdout).into_owned())
}

/// A rule's `files` glob reads the path from the project's folder, not the
/// path as shown: two files shown alike from two folders, with the same
/// bytes, are two keys (one is scanned by both rules, the other by one).
#[test]
fn two_files_shown_alike_from_two_folders_are_two_entries() {
    let t = Tree::empty();
    t.write("sgconfig.yml", "ruleDirs: [rules]\n");
    t.write("rules/r.yml", RULES.replace("rule: {pattern: print($A)}", "files: [src/**]\nrule: {pattern: print($A)}"));
    for dir in ["src", "lib"] {
        t.write(&format!("{dir}/a.py"), "print(1)\nif x == None:\n    pass\n");
    }
    let (code, src) = run_in(&t, "src", &["scan", "--json=compact"]);
    assert_eq!(code, 1, "{src}");
    assert!(src.contains("\"file\":\"a.py\"") && src.contains("no-print"), "{src}");
    let (code, lib) = run_in(&t, "lib", &["scan", "--json=compact"]);
    assert_eq!((code, lib), run_in(&t, "lib", &["scan", "--json=compact", "--no-cache"]));
    assert_eq!(code, 0, "lib/a.py is not in no-print's files");
}

/// A file stored by a run with the default step limit is skipped, as without
/// the cache, by a run whose limit it needs more steps than.
#[test]
fn a_lower_step_limit_is_not_served_a_report_made_under_a_higher_one() {
    let t = project();
    scan(&t, &[]).code(1);
    let cold = scan(&t, &["--max-steps", "3", "--no-cache"]);
    let warm = scan(&t, &["--max-steps", "3"]);
    assert_eq!((warm.code, &warm.stdout, &warm.stderr), (cold.code, &cold.stdout, &cold.stderr));
    assert_eq!(cold.code, 13, "{}", cold.stderr);
}

/// `scan` previewing (not a report), the pending action it stages dropped
/// after, so the next preview is staged again (not "identical to pending").
fn preview(t: &Tree, extra: &[&str]) -> Run {
    let r = t.run(&[&["scan"][..], extra].concat());
    t.run(&["resolve", "discard", "--reason", "preview again"]);
    r
}

/// The lines of `--stats` that count work (not the time).
fn work_lines(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.starts_with("  most ") || l.starts_with("  files ")).collect()
}

#[test]
fn a_warm_preview_is_the_cold_one_and_is_served_from_the_cache() {
    let t = project();
    let cold = preview(&t, &["--preview-json"]).code(1);
    // The rewrites of a.py and c.py (b.py is left alone by the prefilter).
    assert_eq!(records(t.state.path(), PREVIEW), 2);
    let stored = entries(&t);
    let warm = preview(&t, &["--preview-json"]).code(1);
    assert_eq!(no_ids(&warm.stdout), no_ids(&cold.stdout));
    assert_eq!(entries(&t), stored, "a hit stores nothing new");
    // The text preview, its findings drawn from reports, and the work it
    // counts (--stats) are the same.
    let cold = preview(&t, &["--no-cache", "--stats"]).code(1);
    preview(&t, &[]).code(1);
    let warm = preview(&t, &["--stats"]).code(1);
    assert_eq!(no_ids(&warm.stdout), no_ids(&cold.stdout));
    assert!(cold.stdout.contains("compare with is"), "{}", cold.stdout);
    assert_eq!(work_lines(&warm.stderr), work_lines(&cold.stderr));
    assert!(work_lines(&cold.stderr).iter().any(|l| l.starts_with("  most steps") && l.contains("src/a.py")), "{}", cold.stderr);
    // Served from the entry: one edited by hand shows; --no-cache ignores it.
    tamper(t.state.path(), "compare with is", "COMPARE WITH IS");
    let served = preview(&t, &["--preview-json"]).code(1);
    assert!(served.stdout.contains("COMPARE WITH IS"), "{}", served.stdout);
    let fresh = preview(&t, &["--preview-json", "--no-cache"]).code(1);
    assert!(fresh.stdout.contains("compare with is") && !fresh.stdout.contains("COMPARE"), "{}", fresh.stdout);
}

#[test]
fn a_preview_sees_a_file_rewritten_with_its_size_and_time_kept() {
    let t = project();
    preview(&t, &["--preview-json"]).code(1);
    assert_eq!(records(t.state.path(), PREVIEW), 2);
    rewrite_a_keeping_size_and_time(&t);
    let r = preview(&t, &["--preview-json"]).code(1);
    assert!(r.stdout.contains("+log(2)") && r.stdout.contains("+    log(q)"), "{}", r.stdout);
    assert_eq!(no_ids(&r.stdout), no_ids(&preview(&t, &["--preview-json", "--no-cache"]).stdout));
    // a.py's new bytes got an entry of their own; c.py was served.
    assert_eq!(records(t.state.path(), PREVIEW), 3);
}

#[test]
fn a_run_of_rules_uses_the_cache_and_a_run_of_patterns_does_not() {
    let t = project();
    t.write("req.json", serde_json::json!({"rule": RULES, "paths": ["src"]}).to_string());
    let run = |extra: &[&str]| {
        let r = t.run(&[&["run", "--request", "req.json", "--json"][..], extra].concat()).ok();
        t.run(&["resolve", "discard", "--reason", "again"]);
        r
    };
    let cold = run(&[]);
    assert_eq!(records(t.state.path(), PREVIEW), 2);
    let stored = entries(&t);
    assert_eq!(no_ids(&run(&[]).stdout), no_ids(&cold.stdout));
    assert_eq!(entries(&t), stored);
    tamper(t.state.path(), "compare with is", "COMPARE WITH IS");
    assert!(run(&[]).stdout.contains("COMPARE WITH IS"));
    assert_eq!(no_ids(&run(&["--no-cache"]).stdout), no_ids(&cold.stdout));
    // Patterns: nothing stored.
    t.run(&["run", "-p", "print($A)", "-r", "log($A)", "src"]).ok();
    assert_eq!(entries(&t), stored);
}

/// After `scan -U`, the rewrites of the files it wrote are stored: the next
/// preview of the same rules parses nothing (stores nothing new) and is the
/// preview without the cache.
#[test]
fn scan_u_stores_what_the_rules_make_of_the_files_it_wrote() {
    let t = project();
    t.run(&["scan", "-U"]).ok();
    assert_eq!(t.read("src/a.py"), "log(1)\nif x == None:\n    log(x)\n");
    // The old bytes of a.py and c.py, and a.py's new ones (c.py's, `log(c)`,
    // hold no rule's literal: the prefilter leaves them alone, no entry).
    assert_eq!(records(t.state.path(), PREVIEW), 3);
    let stored = entries(&t);
    let warm = preview(&t, &["--preview-json"]).ok();
    assert_eq!(entries(&t), stored, "served from the cache");
    assert_eq!(warm.stdout, preview(&t, &["--preview-json", "--no-cache"]).stdout);
    assert!(warm.stdout.contains("\"status\": \"no_changes\""), "{}", warm.stdout);
}

#[test]
fn resolve_apply_stores_what_the_rules_make_of_the_files_it_wrote() {
    let t = project();
    t.run(&["scan"]).code(1);
    assert_eq!(records(t.state.path(), PREVIEW), 2);
    t.run(&["resolve", "apply", "--reason", "fix"]).ok();
    assert_eq!(records(t.state.path(), PREVIEW), 3, "a.py's new bytes");
    let stored = entries(&t);
    let warm = preview(&t, &["--preview-json"]).ok();
    assert_eq!(entries(&t), stored, "served from the cache");
    assert_eq!(warm.stdout, preview(&t, &["--preview-json", "--no-cache"]).stdout);
}

#[test]
fn no_cache_reads_and_writes_nothing_for_previews_and_writes() {
    let t = project();
    preview(&t, &["--no-cache"]).code(1);
    t.write("req.json", serde_json::json!({"rule": RULES, "paths": ["src"]}).to_string());
    t.run(&["run", "--request", "req.json", "--no-cache"]).ok();
    t.run(&["resolve", "discard", "--reason", "again"]).ok();
    t.run(&["scan", "--no-cache"]).code(1);
    t.run(&["resolve", "apply", "--reason", "fix", "--no-cache"]).ok();
    t.write("src/c.py", "print(c)\n");
    t.run(&["scan", "-U", "--no-cache"]).ok();
    assert!(entries(&t).is_empty());
}

/// A project with rule tests: a valid and an invalid case of a rule with a
/// fix, the invalid one's snapshot kept.
fn rule_tests() -> Tree {
    let t = project();
    t.write("sgconfig.yml", "ruleDirs: [rules]\ntestConfigs:\n- testDir: rule-tests\n");
    t.write("rule-tests/no-print-test.yml", "id: no-print\nvalid:\n- log(1)\ninvalid:\n- print(1)\n");
    t.write(
        "rule-tests/__snapshots__/no-print-snapshot.yml",
        "id: no-print\nsnapshots:\n  print(1):\n    fixed: log(1)\n    labels:\n    - source: print(1)\n      style: primary\n      start: 0\n      end: 8\n",
    );
    t
}

#[test]
fn a_warm_rule_test_is_the_cold_one_and_is_served_from_the_cache() {
    let t = rule_tests();
    let cold = t.run(&["test"]).ok();
    assert!(cold.stdout.contains("PASS no-print"), "{}", cold.stdout);
    // Whether no-print matches log(1), and its snapshot of print(1).
    assert_eq!(records(t.state.path(), TEST), 2);
    let stored = entries(&t);
    let warm = t.run(&["test"]).ok();
    assert_eq!(warm.stdout, cold.stdout);
    assert_eq!(entries(&t), stored, "a hit stores nothing new");
    assert_eq!(t.run(&["test", "--json"]).stdout, t.run(&["test", "--json", "--no-cache"]).stdout);
    // A case whose code changed is judged again.
    t.write("rule-tests/no-print-test.yml", "id: no-print\nvalid:\n- print(2)\ninvalid:\n- print(1)\n");
    let r = t.run(&["test"]);
    let fresh = t.run(&["test", "--no-cache"]);
    assert_eq!((r.code, &r.stdout), (fresh.code, &fresh.stdout));
    assert!(r.stdout.contains("FAIL no-print"), "{}", r.stdout);
    // Served from the entry: a snapshot edited by hand fails the kept one.
    t.write("rule-tests/no-print-test.yml", "id: no-print\nvalid:\n- log(1)\ninvalid:\n- print(1)\n");
    tamper(t.state.path(), "\"fixed\":\"log(1)\"", "\"fixed\":\"LOG(1)\"");
    let served = t.run(&["test"]);
    assert!(served.code != 0 && served.stdout.contains("LOG(1)"), "{}", served.stdout);
    assert_eq!(t.run(&["test", "--no-cache"]).stdout, cold.stdout);
    // --no-cache reads and writes nothing.
    let t = rule_tests();
    t.run(&["test", "--no-cache"]).ok();
    assert!(entries(&t).is_empty());
}

#[test]
fn a_warm_search_of_rules_is_the_cold_one_and_is_served_from_the_cache() {
    let t = project();
    let cold = t.run(&["search", "--rule", "rules/r.yml", "--json"]).ok();
    assert_eq!(records(t.state.path(), COUNT), 2);
    let stored = entries(&t);
    assert_eq!(t.run(&["search", "--rule", "rules/r.yml", "--json"]).stdout, cold.stdout);
    assert_eq!(entries(&t), stored);
    tamper(t.state.path(), "compare with is", "COMPARE WITH IS");
    assert!(t.run(&["search", "--rule", "rules/r.yml", "--json"]).stdout.contains("COMPARE WITH IS"));
    assert_eq!(t.run(&["search", "--rule", "rules/r.yml", "--json", "--no-cache"]).stdout, cold.stdout);
    // A file rewritten with its size and time kept is searched again.
    rewrite_a_keeping_size_and_time(&t);
    let r = t.run(&["search", "--rule", "rules/r.yml", "--json"]).ok();
    assert!(r.stdout.contains("print(q)") && !r.stdout.contains("print(x)"), "{}", r.stdout);
    assert_eq!(r.stdout, t.run(&["search", "--rule", "rules/r.yml", "--json", "--no-cache"]).stdout);
    // --no-cache reads and writes nothing.
    let t = project();
    t.run(&["search", "--rule", "rules/r.yml", "--no-cache"]).ok();
    assert!(entries(&t).is_empty());
}

/// What a run shows of each file, by path.
type PerFile = std::collections::BTreeMap<String, Vec<String>>;

/// Per file, what a report (`scan --json=compact`) or a preview (`scan
/// --preview-json`: the file's diff and findings) shows of it.
fn per_file(stdout: &str) -> PerFile {
    let mut out = PerFile::new();
    let v: serde_json::Value = serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"));
    let items: Vec<&serde_json::Value> = match &v {
        serde_json::Value::Array(matches) => matches.iter().collect(),
        _ => v["files"].as_array().unwrap().iter().chain(v["findings"].as_array().unwrap()).collect(),
    };
    for m in items {
        let path = m.get("file").or_else(|| m.get("path")).and_then(|p| p.as_str()).unwrap();
        out.entry(path.to_string()).or_default().push(m.to_string());
    }
    out
}

/// Scans (reports and previews) run while `resolve apply` writes the files
/// they read (one while it waits after 4 of its 8 renames, so it meets files
/// of both states; the others as it goes on) and beside each other, round
/// after round: every file of
/// every output is what the run without the cache shows of the file before
/// the apply or of the file after it, never an entry of the other bytes
/// (stale) or part of one (torn); after the apply the whole output is the
/// after state's, from the entries the apply stored.
#[test]
fn scans_during_an_apply_and_beside_each_other_never_read_a_stale_or_torn_entry() {
    use std::io::BufRead;
    let t = project();
    let files: Vec<String> = (0..8).map(|i| format!("src/m{i}.py")).collect();
    let before = "print(aaaa)\nif x == None:\n    print(1)\n";
    let write_all = |text: &str| {
        for f in &files {
            t.write(f, text);
        }
    };
    let report = |cache: bool| t.run(if cache { &["scan", "--json=compact"][..] } else { &["scan", "--json=compact", "--no-cache"][..] });
    let previewed = |cache: bool| t.run(if cache { &["scan", "--preview-json"][..] } else { &["scan", "--preview-json", "--no-cache"][..] });
    // What each file shows, without the cache, before and after the apply
    // (after it nothing is left to fix: nothing is staged).
    write_all(before);
    let (report_before, preview_before) = (per_file(&report(false).stdout), per_file(&previewed(false).stdout));
    t.run(&["resolve", "discard", "--reason", "setup"]).ok();
    t.run(&["scan", "-U", "--no-cache"]).ok();
    let after = t.read("src/m0.py");
    assert_eq!(after, "log(aaaa)\nif x == None:\n    log(1)\n");
    let (report_after, preview_after) = (per_file(&report(false).stdout), per_file(&previewed(false).stdout));
    assert!(entries(&t).is_empty());
    // Each file of `got` is as before or as after; true when both are met.
    let one_of = |what: &str, round: usize, got: &PerFile, (b, a): (&PerFile, &PerFile)| {
        let mut states = (false, false);
        for f in &files {
            let shown = got.get(f);
            assert!(shown == b.get(f) || shown == a.get(f), "round {round}, {what} of {f}: {shown:?}\nbefore: {:?}\nafter: {:?}", b.get(f), a.get(f));
            states = (states.0 || shown == b.get(f), states.1 || shown == a.get(f));
        }
        states.0 && states.1
    };
    for round in 0..6 {
        write_all(before);
        let staged = previewed(true);
        let id = serde_json::from_str::<serde_json::Value>(&staged.stdout).unwrap()["id"].as_str().unwrap().to_string();
        // The apply stops after its 4th rename until `resume` exists.
        let resume = t.state.path().join(format!("resume-{round}"));
        let mut apply = t.command(&["resolve", "apply", "--reason", "stress", "--id", &id]);
        apply.env("AST_EDIT_PAUSE_AFTER_RENAME", "4").env("AST_EDIT_PAUSE_MS", "30000").env("AST_EDIT_RESUME_FILE", &resume);
        let mut child = apply.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped()).spawn().unwrap();
        let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
        let mut paused = String::new();
        stderr.read_line(&mut paused).unwrap();
        assert_eq!(paused, "paused after rename 4\n");
        // Half the files written: a scan meets both states.
        let half = report(true);
        assert!(one_of("report", round, &per_file(&half.stdout), (&report_before, &report_after)), "round {round}: {}", half.stdout);
        let (reports, previews) = std::thread::scope(|s| {
            let reports: Vec<_> = (0..2).map(|_| s.spawn(|| (0..3).map(|_| report(true)).collect::<Vec<Run>>())).collect();
            let previews = s.spawn(|| (0..2).map(|_| previewed(true)).collect::<Vec<Run>>());
            // The apply goes on while they run.
            std::thread::sleep(std::time::Duration::from_millis(50));
            std::fs::write(&resume, "").unwrap();
            (reports.into_iter().flat_map(|h| h.join().unwrap()).collect::<Vec<Run>>(), previews.join().unwrap())
        });
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
        assert!(child.wait().unwrap().success(), "round {round}: the apply failed: {rest}");
        for r in &reports {
            assert!(r.code == 0 || r.code == 1, "round {round}: {}", r.stderr);
            one_of("report", round, &per_file(&r.stdout), (&report_before, &report_after));
        }
        for r in &previews {
            assert!(r.code == 0 || r.code == 1, "round {round}: {}", r.stderr);
            one_of("preview", round, &per_file(&r.stdout), (&preview_before, &preview_after));
        }
        // After the apply, the whole of a warm run is the after state's.
        assert_eq!(per_file(&report(true).stdout), report_after, "round {round}");
        assert_eq!(per_file(&previewed(true).stdout), preview_after, "round {round}");
        assert_eq!(t.read("src/m0.py"), after);
    }
    assert!(records(t.state.path(), PREVIEW) >= 2 && !entries(&t).is_empty());
}
