#!/usr/bin/env python3
"""Helpers of benches/layout_check.sh (see there for what is measured).

    layout_check.py judge CORPORA COPY LIST   one line per file: path, equal|changed|unparsed
    layout_check.py row KIND LANG PAT REW PREFIX   one TSV row from PREFIX.{default,verbatim}.*
    layout_check.py table TSV                  the markdown table; exit 1 on a violation
"""
import ast
import json
import os
import sys
import warnings


ASYNC = {"AsyncFunctionDef": "FunctionDef", "AsyncFor": "For", "AsyncWith": "With"}


def skeleton(source, fold_async=False):
    """Each statement's type with the chain of (field, statement type) above it, in a
    fixed order: equal skeletons mean no statement moved, appeared or vanished.
    `fold_async` reads `async def` as `def` (and `async for`/`with` likewise)."""
    tree = ast.parse(source)
    out = []
    stack = [(tree, ())]
    while stack:
        node, chain = stack.pop()
        for field, value in ast.iter_fields(node):
            for v in value if isinstance(value, list) else [value]:
                if isinstance(v, ast.stmt):
                    kind = type(v).__name__
                    link = chain + ((field, ASYNC.get(kind, kind) if fold_async else kind),)
                    out.append(link)
                    stack.append((v, link))
                elif isinstance(v, ast.AST):
                    stack.append((v, chain))
    return out


def judge(corpora, copy, listing):
    warnings.simplefilter("ignore")
    for path in open(listing).read().splitlines():
        try:
            old = open(os.path.join(corpora, path), "rb").read()
            new = open(os.path.join(copy, path), "rb").read()
            if skeleton(old) == skeleton(new):
                verdict = "equal"
            elif skeleton(old, True) == skeleton(new, True):
                # The match took an `async` the pattern does not write (smart
                # strictness skips that unnamed token) and the template dropped
                # it: the statement changed kind in place, nothing moved.
                verdict = "async-dropped"
            else:
                verdict = "changed"
        except (SyntaxError, ValueError):
            verdict = "unparsed"
        print(f"{path}\t{verdict}")


def changed_lines(diff):
    return sum(1 for l in diff.split("\n")
               if (l.startswith("+") and not l.startswith("+++ ")) or
               (l.startswith("-") and not l.startswith("--- ")))


def mode(prefix, name):
    d = json.load(open(f"{prefix}.{name}.json"))
    files = {f["path"]: f for f in d["files"]}
    lines = {p: changed_lines(f["diff"]) for p, f in files.items()}
    flagged = {p for p, f in files.items() if f.get("structureChanged")}
    verdicts = {}
    if os.path.exists(f"{prefix}.{name}.judge"):
        for row in open(f"{prefix}.{name}.judge").read().splitlines():
            p, v = row.split("\t")
            verdicts[p] = v
    secs = float(open(f"{prefix}.{name}.secs").read())
    syntax = sum(1 for f in files.values() if f.get("syntaxErrorsIntroduced"))
    return files, lines, flagged, verdicts, secs, d["totalReplacements"], syntax


def row(kind, lang, pat, rew, prefix):
    df, dl, dflag, dv, dsecs, drep, dsyn = mode(prefix, "default")
    vf, vl, vflag, vv, _, vrep, vsyn = mode(prefix, "verbatim")
    larger = sorted(p for p in set(dl) | set(vl) if dl.get(p, 0) > vl.get(p, 0))
    false_alarms, misses, judged, dropped = [], [], 0, {"default": 0, "verbatim": 0}
    for name, flags, verdicts in (("default", dflag, dv), ("verbatim", vflag, vv)):
        if verdicts:
            for p, v in verdicts.items():
                if v == "unparsed":
                    continue
                judged += 1
                if v == "async-dropped":
                    dropped[name] += 1
                    continue
                if p in flags and v == "equal":
                    false_alarms.append(f"{name}:{p}")
                if p not in flags and v == "changed":
                    misses.append(f"{name}:{p}")
        elif kind == "keep" and name == "default":
            # Not Python: a rewrite that keeps structure must not be flagged.
            false_alarms += [f"{name}:{p}" for p in sorted(flags)]
    if kind == "django" and not vflag:
        misses.append("verbatim: the method-body case was not flagged")
    if kind == "django" and dflag:
        false_alarms.append("default: the method-body case was flagged")
    if kind == "throwaway":
        # Reported, not judged: such rewrites are not meant to keep structure.
        false_alarms, misses = [], []
    extra = [f"misses: {sum(m.startswith(name) for m in misses)} {name}" for name in ("default", "verbatim") if any(m.startswith(name) for m in misses)]
    extra += [f"{n} files lost an `async` the pattern did not write ({name})" for name, n in dropped.items() if n]
    note = "; ".join(extra + [f"default larger in {p}" for p in larger][:3] + false_alarms[:3] + misses[:3])
    return "\t".join(map(str, [kind, lang, pat, rew, vrep, drep, vsyn, dsyn, len(vf), sum(vl.values()), sum(dl.values()),
                               len(vflag), len(dflag), judged, len(false_alarms), len(misses),
                               f"{dsecs:.2f}", len(larger), note]))


def table(tsv):
    rows = [l.split("\t") for l in open(tsv).read().splitlines()[1:]]
    print("| kind | lang | pattern | rewrite | replacements | lines changed --verbatim | lines changed default | syntax errors --verbatim / default | structure flagged --verbatim / default | judged by ast | false alarms | misses |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    bad = 0
    for r in rows:
        kind, lang, pat, rew, rv, rd, sv, sd, files, lv, ld, fv, fd, judged, fa, miss, _secs, larger = r[:18]
        if int(larger) or int(fa) or int(miss):
            bad = 1
        reps = rv if rv == rd else f"{rv} / {rd}"
        print(f"| {kind} | {lang} | `{pat}` | `{rew}` | {reps} | {lv} | {ld} | {sv} / {sd} | {fv} / {fd} | {judged if lang == 'py' else '-'} | {fa} | {miss} |")
    tl = [sum(int(r[i]) for r in rows) for i in (9, 10)]
    print(f"\nLines changed over all cases: --verbatim {tl[0]}, default {tl[1]}.")
    for r in rows:
        if len(r) > 18 and r[18]:
            print(f"- `{r[2]}` -> `{r[3]}`: {r[18]}")
    sys.exit(bad)


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "judge":
        judge(*args)
    elif cmd == "row":
        print(row(*args))
    elif cmd == "table":
        table(*args)
    else:
        sys.exit(__doc__)
