//! Messages that used to mislead, through the real binary: each says what
//! happened in the words of the command that was run.

use crate::common::Tree;

/// `scan -U` stages nothing, so a refused apply's ways on are its own flags,
/// not `resolve --extra`.
#[test]
fn a_refused_scan_u_names_its_own_flags() {
    let t = Tree::empty();
    t.write("a.py", "def f():\n    foo(1)\n");
    t.write("r.yml", "id: broken\nlanguage: python\nrule: {pattern: foo($A)}\nfix: foo($A\n");
    let r = t.run(&["scan", "-r", "r.yml", "-U"]);
    assert_eq!(r.code, 11, "{}", r.stderr);
    assert!(r.stderr.contains("To write these too, run it again with `--allow-flagged`."), "{}", r.stderr);
    assert!(!r.stderr.contains("--extra") && !r.stderr.contains("resolve apply"), "{}", r.stderr);
    assert_eq!(t.read("a.py"), "def f():\n    foo(1)\n");
}

/// YAML that expands past the reader's limits is not called invalid YAML.
#[test]
fn a_yaml_bomb_is_over_the_readers_limits_not_invalid() {
    let t = Tree::empty();
    t.write("a.py", "print(1)\n");
    let mut bomb = String::from("a: &a [x,x,x,x,x,x,x,x,x]\n");
    for (k, name) in ["b", "c", "d", "e", "f", "g"].iter().enumerate() {
        let prev = ["a", "b", "c", "d", "e", "f"][k];
        bomb.push_str(&format!("{name}: &{name} [{}]\n", vec![format!("*{prev}"); 9].join(",")));
    }
    bomb.push_str("h: [*g,*g,*g,*g,*g,*g,*g,*g,*g]\nid: x\nlanguage: python\nrule: {pattern: print($A)}\n");
    t.write("bomb.yml", &bomb);
    let r = t.run(&["search", "--rule", "bomb.yml"]).code(2);
    assert!(r.stderr.starts_with("error: `rule` is more YAML than the reader takes (anchors and aliases count as what they expand to"), "{}", r.stderr);
    assert!(!r.stderr.contains("not valid YAML"), "{}", r.stderr);
}

/// A rule id too long for a file name: said before anything is written, not
/// the system's "File name too long".
#[test]
fn a_rule_id_too_long_for_its_snapshot_file_is_refused() {
    let t = Tree::empty();
    let id = "r".repeat(300);
    t.write("proj/sgconfig.yml", "ruleDirs: [rules]\ntestConfigs:\n  - testDir: tests\n");
    t.write("proj/rules/r.yml", format!("id: {id}\nlanguage: python\nrule: {{pattern: print($A)}}\nfix: log($A)\n"));
    t.write("proj/tests/r.yml", format!("id: {id}\nvalid: ['x = 1']\ninvalid: ['print(1)']\n"));
    let before = t.snapshot();
    let r = t.run(&["test", "-c", "proj/sgconfig.yml", "-U"]).code(2);
    assert!(r.stderr.contains("its id is 300 bytes, too long for the name of its snapshot file `<id>-snapshot.yml` (at most 255 bytes)"), "{}", r.stderr);
    assert!(!r.stderr.contains("os error"), "{}", r.stderr);
    assert_eq!(t.snapshot(), before);
}

/// `$A` alone: one message that says why, not one per language, and no
/// language suggested for it.
#[test]
fn a_metavariable_alone_says_why_once() {
    let t = Tree::fixtures();
    let r = t.run(&["search", "-p", "$A"]).code(2);
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{}", r.stderr);
    assert!(lines[0].starts_with("error: ops[0].pat `$A` is a metavariable alone, which would match every node of every file"), "{}", r.stderr);
}

/// An installed binary has no docs/ beside it: its messages and every
/// subcommand's `--help` point to `ast-edit help TOPIC` or a section of the
/// README, never to a path of the repository.
#[test]
fn messages_and_help_cite_no_repository_path() {
    let t = Tree::empty();
    let r = t.run(&["scan"]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(r.stderr.contains("the README's section \"A rule project in CI\" shows one; `ast-edit help scan`"), "{}", r.stderr);
    t.write("old.json", r#"{"rules": [{"id": "x", "lang": "python", "ops": [{"pat": "a($A)", "out": "b($A)"}]}]}"#);
    let r = t.run(&["scan", "-r", "old.json"]);
    let said = format!("{}{}", r.stdout, r.stderr);
    let repo_path = regex::Regex::new(r"\b(docs/[\w./-]+|crates/lib/src/[\w./-]+|tests/it/[\w./-]+)").unwrap();
    assert!(!repo_path.is_match(&said), "{said}");
    let top = t.run(&["--help"]).ok().stdout;
    let subcommands: Vec<String> = top
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect();
    assert!(subcommands.len() >= 12, "{top}");
    for sub in subcommands {
        let help = t.run(&[sub.as_str(), "--help"]).stdout;
        if let Some(m) = repo_path.find(&help) {
            panic!("`ast-edit {sub} --help` cites {}, which an installed binary has no copy of:\n{help}", m.as_str());
        }
    }
}
