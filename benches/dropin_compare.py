#!/usr/bin/env python3
"""`ast-edit scan` and `ast-edit test` beside `ast-grep scan` and `ast-grep test`
0.51.1 on public ast-grep rule projects, output by output: the same command line
in the same checkout must give the same bytes and the same exit code
(docs/RULES.md, "Reports"; the orders ast-grep does not fix are compared as sets).

Usage:  benches/dropin_compare.py [--src DIR] [--only OWNER/NAME ...] [--table FILE]

  --src DIR   where the checkouts are, one folder per project named OWNER+NAME
              (default $CORPORA/dropin, else ~/ast-edit-corpora/dropin). A missing
              one is cloned from GitHub and checked out at the commit listed below,
              as a user would (`git clone`, `git checkout`): each is a git
              repository, so both tools read its .gitignore files.
  --only      these projects only
  --table     also write the markdown table there
Env: AST_EDIT (default target/release/ast-edit), AST_GREP (default ast-grep on PATH).

Per project, from the checkout's root, with the project's own invocation (ARGS):
  scan ARGS --json=compact          records, sorted by file, offset, rule, text
  scan ARGS --format github         lines, sorted
  scan ARGS --format sarif          results and rules, sorted (the tool's name and
                                    version are each tool's own)
  scan ARGS --report-style rich|medium|short
                                    blocks (a severity line and what follows it),
                                    sorted: ast-grep prints files as its threads meet them
  test ARGS (when the project has testConfigs)
                                    the report's parts (docs/RULES.md, "Rule tests"),
                                    the lines each tool has of its own left out
Every ast-edit run gets its own AST_EDIT_STATE_DIR. Exit 1 when any output or exit
code differs.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# repo, commit, the project's invocation (config, paths) where its docs or CI give one.
PROJECTS = [
    ("DataDog/lading", "9500bfab9c71ce93fa02bee4cdc61008efa715b1", []),
    ("banteg/crimson", "998402773f42a65947c2fe4e74b73eb24c827ed3", []),
    ("Kong/kong", "22246ef28c16842098369b494eef879222e30c7b", []),
    ("wvhulle/nu-lint", "ed6c21c71cd2aaeb7711df86db6399b077517025", []),
    ("Desdaemon/typed-htmx", "aa7f1336d5ee1a915c98329aba6b0e2debed132a", []),
    ("DataDog/dd-trace-py", "3bb9ecda22830e3303b18b0ffa5abe7586aef6a7", []),
    ("romnn/cargo-feature-combinations", "4f9603a905b822a30c0c86afeef2c226386cc45f", []),
    ("souliane/teatree", "c53e7100c5355a6c1a6b62f04696689ae706ab94", ["-c", ".ast-grep/sgconfig.yml"]),
    ("IvanLi-CN/xp", "ec716a66a2a7ab0ef4d784d8d8d837418a0d8845", []),
    ("DanielFGray/fibrae", "8ea34e4aede0f17d6b3eb624c286ae778bf93d65", []),
    ("aaronshaf/canvas-local", "ff48e82d46bea4f7363c340401846eeb968fe9ed", ["-c", ".ast-grep/sgconfig.yml"]),
    ("facebook/bpfilter", "f862b2a33140757800ab81702afa2287fedc76bc",
     ["--config", "tests/check/ast-grep/sgconfig.yml", "src/bfcli/", "src/libbpfilter/"]),
    ("qdrant/qdrant", "74f3e85b9473c62560006c043e13737ce6b48412", ["--config", "tools/ast-grep/sgconfig.yml"]),
    ("backstop-ai/go-substantiveness", "e4dc9d390c86fbabf59be5805620c3270c325664", ["--config", "ast-grep/sgconfig.yml"]),
    ("Cardosaum/cognomen", "9876698c7672d9f1d56559f5ac756f30f6257acf", ["-c", "ast-grep/sgconfig.yml"]),
    ("victorrentea/petclinic", "0e1d2647a688f9c210756e1b411d4b66e5da563f", ["-c", ".config/sgconfig.yml"]),
    ("DetweilerRyan/gol", "5042ab3ef587e291693f4c88ad39743a8850d1d1", []),
    ("GamePad64/hclient", "5a022177792d582a034f6362e8da68796ed16140", []),
    ("nushell/nushell", "3e1172d43cabb34afb798dfc9d8724839e18fe85", []),
]

TITLE = re.compile(r"^(\S+:\d+:\d+: )?(error|warning|note|help)\[")


def run(cmd, cwd, env=None):
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, errors="replace")
    return p.returncode, p.stdout, p.stderr


def records(out):
    try:
        v = json.loads(out)
    except json.JSONDecodeError:
        return ["not JSON: " + out[:200]]
    key = lambda r: (r.get("file", ""), r["range"]["byteOffset"]["start"], str(r.get("ruleId")), r.get("text", ""))
    return [json.dumps(r, sort_keys=True) for r in sorted(v, key=key)]


def lines(out):
    return sorted(out.splitlines())


def sarif(out):
    try:
        run0 = json.loads(out)["runs"][0]
    except (json.JSONDecodeError, KeyError, IndexError):
        return ["not SARIF: " + out[:200]]
    results = sorted(json.dumps(r, sort_keys=True) for r in run0.get("results", []))
    rules = sorted(json.dumps(r, sort_keys=True) for r in run0["tool"]["driver"].get("rules", []))
    return results + ["--rules--"] + rules


def blocks(out):
    """A text report's blocks, sorted: each starts at a severity line, with a fix's path line before it."""
    all_lines = out.splitlines()
    bs = [[]]
    for i, line in enumerate(all_lines):
        if TITLE.match(line):
            fix = i + 1 < len(all_lines) and all_lines[i + 1].startswith("@@ ")
            prelude = [bs[-1].pop()] if fix and bs[-1] else []
            bs.append(prelude)
        bs[-1].append(line)
    return sorted("\n".join(b) for b in bs if b)


def test_parts(out):
    """`test`'s report without each tool's own lines, rules and case details sorted."""
    out = re.split(r"\nRunning \d+ whole-file checks? \(astEdit.checkDirs\)", out)[0]
    kept = [l for l in out.splitlines() if not l.startswith(("Configuration not found!", "Rule not found:", "wrote "))]
    rules = sorted(l for l in kept if l.startswith(("PASS ", "FAIL ", "SKIP ")))
    rest = "\n".join(l for l in kept if not l.startswith(("PASS ", "FAIL ", "SKIP ")))
    head, _, details = rest.partition("----------- Case Details -----------")
    return [head] + sorted(b.strip("\n") for b in details.split("\n\n") if b.strip("\n")) + ["--rules--"] + rules


def checkout(src, repo, commit):
    d = os.path.join(src, repo.replace("/", "+"))
    if not os.path.isdir(d):
        subprocess.run(["git", "clone", "-q", f"https://github.com/{repo}", d], check=True)
        subprocess.run(["git", "-C", d, "checkout", "-q", commit], check=True)
    head = run(["git", "-C", d, "rev-parse", "HEAD"], d)[1].strip()
    return d, head


def has_tests(d, args):
    cfg = None
    for i, a in enumerate(args):
        if a in ("-c", "--config") and i + 1 < len(args):
            cfg = os.path.join(d, args[i + 1])
    if cfg is None:
        cfg = next((os.path.join(d, n) for n in ("sgconfig.yml", "sgconfig.yaml") if os.path.exists(os.path.join(d, n))), None)
    return cfg is not None and os.path.exists(cfg) and "testConfigs" in open(cfg, encoding="utf-8", errors="replace").read(), cfg


def main():
    ap = argparse.ArgumentParser()
    default_src = os.path.join(os.environ.get("CORPORA", os.path.expanduser("~/ast-edit-corpora")), "dropin")
    ap.add_argument("--src", default=default_src)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--table")
    a = ap.parse_args()
    ae = os.environ.get("AST_EDIT", os.path.join(ROOT, "target/release/ast-edit"))
    ag = os.environ.get("AST_GREP") or shutil.which("ast-grep")
    if not ag or not os.path.exists(ae):
        sys.exit(f"needs ast-grep (AST_GREP) and ast-edit ({ae}: cargo build --release)")
    version = run([ag, "--version"], ROOT)[1].strip()
    if version != "ast-grep 0.51.1":
        sys.exit(f"needs ast-grep 0.51.1, found {version}")
    os.makedirs(a.src, exist_ok=True)
    outputs = [
        ("json", ["scan", "--json=compact"], records),
        ("github", ["scan", "--format", "github"], lines),
        ("sarif", ["scan", "--format", "sarif"], sarif),
        ("rich", ["scan", "--report-style", "rich"], blocks),
        ("medium", ["scan", "--report-style", "medium"], blocks),
        ("short", ["scan", "--report-style", "short"], blocks),
    ]
    rows, failed = [], False
    for repo, commit, args in PROJECTS:
        if a.only and repo not in a.only:
            continue
        d, head = checkout(a.src, repo, commit)
        tests, _ = has_tests(d, args)
        cells, codes, findings = [], [], None
        jobs = list(outputs) + ([("test", ["test"], test_parts)] if tests else [])
        for name, cmd, shape in jobs:
            # `test` takes the config, not the paths.
            extra = [x for i, x in enumerate(args) if name != "test" or x in ("-c", "--config") or (i > 0 and args[i - 1] in ("-c", "--config"))]
            with tempfile.TemporaryDirectory() as state:
                env = dict(os.environ, AST_EDIT_STATE_DIR=state, NO_COLOR="1")
                c1, o1, _ = run([ag] + cmd[:1] + extra + cmd[1:], d, env)
                c2, o2, e2 = run([ae] + cmd[:1] + extra + cmd[1:], d, env)
            same = shape(o1) == shape(o2) and c1 == c2
            failed |= not same
            if name == "json":
                findings = (len(shape(o1)), len(shape(o2)))
            cells.append("yes" if same else f"**no** ({c1}/{c2})")
            codes.append(str(c1) if c1 == c2 else f"{c1}/{c2}")
            if not same:
                print(f"{repo} {name}: differs (exit {c1} / {c2}); ast-edit stderr: {e2[:300]}", file=sys.stderr)
        if not tests:
            cells.append("(no tests)")
        row = f"| {repo} | {head[:8]} | {' '.join(args) or '(root config)'} | {findings[0]} / {findings[1]} | " + " | ".join(cells) + f" | {', '.join(sorted(set(codes)))} |"
        rows.append(row)
        print(row, flush=True)
    header = "| repo | commit | invocation | JSON records ag / ae | json | github | sarif | rich | medium | short | test | exit codes |\n|---|---|---|---|---|---|---|---|---|---|---|---|"
    table = header + "\n" + "\n".join(rows) + "\n"
    if a.table:
        with open(a.table, "w", encoding="utf-8") as f:
            f.write(f"{version} beside ast-edit {run(['git', '-C', ROOT, 'rev-parse', '--short', 'HEAD'], ROOT)[1].strip()}\n\n" + table)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
