//! Property test of the default rewrite and of `--verbatim` judged by each language's
//! own front end (docs/DESIGN.md §2.5.9): generated calls in generated places rewritten
//! by generated templates. Every write the engine does not flag, in either layout, must
//! be accepted by CPython, V8, rustfmt's parser or Go's `go/parser` wherever the
//! original was, and mean what the template says (the tree of the template with each
//! capture in parentheses). What is generated, the trees compared, and why the test is
//! deterministic and never passes unjudged: docs/DESIGN.md §8.4.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use ast_grep_language::{LanguageExt, SupportLang};

use crate::engine::template::template_prop::engine;
use crate::engine::{RewriteOptions, rewrite};

/// A small deterministic generator (xorshift), so that a failure names a
/// case that reruns the same.
pub(in crate::engine) struct Gen(pub(in crate::engine) u64);

impl Gen {
    pub(in crate::engine) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
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
pub(in crate::engine) struct Lang {
    pub(in crate::engine) lang: SupportLang,
    ext: &'static str,
    /// Places for the call (`CALL`), each a whole file.
    places: &'static [&'static str],
    /// Arguments.
    args: &'static [&'static str],
    /// Templates over `$A` (one argument), `$A, $B` (two) or `$$$A` (any).
    pub(in crate::engine) one: &'static [&'static str],
    pub(in crate::engine) two: &'static [&'static str],
    pub(in crate::engine) any: &'static [&'static str],
    comment: &'static str,
    /// A call whose `)` starts a line needs a `,` after its last argument (Go).
    comma_before_broken_close: bool,
}

pub(in crate::engine) const PYTHON: Lang = Lang {
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
    args: &[
        "a",
        "b.c",
        "x + y",
        "a or b",
        "a in b",
        "not a",
        "lambda: 1",
        "(a, b)",
        "\"s \\\nt\"",
        "\"\"\"d\n  e\"\"\"",
        "x if c else y",
        "a == b",
        "g(a)",
        "-a",
        "k=1",
        "*a",
    ],
    one: &["$A", "($A)", "g($A)", "$A.attr", "$A == 1", "$A + 1", "not $A", "- $A", "[$A]", "$A[0]", "g($A, e)", "($A,)", "$A if c else None", "($A).attr"],
    two: &["$A == $B", "$A($B)", "g($B, $A)", "($A, $B)", "$A in $B", "$A or $B", "$B", "g($A)", "[$A, $B]"],
    any: &["g($$$A)", "g($$$A, e)", "g(e, $$$A)", "[$$$A]", "($$$A)"],
    comment: "# c",
    comma_before_broken_close: false,
};

pub(in crate::engine) const JAVASCRIPT: Lang = Lang {
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
    args: &[
        "a",
        "b.c",
        "x + y",
        "a || b",
        "a in b",
        "!a",
        "() => 1",
        "[a, b]",
        "\"s \\\nt\"",
        "`t\n  u`",
        "c ? x : y",
        "a === b",
        "g(a)",
        "-a",
        "...a",
        "{ k: 1 }",
        "a, b",
    ],
    one: &["$A", "($A)", "g($A)", "$A.attr", "$A === 1", "$A + 1", "!$A", "- $A", "[$A]", "$A[0]", "g($A, e)", "await $A", "new $A", "typeof $A", "void $A"],
    two: &["$A === $B", "$A($B)", "g($B, $A)", "[$A, $B]", "$A in $B", "$A || $B", "$B", "g($A)", "$A, $B"],
    any: &["g($$$A)", "g($$$A, e)", "g(e, $$$A)", "[$$$A]", "($$$A)"],
    comment: "// c",
    comma_before_broken_close: false,
};

pub(in crate::engine) const TYPESCRIPT: Lang = Lang {
    lang: SupportLang::TypeScript,
    ext: "ts",
    places: &[
        "r = CALL;\n",
        "r = CALL.attr;\n",
        "r = CALL(1);\n",
        "r = CALL === 3;\n",
        "r = -CALL;\n",
        "r = [CALL, 2];\n",
        "if (CALL) {\n}\n",
        "function m(): T {\n  return CALL;\n}\n",
        "async function m() {\n  return await CALL;\n}\n",
        "const x: T = c ? CALL : 2;\n",
        "const f = () => CALL;\n",
    ],
    args: &[
        "a",
        "b.c",
        "x + y",
        "a || b",
        "a in b",
        "!a",
        "() => 1",
        "[a, b]",
        "\"s \\\nt\"",
        "`t\n  u`",
        "c ? x : y",
        "a === b",
        "g(a)",
        "-a",
        "...a",
        "{ k: 1 }",
        "a as T",
        "a!",
        "<T>a",
    ],
    one: &[
        "$A",
        "($A)",
        "g($A)",
        "$A.attr",
        "$A === 1",
        "$A + 1",
        "!$A",
        "- $A",
        "[$A]",
        "$A[0]",
        "g($A, e)",
        "await $A",
        "$A as T",
        "$A!",
        "typeof $A",
        "<T>$A",
        "$A satisfies T",
    ],
    two: &["$A === $B", "$A($B)", "g($B, $A)", "[$A, $B]", "$A in $B", "$A || $B", "$B", "g<T>($A)", "$A as $B"],
    any: &["g($$$A)", "g($$$A, e)", "g(e, $$$A)", "[$$$A]", "($$$A)"],
    comment: "// c",
    comma_before_broken_close: false,
};

pub(in crate::engine) const GO: Lang = Lang {
    lang: SupportLang::Go,
    ext: "go",
    places: &[
        "package p\n\nfunc m() {\n\tr := CALL\n\t_ = r\n}\n",
        "package p\n\nfunc m() {\n\tr := CALL.attr\n\t_ = r\n}\n",
        "package p\n\nfunc m() {\n\tr := CALL(1)\n\t_ = r\n}\n",
        "package p\n\nfunc m() {\n\tr := CALL == 3\n\t_ = r\n}\n",
        "package p\n\nfunc m() {\n\tr := -CALL\n\t_ = r\n}\n",
        "package p\n\nfunc m() {\n\tr := []int{CALL, 2}\n\t_ = r\n}\n",
        "package p\n\nfunc m() {\n\tif CALL {\n\t}\n}\n",
        "package p\n\nfunc m() int {\n\treturn CALL\n}\n",
        "package p\n\nfunc m() {\n\tfor range CALL {\n\t}\n}\n",
        "package p\n\nfunc m() {\n\tswitch CALL {\n\t}\n}\n",
        "package p\n\nfunc m() {\n\tCALL\n}\n",
        "package p\n\nvar v = CALL\n",
    ],
    args: &[
        "a",
        "b.c",
        "x + y",
        "a || b",
        "!a",
        "&a",
        "func() int { return 1 }",
        "\"s\"",
        "`r\n  s`",
        "a.(T)",
        "a == b",
        "g(a)",
        "-a",
        "T{k: 1}",
        "<-ch",
        "*p",
    ],
    one: &["$A", "($A)", "g($A)", "$A.attr", "$A == 1", "$A + 1", "!$A", "-$A", "[]int{$A}", "$A[0]", "g($A, e)", "&$A", "*$A", "<-$A", "$A.(T)"],
    two: &["$A == $B", "$A($B)", "g($B, $A)", "$A || $B", "$B", "g($A)", "[]int{$A, $B}", "$A[$B]"],
    any: &["g($$$A)", "g($$$A, e)", "g(e, $$$A)", "[]int{$$$A}", "h($$$A)"],
    comment: "// c",
    comma_before_broken_close: true,
};

pub(in crate::engine) const RUST: Lang = Lang {
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
    args: &[
        "a",
        "b.c",
        "x + y",
        "a || b",
        "!a",
        "&a",
        "|x| x + 1",
        "(a, b)",
        "\"s \\\nt\"",
        "r#\"r\n  s\"#",
        "a as u8",
        "a == b",
        "g(a)",
        "-a",
        "S { k: 1 }",
        "if c { x } else { y }",
    ],
    one: &[
        "$A",
        "($A)",
        "g($A)",
        "$A.attr",
        "$A == 1",
        "$A + 1",
        "!$A",
        "- $A",
        "[$A]",
        "$A[0]",
        "g($A, e)",
        "$A?",
        "&$A",
        "$A as u8",
        "Box::new($A)",
        "($A,)",
    ],
    two: &["$A == $B", "$A($B)", "g($B, $A)", "($A, $B)", "$A || $B", "$B", "g($A)", "[$A, $B]"],
    any: &["g($$$A)", "g($$$A, e)", "g(e, $$$A)", "[$$$A]", "($$$A)"],
    comment: "// c",
    comma_before_broken_close: false,
};

/// One generated case and what the engine wrote.
pub(in crate::engine) struct Case {
    pub(in crate::engine) src: String,
    pub(in crate::engine) pat: String,
    pub(in crate::engine) out: String,
    pub(in crate::engine) new: String,
    /// The template with each captured expression in parentheses (a `$$$`
    /// capture as it was), in parentheses itself in place of the call: what
    /// the new text must mean, parentheses around an expression being no node
    /// of the judges' trees. None inside a Rust macro, whose token trees keep
    /// parentheses.
    pub(in crate::engine) oracle: Option<String>,
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
    if g.chance(2) || (broken && l.comma_before_broken_close) {
        s.push(',');
    }
    if broken {
        s.push_str("\n    ");
    }
    s.push(')');
    (s, args)
}

/// `n` cases of `l`, each rewritten by the engine in its default mode or, with
/// `verbatim`, as ast-grep writes it; the flagged ones are left out (apply
/// refuses them).
fn cases(l: &Lang, seed: u64, n: usize, verbatim: bool) -> Vec<Case> {
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
        let opts = RewriteOptions { prefilter: false, check_syntax: true, rewrite_nested: false, verbatim };
        let Some(r) = rewrite(&ops, l.lang, &src, opts) else { continue };
        if r.edits.is_empty() || r.template.mismatched > 0 || r.errors_after > r.errors_before || r.structure.changed {
            continue;
        }
        let oracle = (!place.contains("![")).then(|| {
            let (a, b) = (args.first().copied().unwrap_or_default(), args.get(1).copied().unwrap_or_default());
            let all = &text[text.find(args[0]).unwrap_or(2)..text.rfind(args[nargs - 1]).map_or(2, |k| k + args[nargs - 1].len())];
            let t = tpl.replace("$$$A", all).replace("$A", &format!("({a})")).replace("$B", &format!("({b})"));
            place.replace("CALL", &format!("({t})"))
        });
        out.push(Case { src, pat: pat.to_string(), out: tpl.to_string(), new: String::from_utf8(r.new_text).expect("UTF-8"), oracle });
    }
    out
}

/// Runs `program args` with `input` on stdin and returns its stdout; panics
/// with what to install when it cannot run.
pub(in crate::engine) fn run(program: &str, args: &[&str], input: &str) -> String {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("this test judges with `{program}`, which could not run ({e}): install it (see .ci/run)"));
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("write to the judge");
    let out = child.wait_with_output().expect("the judge ends");
    assert!(out.status.success(), "`{program}` failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// The violations among `cases`, in words.
fn report(cases: &[Case], verdicts: &[String]) -> Vec<String> {
    cases
        .iter()
        .zip(verdicts)
        .filter(|(_, v)| v.as_str() != "ok")
        .map(|(c, v)| {
            if c.src.len() < 2000 {
                format!("{v}: `{}` -> `{}` on\n{}\nwrote\n{}", c.pat, c.out, c.src, c.new)
            } else {
                let diff = similar::TextDiff::from_lines(&c.src, &c.new).unified_diff().context_radius(1).to_string();
                format!("{v}: `{}` -> `{}`:\n{}", c.pat, c.out, crate::shared::text::ellipsized(&diff, 3000))
            }
        })
        .collect()
}

/// CPython judges every case: `ok`, `rejected` (the original compiles, the
/// new text does not) or `means otherwise` (its `ast` is not the oracle's,
/// where the oracle compiles).
pub(in crate::engine) const PYTHON_JUDGE: &str = r#"
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
pub(in crate::engine) const NODE_JUDGE: &str = r#"
const vm = require("vm");
const parses = (f) => { try { f(); return true; } catch (e) { return false; } };
const ok = (s) => parses(() => new vm.Script(s)) || parses(() => new vm.SourceTextModule(s));
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
console.log(JSON.stringify(cases.map((c) => (ok(c.src) && !ok(c.new) ? "rejected" : "ok"))));
"#;

/// TypeScript's own parser (`ts.createSourceFile`, the package npm installs
/// globally, whose path is the first argument) judges every case: `ok` or
/// `rejected`.
const TS_JUDGE: &str = r#"
const ts = require(process.argv[1]);
const ok = (s) => ts.createSourceFile("x.ts", s, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS).parseDiagnostics.length === 0;
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
console.log(JSON.stringify(cases.map((c) => (ok(c.src) && !ok(c.new) ? "rejected" : "ok"))));
"#;

/// Where npm installs packages globally (`npm root -g`), which holds the
/// TypeScript package the TypeScript judge loads and the real code of
/// `frontend_real`.
pub(in crate::engine) fn npm_root() -> std::path::PathBuf {
    std::path::PathBuf::from(ask("npm", &["root", "-g"]))
}

/// The stdout of `program args`, trimmed: where a front end keeps its
/// library.
pub(in crate::engine) fn ask(program: &str, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("this test asks `{program}` where its library is, and it could not run ({e}): install it (see .ci/run)"));
    String::from_utf8(out.stdout).expect("UTF-8").trim().to_string()
}

/// TypeScript's verdicts on `cases`, then tree-sitter's on what they mean.
pub(in crate::engine) fn ts_judged(cases: &[Case]) -> Vec<String> {
    let ts = npm_root().join("typescript");
    assert!(ts.is_dir(), "this test judges with TypeScript's parser, missing from {}: `npm install -g typescript@5.6.3` (see .ci/run)", ts.display());
    let verdicts = judged_in_one_process("node", &["-e", TS_JUDGE, ts.to_str().expect("UTF-8 path")], cases);
    with_outlines(&TYPESCRIPT, cases, verdicts)
}

/// Go's own parser (`go/parser`, which `gofmt -e` runs) judges every case:
/// `ok`, `rejected`, or `means otherwise` (the `go/ast` tree, parentheses,
/// comments and positions left out, is not the oracle's).
const GO_JUDGE: &str = r#"package main

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
)

type Case struct {
	Src    string  `json:"src"`
	New    string  `json:"new"`
	Oracle *string `json:"oracle"`
}

var exprType = reflect.TypeOf((*ast.Expr)(nil)).Elem()
var posType = reflect.TypeOf(token.NoPos)

// unparen replaces a parenthesized expression held in v by what it holds.
func unparen(v reflect.Value) {
	for {
		p, ok := v.Interface().(*ast.ParenExpr)
		if !ok {
			return
		}
		v.Set(reflect.ValueOf(p.X))
	}
}

// strip drops parentheses and keeps of each position only whether it is set.
func strip(v reflect.Value) {
	switch v.Kind() {
	case reflect.Ptr, reflect.Interface:
		if !v.IsNil() {
			strip(v.Elem())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			if !f.CanSet() {
				continue
			}
			if f.Type() == posType && f.Int() != 0 {
				f.SetInt(1)
			}
			if f.Type() == exprType && !f.IsNil() {
				unparen(f)
			}
			strip(f)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			e := v.Index(i)
			if e.Type() == exprType && !e.IsNil() {
				unparen(e)
			}
			strip(e)
		}
	}
}

func tree(s string) string {
	f, err := parser.ParseFile(token.NewFileSet(), "x.go", s, parser.SkipObjectResolution|parser.AllErrors)
	if err != nil {
		return ""
	}
	f.Comments = nil
	strip(reflect.ValueOf(f))
	var b bytes.Buffer
	ast.Fprint(&b, nil, f, func(name string, v reflect.Value) bool {
		return name != "Doc" && name != "Comment" && ast.NotNilFilter(name, v)
	})
	return b.String()
}

func main() {
	var cases []Case
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		panic(err)
	}
	out := []string{}
	for _, c := range cases {
		before, after, oracle := tree(c.Src), tree(c.New), ""
		if c.Oracle != nil {
			oracle = tree(*c.Oracle)
		}
		switch {
		case before != "" && after == "":
			out = append(out, "rejected")
		case before != "" && oracle != "" && after != oracle:
			out = append(out, "means otherwise")
		default:
			out = append(out, "ok")
		}
	}
	json.NewEncoder(os.Stdout).Encode(out)
}
"#;

pub(in crate::engine) fn judged_in_one_process(program: &str, args: &[&str], cases: &[Case]) -> Vec<String> {
    let input = serde_json::Value::Array(cases.iter().map(|c| serde_json::json!({"src": c.src, "new": c.new, "oracle": c.oracle})).collect());
    let out = run(program, args, &input.to_string());
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("`{program}` answered {out:?}: {e}"))
}

/// tree-sitter's tree of `text` in `lang` as a string, parentheses around an
/// expression, comments and trailing commas left out (None when it has a syntax error): what
/// the new text of a language whose front end cannot print its tree
/// (JavaScript, Rust) must equal for the oracle's.
fn outline(lang: SupportLang, text: &str) -> Option<String> {
    fn walk(n: tree_sitter::Node<'_>, text: &str, out: &mut String) {
        if n.is_extra() {
            return;
        }
        if matches!(n.kind(), "parenthesized_expression" | "parenthesized_type") && n.named_child_count() == 1 {
            let inner = n.named_child(0).expect("one child");
            if !inner.is_extra() {
                return walk(inner, text, out);
            }
        }
        // A Rust block-like expression (`match`, `if`) that starts a
        // statement and has no `;` is the block's value where it ends it:
        // tree-sitter-rust holds it in a statement of one child.
        if n.kind() == "expression_statement" && n.child_count() == 1 && n.language().name() == Some("rust") {
            return walk(n.child(0).expect("one child"), text, out);
        }
        if n.kind() == "token_tree" {
            // A macro's tokens, unexpanded: parentheses and commas are its
            // own, blanks none.
            let flat: String = text[n.byte_range()].chars().filter(|c| !c.is_whitespace() && !matches!(c, '(' | ')' | ',')).collect();
            out.push_str(&format!("token_tree`{flat}` "));
            return;
        }
        if n.child_count() == 0 {
            out.push_str(&format!("{}`{}` ", n.kind(), &text[n.byte_range()]));
            return;
        }
        out.push_str(n.kind());
        out.push('(');
        let mut c = n.walk();
        let children: Vec<_> = n.children(&mut c).filter(|k| !k.is_extra()).collect();
        for (k, child) in children.iter().enumerate() {
            // A `,` before a closing bracket: one the grammar ignores (where
            // it counts, a tuple, the node's kind differs).
            if child.kind() == "," && children.get(k + 1).is_some_and(|next| matches!(next.kind(), ")" | "]" | "}")) {
                continue;
            }
            walk(*child, text, out);
        }
        out.push_str(") ");
    }
    let grep = lang.ast_grep(text);
    let root = grep.root().get_inner_node();
    if root.has_error() {
        return None;
    }
    let mut out = String::new();
    walk(root, text, &mut out);
    Some(out)
}

/// `verdicts` with `means otherwise` where tree-sitter's tree of a case's new
/// text is not its oracle's (where the oracle parses).
pub(in crate::engine) fn with_outlines(l: &Lang, cases: &[Case], verdicts: Vec<String>) -> Vec<String> {
    cases
        .iter()
        .zip(verdicts)
        .map(|(c, v)| {
            // tree-sitter-javascript reads `await (x)` as a call of `await`:
            // such an oracle says nothing.
            let want = c.oracle.as_deref().filter(|o| !o.contains("await (")).and_then(|o| outline(l.lang, o));
            match (want, outline(l.lang, &c.new)) {
                (Some(want), Some(got)) if v == "ok" && got != want => {
                    let at = want.bytes().zip(got.bytes()).take_while(|(a, b)| a == b).count();
                    let near = |s: &str| s.get(at.saturating_sub(80)..(at + 120).min(s.len())).unwrap_or(s).to_string();
                    format!("means otherwise (tree-sitter's tree has `...{}...` where the template's has `...{}...`)", near(&got), near(&want))
                }
                (Some(_), None) if v == "ok" => "means otherwise (a syntax error)".to_string(),
                _ => v,
            }
        })
        .collect()
}

/// Asserts that no unflagged write of `cases` is judged other than `ok`.
pub(in crate::engine) fn assert_judged(what: &str, cases: &[Case], verdicts: &[String]) {
    eprintln!("{what}: {} unflagged writes judged", cases.len());
    let bad = report(cases, verdicts);
    assert!(bad.is_empty(), "{what}: {} of {} unflagged writes:\n\n{}", bad.len(), cases.len(), bad.join("\n\n"));
}

#[test]
fn unflagged_python_writes_compile_and_mean_the_template() {
    for (verbatim, floor) in [(false, 200), (true, 150)] {
        let cases = cases(&PYTHON, 0x9E37_79B9_7F4A_7C15, 700, verbatim);
        assert!(cases.len() > floor, "too few unflagged cases to judge (verbatim: {verbatim}): {}", cases.len());
        let verdicts = judged_in_one_process("python3", &["-c", PYTHON_JUDGE], &cases);
        assert_judged(&format!("verbatim: {verbatim}"), &cases, &verdicts);
    }
}

#[test]
fn unflagged_javascript_writes_parse_where_the_original_did_and_mean_the_template() {
    for (verbatim, floor) in [(false, 200), (true, 150)] {
        let cases = cases(&JAVASCRIPT, 0x2545_F491_4F6C_DD1D, 700, verbatim);
        assert!(cases.len() > floor, "too few unflagged cases to judge (verbatim: {verbatim}): {}", cases.len());
        let verdicts = judged_in_one_process("node", &["--experimental-vm-modules", "--no-warnings", "-e", NODE_JUDGE], &cases);
        assert_judged(&format!("verbatim: {verbatim}"), &cases, &with_outlines(&JAVASCRIPT, &cases, verdicts));
    }
}

/// Go's judge ([`GO_JUDGE`], run by `go run`) on `cases`.
pub(in crate::engine) fn go_judged(cases: &[Case]) -> Vec<String> {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let judge = dir.path().join("judge.go");
    std::fs::write(&judge, GO_JUDGE).expect("write the Go judge");
    judged_in_one_process("go", &["run", judge.to_str().expect("UTF-8 path")], cases)
}

/// True when rustfmt's parser (rustc's) accepts `s`.
fn rust_parses(s: &str) -> bool {
    let mut child = Command::new("rustfmt")
        .args(["--edition", "2021", "--emit", "stdout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("this test judges with `rustfmt`, which could not run ({e}): `rustup component add rustfmt`"));
    child.stdin.take().expect("stdin").write_all(s.as_bytes()).expect("write to rustfmt");
    child.wait().expect("rustfmt ends").success()
}

/// rustfmt's verdict on each case: `rejected` where the original parses and
/// the new text does not.
pub(in crate::engine) fn rust_judged(cases: &[Case]) -> Vec<String> {
    cases.iter().map(|c| if rust_parses(&c.src) && !rust_parses(&c.new) { "rejected".into() } else { "ok".into() }).collect()
}

#[test]
fn unflagged_typescript_writes_parse_where_the_original_did_and_mean_the_template() {
    for (verbatim, floor) in [(false, 200), (true, 150)] {
        let cases = cases(&TYPESCRIPT, 0x3C6E_F372_FE94_F82B, 700, verbatim);
        assert!(cases.len() > floor, "too few unflagged cases to judge (verbatim: {verbatim}): {}", cases.len());
        assert_judged(&format!("verbatim: {verbatim}"), &cases, &ts_judged(&cases));
    }
}

#[test]
fn unflagged_go_writes_parse_and_mean_the_template() {
    for (verbatim, floor) in [(false, 150), (true, 100)] {
        let cases = cases(&GO, 0x6A09_E667_F3BC_C908, 600, verbatim);
        assert!(cases.len() > floor, "too few unflagged cases to judge (verbatim: {verbatim}): {}", cases.len());
        assert_judged(&format!("verbatim: {verbatim}"), &cases, &go_judged(&cases));
    }
}

#[test]
fn unflagged_rust_writes_parse_where_the_original_did_and_mean_the_template() {
    for (verbatim, floor) in [(false, 120), (true, 90)] {
        let cases = cases(&RUST, 0xD1B5_4A32_D192_ED03, 400, verbatim);
        assert!(cases.len() > floor, "too few unflagged cases to judge (verbatim: {verbatim}): {}", cases.len());
        assert_judged(&format!("verbatim: {verbatim}"), &cases, &with_outlines(&RUST, &cases, rust_judged(&cases)));
    }
}
