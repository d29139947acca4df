#!/usr/bin/env python3
"""Helper of benches/scan_compare.sh (ast-edit scan -U vs ast-grep scan -U with a rule project).

Subcommands:

  maxfs ROOT CORPUS EXT...
      The --max-filesize that makes ast-edit parse the files ast-grep parses (ast-grep
      skips a file only if it is > 3 MB *and* > 200k lines; ast-edit skips by size
      alone), as benches/compare.sh computes it. Prints "CAP NOTE".

  check --orig DIR --ag DIR --ae DIR --corpus NAME --ae-json FILE --config SGCONFIG
        --ast-grep BIN --ast-edit BIN [--ae-arg ARG]... --out FILE
      Compares the three trees ORIG/NAME (before), AG/NAME (after ast-grep scan -U) and
      AE/NAME (after ast-edit scan -U) file by file and explains every file where the two
      tools wrote different bytes by one of ast-edit's documented differences:

        error-node    ast-edit left alone the matches whose node holds an ERROR or MISSING
                      node (docs/DESIGN.md 2.5.3, 6.4; reported in its warnings), ast-grep
                      rewrote them. Proven per file: ast-grep's matches on the original
                      (its --json) replayed the way `ast-grep scan -U` applies them give
                      ast-grep's bytes, and the same replay without the matches that
                      contain an ERROR node (ast-grep `kind: ERROR`) or start on a line
                      ast-edit reported gives ast-edit's bytes.
        skipped       ast-edit skipped the file by a limit and said so in `skipped`
                      (docs/DESIGN.md 7), and left it as it was.
        syntax-error  the rewrite adds a syntax error and ast-edit refused it (its JSON
                      names the file in a "the rewrite introduces syntax errors" warning).
        flagged       `-U --skip-flagged` left the file out, flagged (its JSON names it
                      with the reason: adds syntax errors, moves code, or does not say
                      what its template says), and left it as it was.
        unused-ignore ast-grep removed an unused `ast-grep-ignore` comment (its
                      unused-suppression fix), ast-edit does not; nothing else differs.

      Anything else is unexplained. Writes the details to --out and prints one JSON object
      (counts) on stdout; exits 1 when a difference is unexplained.

  report RESULTS_DIR REPORT_MD
      Writes the "## scan -U with a rule project" section of REPORT_MD from
      RESULTS_DIR/scan-*.{tsv,meta,check}: the text between its two markers is replaced
      (the section is appended the first time); nothing else in the file changes.
"""
import argparse
import collections
import difflib
import json
import os
import re
import subprocess
import sys
import tempfile


def maxfs(root, corpus, exts):
    exts = tuple("." + e for e in exts)
    skipped, kept_max = [], 0
    for d, dirs, files in os.walk(os.path.join(root, corpus)):
        dirs[:] = [x for x in dirs if not x.startswith(".")]
        for f in files:
            if f.startswith(".") or not f.endswith(exts):
                continue
            p = os.path.join(d, f)
            if os.path.islink(p) or not os.path.isfile(p):
                continue
            n = os.path.getsize(p)
            big = False
            if n > 3_000_000:
                with open(p, "rb") as fh:
                    big = fh.read().count(b"\n") + 1 > 200_000
            if big:
                skipped.append((n, os.path.relpath(p, root)))
            else:
                kept_max = max(kept_max, n)
    default = 16 * 1024 * 1024
    if not skipped:
        print(max(default, kept_max), f"ast-grep skips no file; largest file {kept_max} bytes")
        return
    smallest = min(skipped)[0]
    names = ", ".join(f"{p} ({n} bytes)" for n, p in sorted(skipped))
    if kept_max < smallest:
        print(smallest - 1, f"ast-grep skips {len(skipped)} file(s) (> 3 MB and > 200k lines): {names}; largest file it parses {kept_max} bytes")
    else:
        print(max(default, kept_max), f"MISMATCH: ast-grep skips {names} but parses a file of {kept_max} bytes; no size cap selects the same files")


# ---------------------------------------------------------------- trees
def walk(top):
    """Relative paths of the regular files and symlinks under top."""
    out = set()
    for d, dirs, files in os.walk(top):
        for f in files:
            out.add(os.path.relpath(os.path.join(d, f), top))
        for x in dirs:
            p = os.path.join(d, x)
            if os.path.islink(p):
                out.add(os.path.relpath(p, top))
    return out


def read(path):
    if os.path.islink(path):
        return b"link:" + os.readlink(path).encode()
    with open(path, "rb") as f:
        return f.read()


def same(a, b):
    if os.path.islink(a) or os.path.islink(b):
        return read(a) == read(b)
    if os.path.getsize(a) != os.path.getsize(b):
        return False
    return read(a) == read(b)


# ---------------------------------------------------------------- ast-grep's -U, replayed
def replay(src, edits, blocked=()):
    """ast-grep scan -U's apply: edits (start, end, replacement) in match order, stably
    sorted by start; an edit that starts before the end of the last applied one is
    dropped. `blocked` edits are not written but still hold their range (used for the
    variant where a match left alone still hides the matches nested in it)."""
    out, pos, end = bytearray(), 0, 0
    for s, e, rep, key in sorted(edits, key=lambda x: x[0]):
        if s < end:
            continue
        end = e
        if key in blocked:
            continue
        out += src[pos:s]
        out += rep.encode()
        pos = e
    out += src[pos:]
    return bytes(out)


def run_json(cmd, cwd, env=None):
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        return json.loads(p.stdout or b"null"), p
    except json.JSONDecodeError:
        return None, p


LEFT_ALONE = re.compile(r"^(.*):(\d+): a match contains code that does not parse")
MORE = re.compile(r"^\.\.\. and (\d+) more matches left alone")
SYNTAX = re.compile(r"^(.*): the rewrite introduces syntax errors")
# `-U --skip-flagged` records each file it left out as a warning `PATH: REASON (not_selected)`.
FLAGGED = re.compile(r"^(.*): its rewrite (adds syntax errors|moves code in the syntax tree|does not say what its template says) \(left out by extra\.skipFlagged\) \(not_selected\)$")


def explain_error_node(a, rel, orig_bytes, ag_bytes, ae_bytes):
    """Returns (ok, text) for a file where ast-edit may have left matches around ERROR
    nodes alone: replays ast-grep's matches on the original with and without them."""
    root = a.orig
    path = os.path.join(a.corpus, rel)
    ag, p = run_json([a.ast_grep, "scan", "-c", a.config, "--json=compact", path], root)
    if ag is None:
        return False, f"ast-grep --json failed: {p.stderr.decode(errors='replace')[:300]}"
    lang = "rust" if rel.endswith(".rs") else "c"
    errs, _ = run_json([a.ast_grep, "scan", "--inline-rules", f"id: error-nodes\nlanguage: {lang}\nrule: {{kind: ERROR}}\n", "--json=compact", path], root)
    err_ranges = [(m["range"]["byteOffset"]["start"], m["range"]["byteOffset"]["end"]) for m in (errs or [])]
    with tempfile.TemporaryDirectory() as st:
        env = dict(os.environ, AST_EDIT_STATE_DIR=st)
        ae, p = run_json([a.ast_edit, "scan", "-c", a.config, "--preview-json", *a.ae_arg, path], root, env)
    if ae is None:
        return False, f"ast-edit --json failed: {p.stderr.decode(errors='replace')[:300]}"
    lines, more = collections.Counter(), 0
    for w in ae.get("warnings", []):
        m = LEFT_ALONE.match(w)
        if m and m.group(1) == path:
            lines[int(m.group(2))] += 1
        m = MORE.match(w)
        if m:
            more += int(m.group(1))
    reported = sum(lines.values()) + more
    edits = []
    for i, m in enumerate(ag):
        if "replacement" not in m:
            continue
        r = m.get("replacementOffsets") or m["range"]["byteOffset"]
        edits.append((r["start"], r["end"], m["replacement"], i))
    if replay(orig_bytes, edits) != ag_bytes:
        return False, "replaying ast-grep's JSON matches does not give the bytes ast-grep -U wrote"
    left = set()
    for s, e, rep, i in edits:
        node = ag[i]["range"]["byteOffset"]
        line = ag[i]["range"]["start"]["line"] + 1
        if any(node["start"] <= es and ee <= node["end"] for es, ee in err_ranges) or lines[line] > 0:
            left.add(i)
    if not left:
        return False, f"no ast-grep match on this file holds an ERROR node; ast-edit reported {reported} left alone"
    for variant, blocked in (("left-alone matches dropped", None), ("left-alone matches still hide nested ones", left)):
        kept = [x for x in edits if x[3] not in left] if blocked is None else edits
        got = replay(orig_bytes, kept, blocked or ())
        if got == ae_bytes:
            return True, (f"{len(left)} of ast-grep's {len(edits)} matches hold an ERROR node or were reported by ast-edit "
                          f"({reported} reported left alone: {sum(lines.values())} listed, {more} counted); "
                          f"ast-grep's matches replayed without them ({variant}) give ast-edit's bytes")
    return False, (f"replaying ast-grep's matches without the {len(left)} around ERROR nodes does not give ast-edit's bytes "
                   f"(ast-edit reported {reported} left alone)")


def only_unused_ignore(ag_bytes, ae_bytes):
    """True when ast-grep's file is ast-edit's with `ast-grep-ignore` comments removed."""
    if b"ast-grep-ignore" not in ae_bytes:
        return False
    a, b = ae_bytes.decode(errors="replace").splitlines(), ag_bytes.decode(errors="replace").splitlines()
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        if any("ast-grep-ignore" not in l for l in a[i1:i2]):
            return False
        stripped = [re.sub(r"\s*(//|/\*|#).*ast-grep-ignore.*$", "", l) for l in a[i1:i2]]
        if [l for l in b[j1:j2]] != [l for l in stripped if l.strip()] and b[j1:j2] != stripped:
            return False
    return True


def short_diff(x, y, rel):
    d = difflib.unified_diff(x.decode(errors="replace").splitlines(), y.decode(errors="replace").splitlines(),
                             f"ast-grep/{rel}", f"ast-edit/{rel}", lineterm="", n=1)
    return "\n".join(l[:300] for l in list(d)[:30])


def check(a):
    o, g, e = (os.path.join(d, a.corpus) for d in (a.orig, a.ag, a.ae))
    try:
        aej = json.load(open(a.ae_json))
    except (OSError, json.JSONDecodeError) as err:
        aej = {"applied": False, "warnings": [f"cannot read ast-edit's JSON: {err}"]}
    skipped = {s["path"]: s["reason"] for s in aej.get("skipped", [])}
    syntax = {m.group(1) for w in aej.get("warnings", []) for m in [SYNTAX.match(w)] if m}
    flagged = {m.group(1): m.group(2) for w in aej.get("warnings", []) for m in [FLAGGED.match(w)] if m}
    files_o, files_g, files_e = walk(o), walk(g), walk(e)
    out = []
    res = collections.OrderedDict(
        ae_applied=bool(aej.get("applied")), ae_status=aej.get("status"),
        ae_replacements=aej.get("totalReplacements"), ae_files_touched=aej.get("filesTouched"),
        ae_overlaps=aej.get("overlaps"), ae_warnings=len(aej.get("warnings", [])),
        ae_skipped=len(aej.get("skipped", [])), files=len(files_o), changed_ag=0, changed_ae=0,
        changed_both_equal=0, differ=0, explained=collections.Counter(), unexplained=0)
    if not aej.get("applied"):
        out.append(f"ast-edit -U wrote nothing: status {aej.get('status')!r}; warnings: " + " | ".join(aej.get("warnings", [])[-3:]))
    for rel in sorted(files_o | files_g | files_e):
        present = (rel in files_o, rel in files_g, rel in files_e)
        if present != (True, True, True):
            res["differ"] += 1
            res["unexplained"] += 1
            out.append(f"UNEXPLAINED {rel}: present in orig/ast-grep/ast-edit = {present}")
            continue
        po, pg, pe = (os.path.join(d, rel) for d in (o, g, e))
        ch_g, ch_e = not same(po, pg), not same(po, pe)
        res["changed_ag"] += ch_g
        res["changed_ae"] += ch_e
        if not ch_g and not ch_e:
            continue
        if ch_g and ch_e and same(pg, pe):
            res["changed_both_equal"] += 1
            continue
        res["differ"] += 1
        ob, gb, eb = read(po), read(pg), read(pe)
        path = os.path.join(a.corpus, rel)
        why, ok = None, False
        if path in skipped and eb == ob:
            why, ok = "skipped", True
            text = f"ast-edit skipped it: {skipped[path]}"
        elif path in syntax and eb == ob:
            why, ok = "syntax-error", True
            text = "the rewrite adds a syntax error; ast-edit refused the file"
        elif path in flagged and eb == ob:
            why, ok = "flagged", True
            text = f"ast-edit left it out (--skip-flagged): its rewrite {flagged[path]} (ast-grep's text changes what the code says, e.g. re-indents a multi-line raw string)"
        elif only_unused_ignore(gb, eb):
            why, ok = "unused-ignore", True
            text = "ast-grep removed an unused ast-grep-ignore comment"
        else:
            ok, text = explain_error_node(a, rel, ob, gb, eb)
            why = "error-node"
        if ok:
            res["explained"][why] += 1
            out.append(f"explained ({why}) {path}: {text}")
        else:
            res["unexplained"] += 1
            out.append(f"UNEXPLAINED {path}: {text}\n{short_diff(gb, eb, path)}")
    res["explained"] = dict(res["explained"])
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(json.dumps(res) + "\n")
        f.write("\n".join(out) + ("\n" if out else ""))
    print(json.dumps(res))
    return 0 if res["unexplained"] == 0 and res["ae_applied"] else 1


# ---------------------------------------------------------------- report section
SECTION_TITLE = "## scan -U with a rule project"
START = "<!-- scan_compare.sh: generated from benches/results/scan-*.{tsv,meta,check}; rewritten by each run -->"
END = "<!-- end of the scan_compare.sh figures -->"
FEATURES = [  # (label, regex on the rule file)
    ("inside", r"\binside:"), ("has", r"\bhas:"), ("not", r"\bnot:"), ("precedes", r"\bprecedes:"),
    ("follows", r"\bfollows:"), ("stopBy", r"\bstopBy:"), ("matches (utility)", r"\bmatches:"),
    ("nthChild", r"\bnthChild:"), ("any", r"\bany:"), ("all", r"\ball:"),
    ("pattern context/selector", r"\bselector:"), ("constraints", r"^constraints:"),
    ("replace", r"\breplace:\s*\{?\s*source"), ("substring", r"\bsubstring:"), ("convert", r"\bconvert:"),
    ("rewrite + rewriters", r"^rewriters:"), ("expandStart", r"\bexpandStart:"), ("expandEnd", r"\bexpandEnd:"),
]


def read_kv(path):
    out = {}
    if os.path.exists(path):
        for line in open(path, encoding="utf-8"):
            k, _, v = line.rstrip("\n").partition("\t")
            out.setdefault(k, v)
    return out


def stats(rows, tool, mode):
    w = sorted(float(r["wall_s"]) for r in rows if r["tool"] == tool and r["mode"] == mode)
    if not w:
        return None
    import statistics
    rss = max(int(r["peak_rss_kb"]) for r in rows if r["tool"] == tool and r["mode"] == mode)
    other = max(float(r["other_cpu_s"]) for r in rows if r["tool"] == tool and r["mode"] == mode)
    bad = [r for r in rows if r["tool"] == tool and r["mode"] == mode and r["exit"] not in ("0",)]
    return statistics.median(w), w[0], rss, other, len(w), len(bad)


def rule_rows(project_dir):
    """The rules of every `ruleDirs` folder of the project's sgconfig.yml."""
    config = open(os.path.join(project_dir, "sgconfig.yml"), encoding="utf-8").read()
    m = re.search(r"^ruleDirs:\s*\[([^\]]*)\]", config, re.M)
    dirs = [x.strip() for x in m.group(1).split(",")] if m else ["rules"]
    rules = []
    for d, _, files in (w for rd in dirs for w in os.walk(os.path.normpath(os.path.join(project_dir, rd)))):
        for f in sorted(files):
            if f.endswith(".yml"):
                text = open(os.path.join(d, f), encoding="utf-8").read()
                rid = re.search(r"^id:\s*(\S+)", text, re.M).group(1)
                lang = re.search(r"^language:\s*(\S+)", text, re.M).group(1)
                feats = [lab for lab, rx in FEATURES if re.search(rx, text, re.M)]
                rules.append((lang, rid, feats))
    return sorted(rules)


def report(resdir, report_md):
    import csv
    here = os.path.dirname(os.path.abspath(__file__))
    corpora = [c for c in ("rust", "c-linux", "python") if os.path.exists(os.path.join(resdir, f"scan-{c}.tsv"))]
    L = [START, ""]
    L.append("Generated by `benches/scan_compare.sh [CORPORA] [CORPUS_REGEX]` (`benches/scan_compare.py`)")
    L.append("from `benches/results/scan-<corpus>.{tsv,meta,check}`. The project `benches/scan-project/` holds")
    L.append("the rules below (codemods in the style of clippy, checkpatch and the kernel's Coccinelle")
    L.append("scripts; Python's are the pyupgrade-style rules of `queries/rules/python`, a `ruleDirs` entry)")
    L.append("and one utility rule (`rs-test-code`). Both tools run the same project on the")
    L.append("same files: **apply** is `scan -U` on a fresh `cp -a` copy per tool and run (the copy is not")
    L.append("timed); **report** is `scan --json=compact` on both sides (every match as a record, the same")
    L.append("work); **preview** is `ast-grep scan --json=compact` against `ast-edit scan --preview-json` (a dry")
    L.append("run that also stages a pending action) on the corpus itself. Times are wall seconds, median (min) over the")
    L.append("runs, the order of the tools alternating per run; ratio = ast-grep median / ast-edit median")
    L.append("(above 1: ast-edit is faster). `other CPU` is the most CPU-seconds other processes used")
    L.append("during one run (the machine is shared by four engineers; large values mean a disturbed run).")
    L.append("")
    L.append("After the last apply run the original, ast-grep's and ast-edit's trees are compared file")
    L.append("by file; every file where the two tools wrote different bytes must be explained by a")
    L.append("documented difference, else the script fails: `error-node` = ast-edit left alone the")
    L.append("matches whose node holds an ERROR node and reported them (docs/DESIGN.md 2.5.3, 6.4),")
    L.append("proven per file by replaying ast-grep's own JSON matches on the original with and without")
    L.append("those matches (with them: ast-grep's bytes; without them: ast-edit's bytes); `skipped` =")
    L.append("a file ast-edit skipped by a reported limit; `syntax-error` = a file whose rewrite adds a")
    L.append("syntax error, refused by ast-edit; `flagged` = a file `--skip-flagged` left out (its rewrite flagged: a")
    L.append("syntax error added, code moved, or the text not saying what the template says); `unused-ignore` = an unused `ast-grep-ignore` comment")
    L.append("that ast-grep removes.")
    L.append("")
    rules = rule_rows(os.path.join(here, "scan-project"))
    counts = {}
    for c in corpora:
        line = read_kv(os.path.join(resdir, f"scan-{c}.meta")).get("ag_preview_json", "")
        per = line.partition("per rule: ")[2]
        counts[c] = dict((x.rsplit(" ", 1)[0], x.rsplit(" ", 1)[1]) for x in per.split(", ") if " " in x)
    L.append("| rule | language | rule features | " + " | ".join(f"ast-grep matches ({c})" for c in corpora) + " |")
    L.append("| --- | --- | --- |" + " --- |" * len(corpora))
    for lang, rid, feats in rules:
        L.append(f"| `{rid}` | {lang} | {', '.join(feats)} | " + " | ".join(counts[c].get(rid, "0") for c in corpora) + " |")
    L.append("")
    if not corpora:
        L.append("No results yet: run `benches/scan_compare.sh`.")
    else:
        meta0 = read_kv(os.path.join(resdir, f"scan-{corpora[0]}.meta"))
        L.append("### Machine and versions")
        L.append("")
        for k in ("cpu", "mem", "kernel", "ast-grep", "ast-edit"):
            L.append(f"- {k}: {meta0.get(k, '')}")
        L.append("")
        L.append("### Trees after `scan -U` (the last run)")
        L.append("")
        L.append("| corpus | files | changed by ast-grep | changed by ast-edit | equal | differ | explained (by reason) | unexplained |")
        L.append("| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |")
        for c in corpora:
            meta = read_kv(os.path.join(resdir, f"scan-{c}.meta"))
            chk = os.path.join(resdir, f"scan-{c}.check")
            first = open(chk, encoding="utf-8").readline() if os.path.exists(chk) else "{}"
            try:
                r = json.loads(first)
            except json.JSONDecodeError:
                r = {}
            ex = ", ".join(f"{k} {v}" for k, v in sorted(r.get("explained", {}).items())) or "-"
            L.append(f"| {meta.get('corpus', c)} | {r.get('files', '?')} | {r.get('changed_ag', '?')} | {r.get('changed_ae', '?')} | "
                     f"{r.get('changed_both_equal', '?')} | {r.get('differ', '?')} | {ex} | **{r.get('unexplained', '?')}**"
                     + ("" if r.get("ae_applied", True) else " (ast-edit -U wrote nothing)") + " |")
        L.append("")
        L.append("### Times")
        L.append("")
        L.append("| corpus | mode | runs | ast-grep | ast-edit | ratio | peak RSS ast-grep / ast-edit | other CPU (s) |")
        L.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        for c in corpora:
            rows = list(csv.DictReader(open(os.path.join(resdir, f"scan-{c}.tsv"), encoding="utf-8"), delimiter="\t"))
            meta = read_kv(os.path.join(resdir, f"scan-{c}.meta"))
            for mode, label in (
                ("apply", "apply (`scan -U`)"),
                ("report", "report (`--json=compact` both; ast-edit's cache cold)"),
                ("report-warm", "report, ast-edit's cache warm (nothing changed)"),
                ("report-one", "report, ast-edit's cache warm, one file changed"),
                ("preview", "preview (JSON)"),
            ):
                g, e = stats(rows, "ast-grep", mode), stats(rows, "ast-edit", mode)
                if not g or not e:
                    continue
                fail = "" if not (g[5] or e[5]) else f" ({g[5]}/{e[5]} runs exited non-zero)"
                L.append(f"| {meta.get('corpus', c)} | {label} | {min(g[4], e[4])} | {g[0]:.2f} ({g[1]:.2f}) | {e[0]:.2f} ({e[1]:.2f}) | "
                         f"**{g[0] / e[0]:.2f}×**{fail} | {g[2] // 1024} / {e[2] // 1024} MB | {max(g[3], e[3]):.1f} |")
        L.append("")
        L.append("### Per corpus")
        L.append("")
        for c in corpora:
            meta = read_kv(os.path.join(resdir, f"scan-{c}.meta"))
            L.append(f"- **{meta.get('corpus', c)}** ({meta.get('date', '')}, {meta.get('files', '')}; subset: {meta.get('subset', '')})")
            for k in ("ag_apply", "ae_apply", "ag_preview", "ae_preview", "ae_report"):
                L.append(f"  - `{meta.get(k, '')}`")
            for k in ("max_filesize", "ignore_files", "ag_preview_json", "ae_preview_json", "report_records", "json_bytes", "cache_check", "cache_apply_check", "ag_apply_out"):
                if k in meta:
                    L.append(f"  - {k.replace('_', ' ')}: {meta[k]}")
            chk = os.path.join(resdir, f"scan-{c}.check")
            if os.path.exists(chk):
                lines = open(chk, encoding="utf-8").read().splitlines()
                try:
                    r = json.loads(lines[0])
                    L.append(f"  - ast-edit -U said (--json): status {r['ae_status']}, {r['ae_replacements']} replacements in "
                             f"{r['ae_files_touched']} files, {r['ae_overlaps']} nested matches, {r['ae_warnings']} warnings, "
                             f"{r['ae_skipped']} skipped")
                except (IndexError, KeyError, json.JSONDecodeError):
                    pass
                lines = lines[1:]
                un = [l for l in lines if l.startswith("UNEXPLAINED") or l.startswith("ast-edit -U wrote nothing")]
                exl = [l for l in lines if l.startswith("explained")]
                for l in un[:10]:
                    L.append(f"  - {l}")
                for l in exl[:3]:
                    L.append(f"  - {l}")
                if len(exl) > 3:
                    L.append(f"  - ... {len(exl) - 3} more explained files in `benches/results/scan-{c}.check`")
        L.append("")
    L.append(END)
    block = "\n".join(L)
    text = open(report_md, encoding="utf-8").read() if os.path.exists(report_md) else ""
    i, j = text.find(START), text.find(END)
    if 0 <= i < j:
        text = text[:i] + block + text[j + len(END):]
    elif SECTION_TITLE in text:
        k = text.index(SECTION_TITLE) + len(SECTION_TITLE)
        text = text[:k] + "\n\n" + block + text[k:]
    else:
        text = text.rstrip("\n") + "\n\n" + SECTION_TITLE + "\n\n" + block + "\n"
    open(report_md, "w", encoding="utf-8").write(text)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "maxfs":
        maxfs(sys.argv[2], sys.argv[3], sys.argv[4:])
        return 0
    if len(sys.argv) > 1 and sys.argv[1] == "report":
        report(sys.argv[2], sys.argv[3])
        return 0
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check")
    for k in ("orig", "ag", "ae", "corpus", "ae-json", "config", "ast-grep", "ast-edit", "out"):
        c.add_argument(f"--{k}", required=True)
    c.add_argument("--ae-arg", action="append", default=[])
    a = ap.parse_args()
    return check(a)


if __name__ == "__main__":
    sys.exit(main())
