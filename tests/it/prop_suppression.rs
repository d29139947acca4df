//! Property test: `scan -U` deletes exactly the `ast-grep-ignore` comments that
//! suppress nothing (docs/RULES.md, "Unused suppressions"), on random Python files
//! of used, unused, bare and trailing suppression comments, with LF or CRLF, in the
//! default layout and `--verbatim`: afterwards no comment is reported unused, every
//! comment that was not reported is still there, the code outside the comments is
//! unchanged, and the file parses as before.

use crate::common::{Run, Tree};
use proptest::prelude::*;
use serde_json::Value;

const RULE: &str = "ruleDirs: [rules]\n";
const LINT: &str = "id: p\nlanguage: python\nseverity: warning\nrule: {pattern: print($A)}\n";

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u8..9).prop_map(|n| format!("print({n})")),
        (0u8..9).prop_map(|n| format!("x = {n}")),
        Just("# ast-grep-ignore".to_string()),
        Just("# ast-grep-ignore: p".to_string()),
        Just("# ast-grep-ignore: other".to_string()),
        Just("# ast-grep-ignore: p, other".to_string()),
        (0u8..9).prop_map(|n| format!("print({n})  # ast-grep-ignore: p")),
        (0u8..9).prop_map(|n| format!("y = {n}  # ast-grep-ignore")),
        (0u8..9).prop_map(|n| format!("if x:\n    # ast-grep-ignore: p\n    print({n})")),
        (0u8..9).prop_map(|n| format!("if x:\n    # ast-grep-ignore\n    z = {n}")),
        Just(String::new()),
    ]
}

fn file() -> impl Strategy<Value = String> {
    (proptest::collection::vec(line(), 1..10), any::<bool>()).prop_map(|(lines, crlf)| {
        let eol = if crlf { "\r\n" } else { "\n" };
        lines.iter().map(|l| format!("{}{eol}", l.replace('\n', eol))).collect()
    })
}

/// The code without comments, trailing blanks and empty lines.
fn code(text: &str) -> Vec<String> {
    text.lines().map(|l| l.split('#').next().unwrap_or("").trim_end().to_string()).filter(|l| !l.is_empty()).collect()
}

/// The lines (0-based) of the unused-suppression records of a report.
fn unused_lines(r: &Run) -> Vec<u64> {
    assert_eq!(r.code, 0, "{}", r.stderr);
    let records: Vec<Value> = r.json();
    let mut lines: Vec<u64> = records.iter().filter(|m| m["ruleId"] == "unused-suppression").map(|m| m["range"]["start"]["line"].as_u64().unwrap()).collect();
    lines.sort();
    lines
}

fn unused(t: &Tree) -> Vec<u64> {
    unused_lines(&t.run(&["scan", "--json=compact"]))
}

/// The ERROR nodes of `t`'s files.
fn errors(t: &Tree) -> usize {
    let r = t.run(&["scan", "--inline-rules", "id: e\nlanguage: python\nrule: {kind: ERROR}\n", "--json=compact"]);
    let records: Vec<Value> = r.json();
    records.len()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    #[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
    fn update_all_deletes_exactly_the_unused_suppressions(text in file(), verbatim in any::<bool>()) {
        let t = Tree::empty();
        t.write("sgconfig.yml", RULE);
        t.write("rules/p.yml", LINT);
        t.write("a.py", &text);
        let errors_before = errors(&t);
        let comments = text.matches("ast-grep-ignore").count();
        let dropped = unused(&t);
        prop_assert_eq!(&dropped, &unused_lines(&t.peer(&["scan", "--json=compact"])), "{:?}", text);
        let mut args = vec!["scan", "-U"];
        if verbatim {
            args.push("--verbatim");
        }
        let r = t.run(&args);
        prop_assert_eq!(r.code, 0, "{}", r.stderr);
        let after = t.read("a.py");
        prop_assert!(unused(&t).is_empty(), "{:?} -> {:?}", text, after);
        prop_assert_eq!(after.matches("ast-grep-ignore").count(), comments - dropped.len(), "{:?} -> {:?}", text, after);
        prop_assert_eq!(code(&after), code(&text), "{:?} -> {:?}", text, after);
        prop_assert_eq!(errors(&t), errors_before, "{:?} -> {:?}", text, after);
    }
}
