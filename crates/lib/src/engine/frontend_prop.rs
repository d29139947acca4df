//! Property test of the default rewrite judged by each language's own front
//! end (docs/DESIGN.md section 2.5.9): generated calls (multi-line arguments,
//! trailing commas, comments, strings with line continuations, operators of
//! every precedence) in generated places (after `.attr`, before `== x`, under
//! `-`, as a statement, a condition, a return value) rewritten by generated
//! templates (wrapping, unwrapping, operators, dropped and added arguments,
//! templates that break the line). Every write the engine does not flag
//! (`templateMismatch`, syntax errors, structure changes) must be accepted by
//! the language's compiler front end wherever the original was: CPython's
//! `compile`, V8 (`node`, `vm.Script`), rustfmt's parser. For Python, which
//! can say what code means, more: the new module's `ast` must be the one of
//! the template written with each captured expression in parentheses, which
//! is "the template's tree with the captures' trees in place" (up to `or` and
//! `and` runs, which `ast` flattens: `(a or b) or c` is `a or b or c`).
//!
//! The cases are drawn from a fixed seed and judged in one process per
//! language (rustfmt: one per case), so the test is deterministic. A missing
//! front end fails the test with what to install; it never passes unjudged.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use ast_grep_language::SupportLang;

use super::template_prop::engine;
use super::{rewrite, RewriteOptions};

/// A small deterministic generator (xorshift), so that a failure names a
/// case that reruns the same.
struct Gen(u64);

impl Gen {
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        &items[(self.0 % items.len() as u64) as usize]
    }
    fn chance(&mut self, one_in: u64) -> bool {
        *self.pick(&(0..one_in).collect::<Vec<_>>()) == 0
    }
}

/// What a language gives the generator.
struct Lang {
    lang: SupportLang,
    ext: &'static str,
    /// Places for the call (`CALL`), each a whole file.
    places: &'static [&'static str],
    /// Arguments.
    args: &'static [&'static str],
    /// Templates over `$A` (one argument), `$A, $B` (two) or `$$$A` (any).
    one: &'static [&'static str],
    two: &'static [&'static str],
    any: &'static [&'static str],
    comment: &'static str,
}

const PYTHON: Lang = Lang {
    lang: SupportLang::Python,
    ext: "py",
    places: &[
        "r = CALL\n",
        "r = CALL.attr\n",
        "r = CALL(1)\n",
        "r = CALL == 3\n",
        "r = -CALL\n",
        "r = [CALL, 2]\n",
        "if CALL:\n    pass\n",
        "def m():\n    return CALL\n",
        "def m():\n    for _ in CALL:\n        pass\n",
        "class C:\n    def m(self):\n        assert CALL\n",
        "x = 1 if CALL else 2\n",
    ],
    args: &["a", "b.c", "x + y", "a or b", "a in b", "not a", "lambda: 1", "(a, b)", "\"s \\\nt\"", "\"\"\"d\n  e\"\"\"", "x if c else y", "a == b", "g(a)", "-a", "k=1", "*a"],
    one: &["$A", "($A)", "g($A)", "$A.attr", "$A == 1", "$A + 1", "not $A", "- $A", "[$A]", "$A[0]", "g($A, e)", "($A,)", "$A if c else None", "($A).attr"],
    two: &["$A == $B", "$A($B)", "g($B, $A)", "($A, $B)", "$A in $B", "$A or $B", "$B", "g($A)", "[$A, $B]"],
    any: &["g($$$A)", "g($$$A, e)", "g(e, $$$A)", "[$$$A]", "($$$A)"],
    comment: "# c",
};

const JAVASCRIPT: Lang = Lang {
    lang: SupportLang::JavaScript,
    ext: "js",
    places: &[
        "r = CALL;\n",
        "r = CALL.attr;\n",
        "r = CALL(1);\n",
        "r = CALL === 3;\n",
        "r = -CALL;\n",
        "r = [CALL, 2];\n",
        "if (CALL) {\n}\n",
        "function m() {\n  return CALL;\n}\n",
        "async function m() {\n  return await CALL;\n}\n",
        "x = c ? CALL : 2;\n",
        "new CALL;\n",
    ],
    args: &["a", "b.c", "x + y", "a || b", "a in b", "!a", "() => 1", "[a, b]", "\"s \\\nt\"", "`t\n  u`", "c ? x : y", "a === b", "g(a)", "-a", "...a", "{ k: 1 }", "a, b"],
    one: &["$A", "($A)", "g($A)", "$A.attr", "$A === 1", "$A + 1", "!$A", "- $A", "[$A]", "$A[0]", "g($A, e)", "await $A", "new $A", "typeof $A", "void $A"],
    two: &["$A === $B", "$A($B)", "g($B, $A)", "[$A, $B]", "$A in $B", "$A || $B", "$B", "g($A)", "$A, $B"],
    any: &["g($$$A)", "g($$$A, e)", "g(e, $$$A)", "[$$$A]", "($$$A)"],
    comment: "// c",
};

const RUST: Lang = Lang {
    lang: SupportLang::Rust,
    ext: "rs",
    places: &[
        "fn m() {\n    let r = CALL;\n}\n",
        "fn m() {\n    let r = CALL.attr;\n}\n",
        "fn m() {\n    let r = CALL(1);\n}\n",
        "fn m() {\n    let r = CALL == 3;\n}\n",
        "fn m() {\n    let r = -CALL;\n}\n",
        "fn m() {\n    let r = &CALL;\n}\n",
        "fn m() {\n    if CALL {}\n}\n",
        "fn m() -> R {\n    CALL\n}\n",
        "fn m() -> R {\n    let r = CALL?;\n    r\n}\n",
        "fn m() {\n    let r = vec![CALL];\n}\n",
        "fn m() {\n    match CALL {\n        _ => {}\n    }\n}\n",
    ],
    args: &["a", "b.c", "x + y", "a || b", "!a", "&a", "|x| x + 1", "(a, b)", "\"s \\\nt\"", "r#\"r\n  s\"#", "a as u8", "a == b", "g(a)", "-a", "S { k: 1 }", "if c { x } else { y }"],
    one: &["$A", "($A)", "g($A)", "$A.attr", "$A == 1", "$A + 1", "!$A", "- $A", "[$A]", "$A[0]", "g($A, e)", "$A?", "&$A", "$A as u8", "Box::new($A)", "($A,)"],
    two: &["$A == $B", "$A($B)", "g($B, $A)", "($A, $B)", "$A || $B", "$B", "g($A)", "[$A, $B]"],
    any: &["g($$$A)", "g($$$A, e)", "g(e, $$$A)", "[$$$A]", "($$$A)"],
    comment: "// c",
};

/// One generated case and what the engine wrote.
struct Case {
    src: String,
    pat: &'static str,
    out: String,
    new: String,
    /// Python only: the template with each captured expression in
    /// parentheses, in parentheses itself in place of the call: what the new
    /// text must mean (parentheses around an expression are no node of
    /// Python's `ast`).
    oracle: Option<String>,
}

/// Draws a call's arguments and writes it: each argument on its own line or
/// not, a comment between two, a trailing comma.
fn call(g: &mut Gen, l: &Lang, n: usize) -> (String, Vec<&'static str>) {
    let args: Vec<&'static str> = (0..n).map(|_| *g.pick(l.args)).collect();
    let broken = g.chance(2);
    let sep = if broken { ",\n        " } else { ", " };
    let mut s = String::from("f(");
    if broken {
        s.push_str("\n        ");
    }
    for (k, a) in args.iter().enumerate() {
        if k > 0 {
            s.push_str(sep);
            if g.chance(5) {
                s.push_str(&format!("{}\n        ", l.comment));
            }
        }
        s.push_str(a);
    }
    if g.chance(2) {
        s.push(',');
    }
    if broken {
        s.push_str("\n    ");
    }
    s.push(')');
    (s, args)
}

/// `n` cases of `l`, each rewritten by the engine in its default mode; the
/// flagged ones are left out (apply refuses them).
fn cases(l: &Lang, seed: u64, n: usize) -> Vec<Case> {
    let mut g = Gen(seed);
    let mut out = Vec::new();
    for _ in 0..n {
        let (pat, tpl, nargs) = match *g.pick(&[0, 1, 2]) {
            0 => ("f($A)", *g.pick(l.one), 1),
            1 => ("f($A, $B)", *g.pick(l.two), 2),
            _ => ("f($$$A)", *g.pick(l.any), *g.pick(&[1, 2, 3])),
        };
        let (text, args) = call(&mut g, l, nargs);
        let place = *g.pick(l.places);
        let src = place.replace("CALL", &text);
        let Some(e) = engine(pat, tpl, l.lang) else { continue };
        let ops = e.ops_for(l.lang, Path::new(&format!("/x.{}", l.ext)));
        let opts = RewriteOptions { prefilter: false, check_syntax: true, rewrite_nested: false, verbatim: false };
        let Some(r) = rewrite(&ops, l.lang, &src, opts) else { continue };
        if r.edits.is_empty() || r.template.mismatched > 0 || r.errors_after > r.errors_before || r.structure.changed {
            continue;
        }
        let oracle = (l.lang == SupportLang::Python).then(|| {
            let (a, b) = (args.first().copied().unwrap_or_default(), args.get(1).copied().unwrap_or_default());
            let all = &text[text.find(args[0]).unwrap_or(2)..text.rfind(args[nargs - 1]).map_or(2, |k| k + args[nargs - 1].len())];
            let t = tpl.replace("$$$A", all).replace("$A", &format!("({a})")).replace("$B", &format!("({b})"));
            place.replace("CALL", &format!("({t})"))
        });
        out.push(Case { src, pat, out: tpl.to_string(), new: String::from_utf8(r.new_text).expect("UTF-8"), oracle });
    }
    out
}

/// Runs `program args` with `input` on stdin and returns its stdout; panics
/// with what to install when it cannot run.
fn run(program: &str, args: &[&str], input: &str) -> String {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("this test judges with `{program}`, which could not run ({e}): install it (see .ci/run)"));
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("write to the judge");
    let out = child.wait_with_output().expect("the judge ends");
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// The violations among `cases`, in words.
fn report(cases: &[Case], verdicts: &[String]) -> Vec<String> {
    cases
        .iter()
        .zip(verdicts)
        .filter(|(_, v)| v.as_str() != "ok")
        .map(|(c, v)| format!("{v}: `{}` -> `{}` on\n{}\nwrote\n{}", c.pat, c.out, c.src, c.new))
        .collect()
}

/// CPython judges every case: `ok`, `rejected` (the original compiles, the
/// new text does not) or `means otherwise` (its `ast` is not the oracle's,
/// where the oracle compiles).
const PYTHON_JUDGE: &str = r#"
import ast, json, sys
class Flat(ast.NodeTransformer):
    # `(a or b) or c` is `a or b or c`: one BoolOp in CPython's ast.
    def visit_BoolOp(self, node):
        self.generic_visit(node)
        values = []
        for v in node.values:
            values.extend(v.values if isinstance(v, ast.BoolOp) and type(v.op) is type(node.op) else [v])
        node.values = values
        return node
def tree(s):
    try:
        return ast.dump(Flat().visit(ast.parse(s)))
    except SyntaxError:
        return None
out = []
for c in json.load(sys.stdin):
    before, after = tree(c["src"]), tree(c["new"])
    oracle = tree(c["oracle"]) if c["oracle"] else None
    if before is not None and after is None:
        out.append("rejected")
    elif before is not None and oracle is not None and after != oracle:
        out.append("means otherwise")
    else:
        out.append("ok")
print(json.dumps(out))
"#;

/// V8 judges every case: `ok` or `rejected`. A text parses when it parses as
/// a script or as a module (where `await` may stand at the top level).
const NODE_JUDGE: &str = r#"
const vm = require("vm");
const parses = (f) => { try { f(); return true; } catch (e) { return false; } };
const ok = (s) => parses(() => new vm.Script(s)) || parses(() => new vm.SourceTextModule(s));
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
console.log(JSON.stringify(cases.map((c) => (ok(c.src) && !ok(c.new) ? "rejected" : "ok"))));
"#;

fn judged_in_one_process(program: &str, args: &[&str], cases: &[Case]) -> Vec<String> {
    let input = serde_json::Value::Array(cases.iter().map(|c| serde_json::json!({"src": c.src, "new": c.new, "oracle": c.oracle})).collect());
    let out = run(program, args, &input.to_string());
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("`{program}` answered {out:?}: {e}"))
}

#[test]
fn unflagged_python_writes_compile_and_mean_the_template() {
    let cases = cases(&PYTHON, 0x9E37_79B9_7F4A_7C15, 700);
    assert!(cases.len() > 200, "too few unflagged cases to judge: {}", cases.len());
    let verdicts = judged_in_one_process("python3", &["-c", PYTHON_JUDGE], &cases);
    let bad = report(&cases, &verdicts);
    assert!(bad.is_empty(), "{} of {} unflagged writes:\n\n{}", bad.len(), cases.len(), bad.join("\n\n"));
}

#[test]
fn unflagged_javascript_writes_parse_where_the_original_did() {
    let cases = cases(&JAVASCRIPT, 0x2545_F491_4F6C_DD1D, 700);
    assert!(cases.len() > 200, "too few unflagged cases to judge: {}", cases.len());
    let verdicts = judged_in_one_process("node", &["--experimental-vm-modules", "--no-warnings", "-e", NODE_JUDGE], &cases);
    let bad = report(&cases, &verdicts);
    assert!(bad.is_empty(), "{} of {} unflagged writes:\n\n{}", bad.len(), cases.len(), bad.join("\n\n"));
}

#[test]
fn unflagged_rust_writes_parse_where_the_original_did() {
    let parses = |s: &str| {
        let mut child = Command::new("rustfmt")
            .args(["--edition", "2021", "--emit", "stdout"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("this test judges with `rustfmt`, which could not run ({e}): `rustup component add rustfmt`"));
        child.stdin.take().expect("stdin").write_all(s.as_bytes()).expect("write to rustfmt");
        child.wait().expect("rustfmt ends").success()
    };
    let cases = cases(&RUST, 0xD1B5_4A32_D192_ED03, 400);
    assert!(cases.len() > 120, "too few unflagged cases to judge: {}", cases.len());
    let verdicts: Vec<String> = cases.iter().map(|c| if parses(&c.src) && !parses(&c.new) { "rejected".into() } else { "ok".into() }).collect();
    let bad = report(&cases, &verdicts);
    assert!(bad.is_empty(), "{} of {} unflagged writes:\n\n{}", bad.len(), cases.len(), bad.join("\n\n"));
}
