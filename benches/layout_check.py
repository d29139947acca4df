#!/usr/bin/env python3
"""Helpers of benches/layout_check.sh (see there for what is measured).

    layout_check.py judge CORPORA COPY LIST   one line per file: path, equal|async-dropped|retyped|changed|unparsed
    layout_check.py compare LANG CORPORA COPIES PREFIX   the written texts of both modes, compared
    layout_check.py row KIND LANG PATH PAT REW SELECTOR PREFIX   one TSV row from PREFIX.{default,verbatim}.*;
                                               writes PREFIX.details (what to explain, by file and line)
    layout_check.py table TSV                  the markdown table; exit 1 on a violation
"""
import ast
import bisect
import difflib
import json
import os
import re
import sys
import warnings


ASYNC = {"AsyncFunctionDef": "FunctionDef", "AsyncFor": "For", "AsyncWith": "With"}


def skeleton(tree):
    """Each statement's type with the chain of (field, statement type) above it, in a
    fixed order: equal skeletons mean no statement moved, appeared or vanished.
    Expressions hold no statements, so the walk does not enter them."""
    out = []
    stack = [(tree, ())]
    while stack:
        node, chain = stack.pop()
        for field, value in ast.iter_fields(node):
            for v in value if isinstance(value, list) else [value]:
                if isinstance(v, ast.stmt):
                    link = chain + ((field, type(v).__name__),)
                    out.append(link)
                    stack.append((v, link))
                elif isinstance(v, ast.AST) and not isinstance(v, ast.expr):
                    stack.append((v, chain))
    return out


def fold_async(sk):
    """The skeleton with `async def` read as `def` (and `async for`/`with` likewise)."""
    return [tuple((f, ASYNC.get(k, k)) for f, k in link) for link in sk]


def untyped(sk):
    """The skeleton without the statements' types: a statement that changed kind in
    place (`self.assertIn(a, b)`, an `Expr`, -> `assert a in b`, an `Assert`) is kept."""
    return [tuple(f for f, _ in link) for link in sk]


def judge(corpora, copy, listing):
    warnings.simplefilter("ignore")
    for path in open(listing).read().splitlines():
        try:
            old = skeleton(ast.parse(open(os.path.join(corpora, path), "rb").read()))
            new = skeleton(ast.parse(open(os.path.join(copy, path), "rb").read()))
            if old == new:
                verdict = "equal"
            elif fold_async(old) == fold_async(new):
                # The match took an `async` the pattern does not write (smart
                # strictness skips that unnamed token) and the template dropped
                # it: the statement changed kind in place, nothing moved.
                verdict = "async-dropped"
            elif untyped(old) == untyped(new):
                # Statements changed kind where they stand and none moved: what a
                # codemod to a statement of another kind does (`codemod` cases).
                verdict = "retyped"
            else:
                verdict = "changed"
        except (SyntaxError, ValueError):
            verdict = "unparsed"
        print(f"{path}	{verdict}")


# Where two characters written side by side make one token: two word characters
# (`a` `in` -> `ain`), an operator of two characters (`-` `-` -> `--`, `<` `-` -> Go's
# `<-`), or a word that prefixes a string and a quote (`b` `"x"` -> `b"x"`).
OPS2 = {"--", "++", "==", "!=", "<=", ">=", "&&", "||", "<<", ">>", "**", "//", "/*", "*/",
        "->", "=>", "::", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "..", "?.", "??",
        ":=", "<-", "&^", "##"}
STRING_PREFIXES = {"r", "b", "u", "f", "rb", "br", "fr", "rf", "l", "u8", "c", "cr"}
MAX_REGION = 20000  # non-blank characters compared one by one in a region that differs


def is_word(c):
    return c.isalnum() or c in "_$"


def joins(run, a, b):
    """Whether `a` then `b` (`run`: the word that ends with `a`) lex as one token."""
    return (is_word(a) and is_word(b)) or a + b in OPS2 or (b in "\"'" and run.lower() in STRING_PREFIXES)


def nonblank(text):
    """The non-blank characters of `text`, whether blanks come before each, their offsets."""
    chars, blank, offs = [], [], []
    for m in re.finditer(r"\s*(\S)", text):
        chars.append(m.group(1))
        blank.append(m.start(1) > m.start())
        offs.append(m.start(1))
    return "".join(chars), blank, offs


def region(d, v, line0, out):
    """Compares a region of the default's text `d` (first line `line0`) with the same
    region of --verbatim's `v`; appends (line, what) to `out`."""
    dc, db, do = nonblank(d)
    vc, vb, _ = nonblank(v)
    newlines = [m.start() for m in re.finditer("\n", d)]
    line = lambda off: line0 + bisect.bisect_left(newlines, off)
    if dc == vc:
        blocks = [(0, 0, len(dc))]
    elif max(len(dc), len(vc)) > MAX_REGION:
        out.append((line0, "text"))
        blocks = []
    else:
        blocks = []
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, dc, vc, autojunk=False).get_opcodes():
            if tag == "equal":
                blocks.append((i1, j1, i2 - i1))
            else:
                out.append((line(do[i1] if i1 < len(do) else len(d)), "text"))
    for i, j, n in blocks:
        run = ""
        for k in range(n):
            c = vc[j + k]
            if k and joins(run, vc[j + k - 1], c):
                if vb[j + k] and not db[i + k]:
                    out.append((line(do[i + k]), "glued"))
                elif db[i + k] and not vb[j + k]:
                    out.append((line(do[i + k]), "split"))
            # The word that ends with `c`, as --verbatim writes it.
            run = (run + c if run and not vb[j + k] else c) if is_word(c) else ""


def boundaries(dtext, vtext):
    """Where the default's text of a file says something else than --verbatim's:
    (line in the default's text, what), what being `glued` (--verbatim has a blank
    between two characters that make one token without it, and the default none:
    `assert ain b`), `split` (the other way round) or `text` (the non-blank characters
    differ: a `,` or a comment the default keeps, or a fallback). Blanks that change no
    token are layout, the default's business."""
    if dtext == vtext:
        return []
    dl, vl = dtext.split("\n"), vtext.split("\n")
    h = 0
    while h < min(len(dl), len(vl)) and dl[h] == vl[h]:
        h += 1
    t = 0
    while t < min(len(dl), len(vl)) - h and dl[-1 - t] == vl[-1 - t]:
        t += 1
    dm, vm = dl[h:len(dl) - t], vl[h:len(vl) - t]
    key = lambda l: re.sub(r"\s+", "", l)
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, [key(l) for l in dm], [key(l) for l in vm]).get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                if dm[i1 + k] != vm[j1 + k]:
                    region(dm[i1 + k], vm[j1 + k], h + i1 + k + 1, out)
        else:
            region("\n".join(dm[i1:i2]), "\n".join(vm[j1:j2]), h + i1 + 1, out)
    return sorted(set(out))


def read_text(path):
    return open(path, "rb").read().decode("utf-8", "surrogateescape")


def same_ast(a, b):
    """Whether two trees of Python's `ast` are equal, positions left out (as
    `ast.dump(a) == ast.dump(b)`, without writing the dumps), except that two string
    literals whose lines differ only in their indentation count as equal: ast-grep
    re-indents a multi-line capture with the strings in it, the default writes the
    original's literal (docs/DESIGN.md 2.5.9), so there --verbatim is the one that
    changed a value."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, ast.AST):
            stack.extend((getattr(x, f, None), getattr(y, f, None)) for f in x._fields)
        elif isinstance(x, list):
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y))
        elif x != y:
            if isinstance(x, (str, bytes)) and INDENT[type(x)].sub(NEWLINE[type(x)], x) == INDENT[type(x)].sub(NEWLINE[type(x)], y):
                continue
            return False
    return True


INDENT = {str: re.compile(r"\n[ \t]+"), bytes: re.compile(rb"\n[ \t]+")}
NEWLINE = {str: "\n", bytes: b"\n"}


def compare(lang, corpora, copies, prefix):
    """The files both modes changed, as each wrote them (copies/default, copies/verbatim),
    compared: one line per finding, path <TAB> line <TAB> what <TAB> the default's line.
    `unwritten` (line `-`): the mode's copy is the original (the file was left out of
    the apply: templateMismatch). `ast-differs` (Python, line `-`): both parse and
    Python's `ast` reads them differently, so the default does not say what the
    template says."""
    warnings.simplefilter("ignore")
    lists = {m: open(f"{prefix}.{m}.list").read().splitlines() for m in ("default", "verbatim")}
    for path in sorted(set(lists["default"]) & set(lists["verbatim"])):
        orig = read_text(os.path.join(corpora, path))
        text = {m: read_text(os.path.join(copies, m, path)) for m in ("default", "verbatim")}
        unwritten = [m for m in ("default", "verbatim") if text[m] == orig]
        if unwritten:
            print(f"{path}\t-\tunwritten\t{' '.join(unwritten)}")
            continue
        dlines = text["default"].split("\n")
        for line, what in boundaries(text["default"], text["verbatim"]):
            print(f"{path}\t{line}\t{what}\t{dlines[line - 1].strip()[:120]}")
        if lang == "py":
            try:
                trees = [ast.parse(text[m].encode("utf-8", "surrogateescape")) for m in ("default", "verbatim")]
            except (SyntaxError, ValueError):
                continue
            if not same_ast(*trees):
                print(f"{path}\t-\tast-differs\t")


def changed_lines(diff):
    return sum(1 for l in diff.split("\n")
               if (l.startswith("+") and not l.startswith("+++ ")) or
               (l.startswith("-") and not l.startswith("--- ")))


def mode(prefix, name):
    """One mode's preview. The keys `editsChecked` and `layoutFallbacks` (top level and
    per file) and `templateMismatch` (per file) are read as 0/false where the build
    does not write them yet."""
    d = json.load(open(f"{prefix}.{name}.json"))
    files = {f["path"]: f for f in d["files"]}
    verdicts = {}
    if os.path.exists(f"{prefix}.{name}.judge"):
        for row in open(f"{prefix}.{name}.judge").read().splitlines():
            p, v = row.split("\t")
            verdicts[p] = v
    return {
        "files": files,
        "lines": {p: changed_lines(f["diff"]) for p, f in files.items()},
        "flagged": {p for p, f in files.items() if f.get("structureChanged")},
        "syntax": {p for p, f in files.items() if f.get("syntaxErrorsIntroduced")},
        "mismatch": {p for p, f in files.items() if f.get("templateMismatch")},
        "fallbacks": {p: f.get("layoutFallbacks", 0) for p, f in files.items() if f.get("layoutFallbacks", 0)},
        "verdicts": verdicts,
        "secs": float(open(f"{prefix}.{name}.secs").read()),
        "replacements": d["totalReplacements"],
        "checked": d.get("editsChecked", 0),
        "fallback_edits": d.get("layoutFallbacks", 0),
        "warnings": d.get("warnings", []),
    }


COLUMNS = ["kind", "lang", "path", "pattern", "rewrite", "selector",
           "replacements_verbatim", "replacements_default", "syntax_flagged_verbatim", "syntax_flagged_default",
           "files", "lines_verbatim", "lines_default", "flagged_verbatim", "flagged_default", "judged",
           "false_alarms", "misses", "seconds_default", "files_default_larger",
           "edits_checked", "layout_fallbacks", "fallback_files", "template_mismatch_files",
           "flagged_default_only", "glued_default", "split_default", "text_differs_files", "ast_differs",
           "retyped_files", "note"]


def row(kind, lang, path, pat, rew, selector, prefix):
    """One TSV row; writes PREFIX.details: mode <TAB> what <TAB> path <TAB> line <TAB>
    text, for every file a reader has to explain."""
    D, V = mode(prefix, "default"), mode(prefix, "verbatim")
    dl, vl = D["lines"], V["lines"]
    # A file both modes flag (a syntax error or a structure change: apply refuses
    # it either way) is left out of the lines-changed rule and listed apart: the
    # rewrite itself is wrong there, whatever its layout.
    flagged_both = (D["syntax"] | D["flagged"]) & (V["syntax"] | V["flagged"])
    larger_all = sorted(p for p in set(dl) | set(vl) if dl.get(p, 0) > vl.get(p, 0))
    larger = [p for p in larger_all if p not in flagged_both]
    larger_flagged = [p for p in larger_all if p in flagged_both]
    false_alarms, misses, judged = [], [], 0
    dropped, retyped = {"default": 0, "verbatim": 0}, {"default": 0, "verbatim": 0}
    for name, M in (("default", D), ("verbatim", V)):
        if M["verdicts"]:
            for p, v in M["verdicts"].items():
                if v == "unparsed":
                    continue
                if v == "retyped" and kind == "codemod":
                    # The codemod's own change (a call statement became an
                    # `assert`). The skeleton cannot judge it: it sees statements,
                    # not what the expressions inside say, and a codemod can
                    # change that (`self.assertEqual(a, x if c else y)` ->
                    # `assert a == x if c else y` reads `(a == x) if c else y`).
                    # Not judged; its flags are listed in the details.
                    retyped[name] += 1
                    continue
                judged += 1
                if v == "async-dropped":
                    dropped[name] += 1
                    continue
                if p in M["flagged"] and v == "equal":
                    false_alarms.append(f"{name}:{p}")
                if p not in M["flagged"] and v == "changed":
                    misses.append(f"{name}:{p}")
        elif kind == "keep" and name == "default":
            # Not Python: a rewrite that keeps structure must not be flagged.
            false_alarms += [f"{name}:{p}" for p in sorted(M["flagged"])]
    if kind == "django" and not V["flagged"]:
        misses.append("verbatim: the method-body case was not flagged")
    if kind == "django" and D["flagged"]:
        false_alarms.append("default: the method-body case was flagged")
    if kind == "throwaway":
        # Reported, not judged: such rewrites are not meant to keep structure.
        false_alarms, misses = [], []
    # Files the default flags and --verbatim does not: the minimal layout broke what
    # the template wrote.
    default_only = sorted((D["syntax"] - V["syntax"]) | (D["flagged"] - V["flagged"] - V["syntax"]))
    found = []
    if os.path.exists(f"{prefix}.compare"):
        found = [l.split("\t") for l in open(f"{prefix}.compare").read().splitlines()]
    count = lambda what: sum(1 for f in found if f[2] == what)
    files_with = lambda what: {f[0] for f in found if f[2] == what}

    details = []
    for name, M in (("default", D), ("verbatim", V)):
        for p in sorted(M["syntax"]):
            for e in M["files"][p].get("syntaxErrors", [])[:3]:
                details.append((name, "syntax", p, e.get("line", "-"), e.get("excerpt", "").strip()[:120]))
        for p in sorted(M["flagged"]):
            for c in M["files"][p].get("structureChanges", [])[:3]:
                details.append((name, "structure", p, c.get("line", "-"), c.get("message", "")[:160]))
        for p in sorted(M["mismatch"]):
            said = [w for w in M["warnings"] if w.startswith(p + ":")]
            details.append((name, "templateMismatch", p, "-", (said[0] if said else "")[:200]))
        for p, n in sorted(M["fallbacks"].items()):
            details.append((name, "fallback", p, "-", f"{n} edits written verbatim"))
    for p in default_only:
        details.append(("default", "flagged-default-only", p, "-", ""))
    for p in larger:
        details.append(("default", "larger", p, "-", f"{dl.get(p, 0)} lines changed against {vl.get(p, 0)} by --verbatim"))
    for p in larger_flagged:
        details.append(("default", "larger-flagged-both", p, "-", f"{dl.get(p, 0)} lines changed against {vl.get(p, 0)} by --verbatim; both modes flag the file"))
    for f in found:
        details.append(("default", f[2], f[0], f[1], f[3] if len(f) > 3 else ""))
    for m in misses:
        details.append(("judge", "miss", m, "-", ""))
    for m in false_alarms:
        details.append(("judge", "false-alarm", m, "-", ""))
    with open(f"{prefix}.details", "w") as out:
        for d in details:
            out.write("\t".join(map(str, d)) + "\n")

    extra = [f"misses: {sum(m.startswith(name) for m in misses)} {name}" for name in ("default", "verbatim") if any(m.startswith(name) for m in misses)]
    extra += [f"{n} files lost an `async` the pattern did not write ({name})" for name, n in dropped.items() if n]
    if larger_flagged:
        extra.append(f"{len(larger_flagged)} files where the default changes more lines are flagged by both modes")
    if count("unwritten"):
        extra.append(f"{count('unwritten')} files left out of the written copies")
    note = "; ".join(extra + [f"default larger in {p}" for p in larger][:3] + false_alarms[:3] + misses[:3])
    values = [kind, lang, path, pat, rew, selector, V["replacements"], D["replacements"], len(V["syntax"]), len(D["syntax"]),
              len(V["files"]), sum(vl.values()), sum(dl.values()), len(V["flagged"]), len(D["flagged"]), judged,
              len(false_alarms), len(misses), f"{D['secs']:.2f}", len(larger),
              D["checked"], D["fallback_edits"], len(D["fallbacks"]), len(D["mismatch"]),
              len(default_only), count("glued"), count("split"), len(files_with("text")), count("ast-differs"),
              retyped["default"], note]
    assert len(values) == len(COLUMNS)
    return "\t".join(map(str, values))


def violations(r):
    """What makes the script exit 1 for this row. Every kind: the default changes more
    lines than --verbatim in a file, a false alarm, a miss. `codemod` also: the default
    writes other tokens than --verbatim (glued or split), a file only the default
    flags, or (Python) an `ast` that differs from --verbatim's."""
    bad = [c for c in ("files_default_larger", "false_alarms", "misses") if int(r[c])]
    if r["kind"] == "codemod":
        bad += [c for c in ("glued_default", "split_default", "flagged_default_only", "ast_differs") if int(r[c])]
    return bad


def table(tsv):
    lines = open(tsv).read().splitlines()
    header = lines[0].split("\t")
    rows = [dict(zip(header, l.split("\t"))) for l in lines[1:]]
    print("| kind | lang | path | pattern | rewrite | replacements | lines changed --verbatim / default | syntax errors --verbatim / default | structure flagged --verbatim / default | judged by ast | false alarms | misses | edits checked | layout fallbacks (files) | template mismatch | flagged by the default only | lines glued / split by the default | ast differs |")
    print("| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    bad = 0
    for r in rows:
        if violations(r):
            bad = 1
        reps = r["replacements_verbatim"] if r["replacements_verbatim"] == r["replacements_default"] else f"{r['replacements_verbatim']} / {r['replacements_default']}"
        cell = lambda t: t.replace("|", "\\|")  # a `|` of the code must not end the cell
        pat = cell(r["pattern"]) + (f"` (`--selector {r['selector']}`)" if r["selector"] != "-" else "`")
        py = r["lang"] == "py"
        print(f"| {r['kind']} | {r['lang']} | {r['path']} | `{pat} | `{cell(r['rewrite'])}` | {reps} | {r['lines_verbatim']} / {r['lines_default']} "
              f"| {r['syntax_flagged_verbatim']} / {r['syntax_flagged_default']} | {r['flagged_verbatim']} / {r['flagged_default']} "
              f"| {r['judged'] if py else '-'} | {r['false_alarms']} | {r['misses']} | {r['edits_checked']} "
              f"| {r['layout_fallbacks']} ({r['fallback_files']}) | {r['template_mismatch_files']} | {r['flagged_default_only']} "
              f"| {r['glued_default']} / {r['split_default']} | {r['ast_differs'] if py else '-'} |")
    tl = [sum(int(r[c]) for r in rows) for c in ("lines_verbatim", "lines_default")]
    print(f"\nLines changed over all cases: --verbatim {tl[0]}, default {tl[1]}.")
    codemods = [r for r in rows if r["kind"] == "codemod"]
    if codemods:
        s = lambda c: sum(int(r[c]) for r in codemods)
        print(f"Codemods: {len(codemods)} cases, {sum(1 for r in codemods if int(r['replacements_verbatim']))} with matches; "
              f"{s('replacements_default')} replacements, {s('edits_checked')} edits checked, {s('layout_fallbacks')} layout fallbacks, "
              f"{s('template_mismatch_files')} files with a template mismatch, {s('glued_default')} lines with glued and {s('split_default')} with split "
              f"tokens in the default's output, {s('flagged_default_only')} files flagged by the default only.")
    for r in rows:
        why = violations(r)
        if r["note"] or why:
            print(f"- `{r['pattern']}` -> `{r['rewrite']}` ({r['path']}): " + "; ".join(filter(None, [r["note"]] + [f"violation: {c} {r[c]}" for c in why if c not in ("files_default_larger", "false_alarms", "misses")])))
    sys.exit(bad)


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "judge":
        judge(*args)
    elif cmd == "compare":
        compare(*args)
    elif cmd == "row":
        print(row(*args))
    elif cmd == "table":
        table(*args)
    else:
        sys.exit(__doc__)
