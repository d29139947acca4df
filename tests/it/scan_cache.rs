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

/// The cache's entries in `t`'s state folder.
fn entries(t: &Tree) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let dir = t.state.path().join("scan-cache");
    for sub in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        for f in std::fs::read_dir(sub.path()).into_iter().flatten().flatten() {
            out.push(f.path());
        }
    }
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
    // a.py and c.py were parsed (b.py holds no rule's literal: no entry).
    let stored = entries(&t);
    assert_eq!(stored.len(), 2, "{stored:?}");
    let warm = scan(&t, &[]).code(1);
    assert_eq!(warm.stdout, cold.stdout);
    assert_eq!(entries(&t), stored, "a hit stores nothing new");
    // What is served is the entry: an entry edited by hand shows (this is how
    // the test knows a hit is not a second parse), and --no-cache ignores it.
    for e in &stored {
        let text = std::fs::read_to_string(e).unwrap().replace("no print of", "NO PRINT OF");
        std::fs::write(e, text).unwrap();
    }
    assert!(scan(&t, &[]).stdout.contains("NO PRINT OF"), "served from the cache");
    assert_eq!(scan(&t, &["--no-cache"]).stdout, cold.stdout);
    // An entry that does not parse is a miss, made again and stored again.
    for e in &stored {
        std::fs::write(e, "{ torn").unwrap();
    }
    assert_eq!(scan(&t, &[]).stdout, cold.stdout);
    assert!(entries(&t).iter().all(|e| std::fs::read_to_string(e).unwrap().starts_with('{') && !std::fs::read_to_string(e).unwrap().contains("torn")));
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
