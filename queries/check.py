#!/usr/bin/env python3
"""Check every rule of the queries/ catalog through the real binary.

For each rule file (queries/<language>/<rule-id>.json) and each test case, the case
is written as the only file of a fresh temp folder (named with the language's
extension) and the rule is applied with

    ast-edit run -l LANG -p PAT -r REW [-p PAT -r REW]... [--selector K]
                 [--strictness S] [-g GLOB]... DIR -U --json

then the file is compared with `after` (tests.invalid) or with the unchanged input
(tests.valid). The rule files themselves are checked too: exactly the documented
keys, a unique kebab-case id with the language's prefix, at least one valid and
two invalid cases.

When ast-grep is on PATH (or $AST_GREP names it), every case text (valid, before
and after) is also checked to parse without ERROR nodes, so the catalog only holds
complete, valid source files. `--parity` additionally runs `ast-grep run -U` on
the before texts of single-op rules and requires the same output.

Usage: queries/check.py [--parity] [-v] [RULE_FILE|DIR]...   (default: queries/)
Binary: $AST_EDIT, else target/debug/ast-edit (or release) of this repository,
else ast-edit on PATH. Prints `N passed, N failed`; exit 1 on any failure.
Needs only python3.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

REQUIRED = {"id", "language", "description", "ops", "tests"}
OPTIONAL = {"selector", "strictness", "globs"}
STRICTNESS = {"cst", "smart", "ast", "relaxed", "signature"}
# The extension a case file gets (first listed extension otherwise).
PREFERRED_EXT = {
    "python": "py", "javascript": "js", "typescript": "ts", "tsx": "tsx",
    "rust": "rs", "go": "go", "c": "c", "cpp": "cpp", "java": "java",
    "ruby": "rb", "kotlin": "kt", "csharp": "cs", "php": "php", "bash": "sh",
}
# The id prefix each language's rules use.
PREFIX = {
    "python": "py", "javascript": "js", "typescript": "ts", "tsx": "tsx",
    "rust": "rs", "go": "go", "c": "c", "cpp": "cpp", "java": "java", "ruby": "rb",
}
# ast-grep's name for a language, when it differs from ast-edit's.
AST_GREP_LANG = {"csharp": "csharp", "cpp": "cpp"}


def find_binary():
    env = os.environ.get("AST_EDIT")
    if env:
        return env
    for profile in ("debug", "release"):
        p = os.path.join(ROOT, "target", profile, "ast-edit")
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    p = shutil.which("ast-edit")
    if p:
        return p
    sys.exit("check.py: no ast-edit binary: run `cargo build` or set AST_EDIT")


def languages(binary):
    out = subprocess.run([binary, "langs", "--json"], capture_output=True, text=True, check=True).stdout
    table = {}
    for lang in json.loads(out):
        for name in [lang["name"]] + lang.get("aliases", []):
            table[name.lower()] = lang
    return table


def rule_files(paths):
    files = []
    for path in paths:
        if os.path.isfile(path):
            files.append(path)
            continue
        for dirpath, _, names in os.walk(path):
            files.extend(os.path.join(dirpath, n) for n in names if n.endswith(".json"))
    return sorted(files)


def check_shape(path, rule, langs):
    """Problems with the rule file itself (empty list when fine)."""
    problems = []
    if not isinstance(rule, dict):
        return ["the file must hold one rule object"]
    keys = set(rule)
    for k in sorted(REQUIRED - keys):
        problems.append(f"missing key `{k}`")
    for k in sorted(keys - REQUIRED - OPTIONAL):
        problems.append(f"unknown key `{k}`")
    if problems:
        return problems
    rid, lang = rule["id"], rule["language"]
    if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", rid):
        problems.append(f"id `{rid}` is not kebab-case with a language prefix")
    info = langs.get(str(lang).lower())
    if info is None:
        problems.append(f"language `{lang}` is not listed by `ast-edit langs`")
    else:
        prefix = PREFIX.get(info["name"], info["name"])
        if not rid.startswith(prefix + "-"):
            problems.append(f"id `{rid}` should start with `{prefix}-`")
        folder = os.path.basename(os.path.dirname(os.path.abspath(path)))
        if folder != info["name"]:
            problems.append(f"file should live in queries/{info['name']}/, not {folder}/")
    if os.path.basename(path) != rid + ".json":
        problems.append(f"file name should be `{rid}.json`")
    if not str(rule["description"]).strip():
        problems.append("empty description")
    ops = rule["ops"]
    if not isinstance(ops, list) or not ops:
        problems.append("`ops` must be a non-empty list")
    else:
        for i, op in enumerate(ops):
            if not isinstance(op, dict) or set(op) != {"pat", "out"}:
                problems.append(f"ops[{i}] must have exactly `pat` and `out`")
    if "strictness" in rule and rule["strictness"] not in STRICTNESS:
        problems.append(f"strictness `{rule['strictness']}` is not one of {sorted(STRICTNESS)}")
    if "globs" in rule and not (isinstance(rule["globs"], list) and all(isinstance(g, str) for g in rule["globs"])):
        problems.append("`globs` must be a list of strings")
    tests = rule["tests"]
    if not isinstance(tests, dict) or set(tests) - {"valid", "invalid"}:
        problems.append("`tests` must hold only `valid` and `invalid`")
        return problems
    valid, invalid = tests.get("valid", []), tests.get("invalid", [])
    if len(valid) < 1:
        problems.append("needs at least one tests.valid case")
    if len(invalid) < 2:
        problems.append("needs at least two tests.invalid cases")
    for i, case in enumerate(invalid):
        if not isinstance(case, dict) or set(case) != {"before", "after"}:
            problems.append(f"tests.invalid[{i}] must have exactly `before` and `after`")
        elif case["before"] == case["after"]:
            problems.append(f"tests.invalid[{i}]: before equals after (put it in tests.valid)")
    return problems


def run_rule(binary, rule, lang_name, ext, text, state_dir):
    """Applies the rule to `text` in a fresh folder; returns (new_text, error)."""
    with tempfile.TemporaryDirectory(prefix="ast-edit-check-") as tmp:
        path = os.path.join(tmp, "case." + ext)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        cmd = [binary, "run", "-l", lang_name]
        for op in rule["ops"]:
            # `--pattern=...` so a pattern that starts with `-` (`-1 != ...`) is not taken for a flag
            cmd += ["--pattern=" + op["pat"], "--rewrite=" + op["out"]]
        if rule.get("selector"):
            cmd += ["--selector", rule["selector"]]
        if rule.get("strictness"):
            cmd += ["--strictness", rule["strictness"]]
        for g in rule.get("globs", []):
            cmd += ["-g", g]
        cmd += [tmp, "-U", "--json", "--color", "never"]
        env = dict(os.environ, AST_EDIT_STATE_DIR=state_dir, NO_COLOR="1")
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            return None, f"exit {proc.returncode}: {proc.stderr.strip() or proc.stdout.strip()}"
        with open(path, encoding="utf-8", newline="") as f:
            return f.read(), None


def ast_grep_binary():
    return os.environ.get("AST_GREP") or shutil.which("ast-grep") or shutil.which("sg")


def parse_errors(sg, lang_name, ext, text):
    """ERROR nodes ast-grep finds in `text` (a list of snippets)."""
    with tempfile.TemporaryDirectory(prefix="ast-edit-check-") as tmp:
        path = os.path.join(tmp, "case." + ext)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        rule = f"id: parse-error\nlanguage: {AST_GREP_LANG.get(lang_name, lang_name)}\nseverity: error\nrule: {{kind: ERROR}}\n"
        proc = subprocess.run([sg, "scan", "--inline-rules", rule, "--json=compact", path],
                              capture_output=True, text=True)
        try:
            hits = json.loads(proc.stdout or "[]")
        except json.JSONDecodeError:
            return [f"ast-grep said: {proc.stderr.strip()}"]
        return [h["text"] for h in hits]


def ast_grep_rewrite(sg, rule, lang_name, ext, text):
    with tempfile.TemporaryDirectory(prefix="ast-edit-check-") as tmp:
        path = os.path.join(tmp, "case." + ext)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        op = rule["ops"][0]
        cmd = [sg, "run", "-l", AST_GREP_LANG.get(lang_name, lang_name), "--pattern=" + op["pat"],
               "--rewrite=" + op["out"], "-U"]
        if rule.get("selector"):
            cmd += ["--selector", rule["selector"]]
        if rule.get("strictness"):
            cmd += ["--strictness", rule["strictness"]]
        proc = subprocess.run(cmd + [path], capture_output=True, text=True)
        if proc.returncode not in (0, 1):  # ast-grep exits 1 when nothing matched
            return None, f"exit {proc.returncode}: {proc.stderr.strip()}"
        with open(path, encoding="utf-8", newline="") as f:
            return f.read(), None


def show(text):
    return "\n".join("      | " + line for line in text.split("\n"))


def main(argv):
    parity = "--parity" in argv
    verbose = "-v" in argv
    paths = [a for a in argv if not a.startswith("-")] or [HERE]
    binary = find_binary()
    langs = languages(binary)
    sg = ast_grep_binary()
    if not sg:
        print("note: ast-grep not found; case texts are not checked for parse errors", file=sys.stderr)
    passed = failed = 0
    seen_ids = {}
    state_dir = tempfile.mkdtemp(prefix="ast-edit-check-state-")
    try:
        for path in rule_files(paths):
            rel = os.path.relpath(path, ROOT)
            try:
                with open(path, encoding="utf-8") as f:
                    rule = json.load(f)
            except (OSError, json.JSONDecodeError) as e:
                print(f"FAIL {rel}: {e}")
                failed += 1
                continue
            problems = check_shape(path, rule, langs)
            rid = rule.get("id", "?") if isinstance(rule, dict) else "?"
            if rid in seen_ids:
                problems.append(f"id `{rid}` already used by {seen_ids[rid]}")
            seen_ids[rid] = rel
            if problems:
                for p in problems:
                    print(f"FAIL {rel}: {p}")
                failed += 1
                continue
            info = langs[rule["language"].lower()]
            lang_name = info["name"]
            ext = PREFERRED_EXT.get(lang_name, info["extensions"][0])
            cases = [(f"valid[{i}]", code, code) for i, code in enumerate(rule["tests"].get("valid", []))]
            cases += [(f"invalid[{i}]", c["before"], c["after"]) for i, c in enumerate(rule["tests"]["invalid"])]
            for name, before, expected in cases:
                errors = []
                got, err = run_rule(binary, rule, lang_name, ext, before, state_dir)
                if err:
                    errors.append(f"ast-edit failed: {err}")
                elif got != expected:
                    errors.append("output differs\n    expected:\n" + show(expected) + "\n    got:\n" + show(got))
                if sg:
                    texts = [("before", before)] if before == expected else [("before", before), ("after", expected)]
                    for label, text in texts:
                        bad = parse_errors(sg, lang_name, ext, text)
                        if bad:
                            errors.append(f"{label} does not parse cleanly; ERROR nodes: {bad!r}")
                    if parity and len(rule["ops"]) == 1:
                        sg_got, sg_err = ast_grep_rewrite(sg, rule, lang_name, ext, before)
                        if sg_err:
                            errors.append(f"ast-grep failed: {sg_err}")
                        elif sg_got != got:
                            errors.append("ast-grep writes something else\n    ast-grep:\n" + show(sg_got)
                                          + "\n    ast-edit:\n" + show(got or ""))
                if errors:
                    failed += 1
                    for e in errors:
                        print(f"FAIL {rid} {name}: {e}")
                else:
                    passed += 1
                    if verbose:
                        print(f"ok   {rid} {name}")
    finally:
        shutil.rmtree(state_dir, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
