//! The scan cache of reports (docs/DESIGN.md section 2.14), through the
//! binary: a warm report is the cold one byte for byte and is served from the
//! cache; a file rewritten with its size and modification time kept, a rule
//! edited and a severity flag are each seen; `--no-cache` reads and writes
//! nothing; scans at once never read a torn or stale entry.

use std::path::PathBuf;

use crate::common::{Run, Tree};

const RULES: &str = "id: no-print\nlanguage: python\nseverity: error\nmessage: no print of $A\nrule: {pattern: print($A)}\nfix: log($A)\n---\nid: eq-none\nlanguage: python\nseverity: warning\nmessage: compare with is\nrule: {pattern: $A == None}\n";

fn project() -> Tree {
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
    let dir = t.state.path().join("scan-cache");
    let mut out: Vec<PathBuf> =
        std::fs::read_dir(&dir).into_iter().flatten().flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "pack")).collect();
    out.sort();
    out
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
    for e in &stored {
        // The same length: the pack's index still holds.
        let mut bytes = std::fs::read(e).unwrap();
        let (from, to) = (b"no print of", b"NO PRINT OF");
        let mut i = 0;
        while let Some(p) = bytes[i..].windows(from.len()).position(|w| w == from) {
            bytes[i + p..i + p + to.len()].copy_from_slice(to);
            i += p + to.len();
        }
        std::fs::write(e, bytes).unwrap();
    }
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

#[test]
fn a_file_rewritten_with_its_size_and_time_kept_a_rule_edited_and_a_severity_flag_are_seen() {
    let t = project();
    scan(&t, &[]).code(1);
    // Same size, same modification time, other bytes: the content decides.
    let a = t.path().join("src/a.py");
    let before = std::fs::metadata(&a).unwrap();
    std::fs::write(&a, "print(2)\nif z == None:\n    print(q)\n").unwrap();
    std::fs::File::options().write(true).open(&a).unwrap().set_modified(before.modified().unwrap()).unwrap();
    let after = std::fs::metadata(&a).unwrap();
    assert_eq!((after.len(), after.modified().unwrap()), (before.len(), before.modified().unwrap()));
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
    t.write("rules/r.yml", &RULES.replace("rule: {pattern: print($A)}", "files: [src/**]\nrule: {pattern: print($A)}"));
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
