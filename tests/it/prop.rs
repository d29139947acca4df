//! Property test: for random Python files with mixed line endings (a lone `\r`
//! among them, which `git apply` does not read as a line end), an optional BOM
//! and random call sites, preview -> `resolve apply` writes exactly what `git apply`
//! of the previewed diff gives, and `undo` restores the original bytes.

use crate::common::Tree;
use crate::common::json::Preview;
use proptest::prelude::*;

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u8..50).prop_map(|n| format!("f({n})")),
        (0u8..50).prop_map(|n| format!("x = f(f({n}))")),
        (0u8..50).prop_map(|n| format!("y = {n}")),
        Just("# f(comment)".to_string()),
        Just(String::new()),
        (0u8..9).prop_map(|n| format!("if y:\n    f({n})")),
    ]
}

fn file() -> impl Strategy<Value = Vec<u8>> {
    (proptest::collection::vec((line(), prop_oneof![3 => Just("\n"), 3 => Just("\r\n"), 1 => Just("\r")]), 1..12), any::<bool>(), any::<bool>()).prop_map(
        |(lines, bom, final_newline)| {
            let mut s = String::new();
            if bom {
                s.push('\u{feff}');
            }
            let n = lines.len();
            for (i, (l, eol)) in lines.into_iter().enumerate() {
                s.push_str(&l.replace('\n', eol));
                if i + 1 < n || final_newline {
                    s.push_str(eol);
                }
            }
            s.into_bytes()
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn preview_apply_equals_git_apply_of_the_diff_and_undo_restores(
        files in proptest::collection::vec(file(), 1..4),
        multiline in any::<bool>(),
    ) {
        let t = Tree::empty();
        let other = Tree::empty();
        for (i, f) in files.iter().enumerate() {
            t.write(&format!("m{i}.py"), f);
            other.write(&format!("m{i}.py"), f);
        }
        let original = t.snapshot();
        let out = if multiline { "g(\n    $A)" } else { "g($A)" };
        let r = t.run(&["run", "-p", "f($A)", "-r", out, "--json"]);
        prop_assert_eq!(r.code, 0, "{}", r.stderr);
        let p: Preview = r.json();
        prop_assert_eq!(&t.snapshot(), &original);
        if p.total_replacements == 0 {
            return Ok(());
        }
        let patch: String = p.files.iter().map(|f| f.diff.as_str()).collect();
        other.write("p.patch", &patch);
        let st = std::process::Command::new("git")
            .args(["apply", "--whitespace=nowarn", "p.patch"])
            .current_dir(other.path())
            .output()
            .unwrap();
        prop_assert!(st.status.success(), "git apply: {}\n{}", String::from_utf8_lossy(&st.stderr), patch);
        std::fs::remove_file(other.path().join("p.patch")).unwrap();
        let r = t.run(&["resolve", "apply", "--reason", "prop", "--extra", r#"{"allowSyntaxErrors":true}"#]);
        prop_assert_eq!(r.code, 0, "{}", r.stderr);
        prop_assert_eq!(&t.snapshot(), &other.snapshot());
        // Line endings: lines the rewrite inserts take the file's dominant ending, so
        // a CRLF file gains no bare LF and an LF file gains no CRLF.
        for (name, bytes) in t.snapshot() {
            let count = |b: &[u8]| {
                let crlf = b.windows(2).filter(|w| w == b"\r\n").count();
                (crlf, b.iter().filter(|&&c| c == b'\n').count() - crlf)
            };
            let (crlf, bare) = count(&bytes);
            let (ocrlf, obare) = count(&original[&name]);
            if ocrlf > 0 && ocrlf >= obare {
                prop_assert_eq!(bare, obare, "{} gained bare LFs", name);
            } else {
                prop_assert_eq!(crlf, ocrlf, "{} gained CRLFs", name);
            }
        }
        let r = t.run(&["undo"]);
        prop_assert_eq!(r.code, 0, "{}", r.stderr);
        prop_assert_eq!(&t.snapshot(), &original);
    }
}
