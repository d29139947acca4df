#!/usr/bin/env python3
"""Checks the queries/ catalog, an ast-grep project (sgconfig.yml next to this file).

1. The files themselves: every rule document has an id, a language, a message, a
   severity, a rule and a fix; ids are kebab-case, start with the language prefix
   (py-, js-, ts-, tsx-, rs-, go-, c-, cpp-, java-, rb-) and are unique; a rule file
   lives in rules/<language>/ and is named after its first rule. Every rule has a test
   file (rule-tests/<id>-test.yml) with at least 1 valid and 2 invalid cases, and
   belongs to exactly one whole-file check file (rule-checks/<first id>.yml) whose
   cases hold every invalid case of its rules. With ast-grep at hand, every case text
   is also checked to parse without ERROR nodes, so the catalog only holds complete,
   valid source files.
2. The whole-file checks: each case's `before` is written as the only file of a fresh
   folder (case.<ext>) and the check's rules are run on it with
     --tool ast-edit (default)   ast-edit scan -r RULE_FILE DIR -U --preview-json
     --tool ast-grep             ast-grep scan -r RULE_FILE DIR -U
   The file must then hold exactly `after`. RULE_FILE is the rule file that holds
   exactly the check's rules.

A check file is `{id: RULE_ID, cases: [{before, after}]}`, or `{ids: [ID, ...], cases}`
for a codemod made of several rules that run together (one rule file with several
YAML documents).

Usage: queries/check.py [--tool ast-edit|ast-grep] [-v] [CHECK_FILE...]
  (default: every check file of the project's astEdit.checkDirs)
Binaries: ast-edit is $AST_EDIT, else target/{debug,release}/ast-edit of this
repository, else ast-edit on PATH; ast-grep is $AST_GREP, else ast-grep on PATH.
Prints `N passed, N failed` (one per whole-file case; a broken file counts as a
failure) and exits 1 on any failure, 2 on bad usage or a missing tool.
Needs python3 and PyYAML (pip install pyyaml).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:
    sys.exit("check.py: needs PyYAML to read the catalog's YAML files: pip install pyyaml")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
AST_GREP_VERSION = "ast-grep 0.51.1"

# Per language: the id prefix, the extension a case file gets.
LANGS = {
    "python": ("py", "py"), "javascript": ("js", "js"), "typescript": ("ts", "ts"),
    "tsx": ("tsx", "tsx"), "rust": ("rs", "rs"), "go": ("go", "go"), "c": ("c", "c"),
    "cpp": ("cpp", "cpp"), "java": ("java", "java"), "ruby": ("rb", "rb"),
}
RULE_KEYS = {"id", "language", "severity", "message", "rule", "fix"}
SEVERITIES = {"hint", "info", "warning", "error"}


class Catalog:
    """Everything read from the project, plus the problems found on the way."""

    def __init__(self):
        self.problems = []          # (where, what)
        self.rules = {}             # id -> (rule file, document)
        self.files = {}             # rule file -> [ids]
        self.tests = {}             # id -> {"valid": [...], "invalid": [...]}
        self.checks = []            # (check file, [ids], [cases])

    def problem(self, where, what):
        self.problems.append((os.path.relpath(where, ROOT), what))


def load_yaml_docs(path, cat):
    try:
        with open(path, encoding="utf-8") as f:
            return [d for d in yaml.safe_load_all(f) if d is not None]
    except (OSError, yaml.YAMLError) as e:
        cat.problem(path, f"cannot read: {e}")
        return []


def yaml_files(folder):
    out = []
    for dirpath, dirnames, names in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__snapshots__")
        out += [os.path.join(dirpath, n) for n in sorted(names) if n.endswith((".yml", ".yaml"))]
    return out


def read_config(cat):
    path = os.path.join(HERE, "sgconfig.yml")
    docs = load_yaml_docs(path, cat)
    if len(docs) != 1 or not isinstance(docs[0], dict):
        sys.exit(f"check.py: {path}: expected one mapping")
    conf = docs[0]
    rule_dirs = conf.get("ruleDirs") or []
    test_dirs = [t["testDir"] for t in conf.get("testConfigs") or []]
    check_dirs = (conf.get("astEdit") or {}).get("checkDirs") or []
    if not (rule_dirs and test_dirs and check_dirs):
        sys.exit(f"check.py: {path}: needs ruleDirs, testConfigs[].testDir and astEdit.checkDirs")
    return [[os.path.join(HERE, d) for d in ds] for ds in (rule_dirs, test_dirs, check_dirs)]


def read_rules(cat, rule_dirs):
    for folder in rule_dirs:
        for path in yaml_files(folder):
            docs = load_yaml_docs(path, cat)
            ids = []
            for doc in docs:
                rid = check_rule(cat, path, doc)
                if rid is None:
                    continue
                if rid in cat.rules:
                    cat.problem(path, f"id `{rid}` is already used in {os.path.relpath(cat.rules[rid][0], ROOT)}")
                    continue
                cat.rules[rid] = (path, doc)
                ids.append(rid)
            if ids:
                cat.files[path] = ids
                if os.path.basename(path) not in (ids[0] + ".yml", ids[0] + ".yaml"):
                    cat.problem(path, f"the file should be named after its first rule: {ids[0]}.yml")


def check_rule(cat, path, doc):
    """The rule's id when its shape is fine (problems are recorded)."""
    if not isinstance(doc, dict):
        cat.problem(path, "a rule document must be a mapping")
        return None
    missing = sorted(RULE_KEYS - set(doc))
    rid = doc.get("id", "?")
    if missing:
        cat.problem(path, f"rule `{rid}`: missing {', '.join(missing)}")
        return None
    lang = doc["language"]
    if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", str(rid)):
        cat.problem(path, f"id `{rid}` is not kebab-case with a language prefix")
    if lang not in LANGS:
        cat.problem(path, f"rule `{rid}`: language `{lang}` is not one of {sorted(LANGS)} (add it to LANGS)")
        return None
    prefix = LANGS[lang][0]
    if not str(rid).startswith(prefix + "-"):
        cat.problem(path, f"id `{rid}` should start with `{prefix}-`")
    if os.path.basename(os.path.dirname(path)) != lang:
        cat.problem(path, f"rule `{rid}` should live in rules/{lang}/")
    if doc["severity"] not in SEVERITIES:
        cat.problem(path, f"rule `{rid}`: severity `{doc['severity']}` is not one of {sorted(SEVERITIES)}")
    if not str(doc["message"]).strip():
        cat.problem(path, f"rule `{rid}`: empty message")
    return rid


def texts(value):
    return isinstance(value, list) and all(isinstance(t, str) for t in value)


def read_tests(cat, test_dirs):
    for folder in test_dirs:
        for path in yaml_files(folder):
            for doc in load_yaml_docs(path, cat):
                if not isinstance(doc, dict) or set(doc) - {"id", "valid", "invalid"}:
                    cat.problem(path, "a test document holds only `id`, `valid` and `invalid`")
                    continue
                rid = doc.get("id")
                valid, invalid = doc.get("valid") or [], doc.get("invalid") or []
                if rid not in cat.rules:
                    cat.problem(path, f"tests for an unknown rule `{rid}`")
                elif rid in cat.tests:
                    cat.problem(path, f"a second test document for `{rid}`")
                elif not (texts(valid) and texts(invalid)):
                    cat.problem(path, f"`{rid}`: valid and invalid must be lists of source texts")
                else:
                    if os.path.basename(path) != f"{rid}-test.yml":
                        cat.problem(path, f"tests for `{rid}` belong in {rid}-test.yml")
                    if len(valid) < 1:
                        cat.problem(path, f"`{rid}` needs at least one valid case")
                    if len(invalid) < 2:
                        cat.problem(path, f"`{rid}` needs at least two invalid cases")
                    cat.tests[rid] = {"valid": valid, "invalid": invalid}
    for rid, (path, _) in sorted(cat.rules.items()):
        if rid not in cat.tests:
            cat.problem(path, f"rule `{rid}` has no test file ({rid}-test.yml)")


def read_checks(cat, check_dirs):
    owner = {}
    for folder in check_dirs:
        for path in yaml_files(folder):
            for doc in load_yaml_docs(path, cat):
                entry = check_entry(cat, path, doc)
                if entry is None:
                    continue
                ids, cases = entry
                for rid in ids:
                    if rid in owner:
                        cat.problem(path, f"rule `{rid}` is already checked by {os.path.relpath(owner[rid], ROOT)}")
                    owner[rid] = path
                befores = {c["before"] for c in cases if c["before"] != c["after"]}
                for rid in ids:
                    for i, text in enumerate(cat.tests.get(rid, {}).get("invalid", [])):
                        if text not in befores:
                            cat.problem(path, f"invalid[{i}] of `{rid}` has no whole-file case here (before -> after)")
                cat.checks.append((path, ids, cases))
    for rid, (path, _) in sorted(cat.rules.items()):
        if rid not in owner:
            cat.problem(path, f"rule `{rid}` is in no whole-file check file")


def check_entry(cat, path, doc):
    """([ids], [cases]) of one check document, or None (problems are recorded)."""
    if not isinstance(doc, dict) or set(doc) - {"id", "ids", "cases"} or ("id" in doc) == ("ids" in doc):
        cat.problem(path, "a check document is {id: RULE_ID, cases: [...]} or {ids: [RULE_ID, ...], cases: [...]}")
        return None
    ids = [doc["id"]] if "id" in doc else doc["ids"]
    cases = doc.get("cases")
    if not (texts(ids) and ids):
        cat.problem(path, "`ids` must be a non-empty list of rule ids")
        return None
    unknown = [rid for rid in ids if rid not in cat.rules]
    if unknown:
        cat.problem(path, f"unknown rule ids: {', '.join(unknown)}")
        return None
    if not isinstance(cases, list) or not cases or not all(
            isinstance(c, dict) and set(c) == {"before", "after"} and texts([c["before"], c["after"]]) for c in cases):
        cat.problem(path, "`cases` must be a non-empty list of {before, after} texts")
        return None
    if os.path.basename(path) != ids[0] + ".yml":
        cat.problem(path, f"the checks of `{ids[0]}` belong in {ids[0]}.yml")
    langs = {cat.rules[rid][1]["language"] for rid in ids}
    if len(langs) != 1:
        cat.problem(path, f"the rules of one check must share a language, not {sorted(langs)}")
        return None
    return ids, cases


def ast_grep_binary():
    return os.environ.get("AST_GREP") or shutil.which("ast-grep")


def ast_edit_binary():
    env = os.environ.get("AST_EDIT")
    if env:
        return env
    for profile in ("debug", "release"):
        p = os.path.join(ROOT, "target", profile, "ast-edit")
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return shutil.which("ast-edit")


def parse_errors(sg, cat):
    """Every case text must parse without ERROR nodes: one ast-grep run per language."""
    by_lang = {}
    for rid, tests in cat.tests.items():
        lang = cat.rules[rid][1]["language"]
        for kind in ("valid", "invalid"):
            for i, t in enumerate(tests[kind]):
                by_lang.setdefault(lang, []).append((f"rule-tests: {rid} {kind}[{i}]", t))
    for path, ids, cases in cat.checks:
        lang = cat.rules[ids[0]][1]["language"]
        for i, c in enumerate(cases):
            for side in ("before", "after"):
                by_lang.setdefault(lang, []).append((f"{os.path.basename(path)} cases[{i}].{side}", c[side]))
    for lang, items in sorted(by_lang.items()):
        with tempfile.TemporaryDirectory(prefix="queries-check-") as tmp:
            names = {}
            for n, (label, text) in enumerate(items):
                name = f"case{n}.{LANGS[lang][1]}"
                names[name] = label
                with open(os.path.join(tmp, name), "w", encoding="utf-8", newline="") as f:
                    f.write(text)
            rule = f"id: parse-error\nlanguage: {lang}\nseverity: error\nrule: {{kind: ERROR}}\n"
            proc = subprocess.run([sg, "scan", "--inline-rules", rule, "--json=compact", "."],
                                  capture_output=True, text=True, cwd=tmp)
            try:
                hits = json.loads(proc.stdout or "[]")
            except json.JSONDecodeError:
                cat.problems.append(("ast-grep", f"parse check for {lang} failed: {proc.stderr.strip()}"))
                continue
            for h in hits:
                label = names.get(os.path.basename(h["file"]), h["file"])
                cat.problems.append((label, f"does not parse cleanly; ERROR node: {h['text']!r}"))


def rule_file_for(cat, ids, tmp):
    """The rule file holding exactly `ids`; else one written into `tmp` from the documents."""
    files = {cat.rules[rid][0] for rid in ids}
    if len(files) == 1:
        (path,) = files
        if sorted(cat.files[path]) == sorted(ids):
            return path
    path = os.path.join(tmp, "rules.yml")
    with open(path, "w", encoding="utf-8") as f:
        yaml.safe_dump_all([cat.rules[rid][1] for rid in ids], f, sort_keys=False, allow_unicode=True)
    return path


def run_case(tool, binary, rule_file, lang, text):
    """Rewrites `text` with the tool as the only file of a fresh folder: (new text, error)."""
    with tempfile.TemporaryDirectory(prefix="queries-check-") as tmp:
        case_dir = os.path.join(tmp, "case")
        os.mkdir(case_dir)
        path = os.path.join(case_dir, "case." + LANGS[lang][1])
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        env = dict(os.environ, NO_COLOR="1")
        if tool == "ast-edit":
            state = os.path.join(tmp, "state")
            os.mkdir(state)
            env["AST_EDIT_STATE_DIR"] = state
            cmd = [binary, "scan", "-r", rule_file, case_dir, "-U", "--preview-json", "--verbatim"]
        else:
            cmd = [binary, "scan", "-r", rule_file, case_dir, "-U"]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp)
        if proc.returncode != 0:
            return None, f"`{' '.join(cmd)}` exited {proc.returncode}: {proc.stderr.strip() or proc.stdout.strip()}"
        with open(path, encoding="utf-8", newline="") as f:
            return f.read(), None


def show(text):
    return "\n".join("      | " + line for line in text.split("\n"))


def parse_args(argv):
    tool, verbose, paths = "ast-edit", False, []
    it = iter(argv)
    for a in it:
        if a in ("-h", "--help"):
            print(__doc__)
            sys.exit(0)
        elif a == "-v":
            verbose = True
        elif a == "--tool" or a.startswith("--tool="):
            tool = a.split("=", 1)[1] if "=" in a else next(it, "")
            if tool not in ("ast-edit", "ast-grep"):
                sys.exit(f"check.py: --tool must be ast-edit or ast-grep, not `{tool}`")
        elif a.startswith("-"):
            sys.exit(f"check.py: unknown option `{a}` (see --help)")
        else:
            paths.append(os.path.abspath(a))
    return tool, verbose, paths


def main(argv):
    tool, verbose, only = parse_args(argv)
    sg = ast_grep_binary()
    binary = sg if tool == "ast-grep" else ast_edit_binary()
    if not binary:
        sys.exit(f"check.py: no {tool} binary: " + ("pip install ast-grep-cli==0.51.1 or set AST_GREP"
                                                      if tool == "ast-grep" else "run `cargo build` or set AST_EDIT"))
    if sg:
        version = subprocess.run([sg, "--version"], capture_output=True, text=True).stdout.strip()
        if version != AST_GREP_VERSION:
            print(f"note: the catalog is verified with {AST_GREP_VERSION}; {sg} is `{version}`", file=sys.stderr)
    else:
        print("note: ast-grep not found; case texts are not checked for parse errors", file=sys.stderr)
    cat = Catalog()
    rule_dirs, test_dirs, check_dirs = read_config(cat)
    read_rules(cat, rule_dirs)
    read_tests(cat, test_dirs)
    read_checks(cat, check_dirs)
    if sg:
        parse_errors(sg, cat)
    for where, what in cat.problems:
        print(f"FAIL {where}: {what}")
    passed, failed = 0, len(cat.problems)
    for path, ids, cases in cat.checks:
        if only and path not in only:
            continue
        lang = cat.rules[ids[0]][1]["language"]
        with tempfile.TemporaryDirectory(prefix="queries-check-rules-") as tmp:
            rule_file = rule_file_for(cat, ids, tmp)
            for i, case in enumerate(cases):
                name = f"{os.path.relpath(path, HERE)} cases[{i}]"
                got, err = run_case(tool, binary, rule_file, lang, case["before"])
                if err is None and got != case["after"]:
                    err = "output differs\n    expected:\n" + show(case["after"]) + "\n    got:\n" + show(got)
                if err:
                    failed += 1
                    print(f"FAIL {name}: {err}")
                else:
                    passed += 1
                    if verbose:
                        print(f"ok   {name}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
