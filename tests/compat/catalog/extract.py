#!/usr/bin/env python3
"""Turn the ast-grep website's rule catalog into compatibility cases for tests/compat.rs.

Usage:
    python3 tests/compat/catalog/extract.py CHECKOUT [--ast-grep BIN] [--ast-edit BIN]

CHECKOUT is a work tree of https://github.com/ast-grep/ast-grep.github.io (the commit
is named in NOTICE); the pages are read from CHECKOUT/website/catalog/<folder>/<page>.md.
BIN defaults: $AST_GREP or `ast-grep` (must be 0.51.1), $AST_EDIT or `ast-edit`.

Each page is split into fenced code blocks. A *rule block* is a ```yaml/```yml block
outside the Example/Diff/Fix sections with at least one YAML document that has a
top-level `rule:` key. Rule blocks are numbered 1, 2, ... per page. A rule block with a
top-level `fix:` in some document, on a page with an Example block, becomes the case
`cases/<folder>-<page>-<n>/`:
  - rule.yml: the block's text, with a provenance comment on top; a document without
    `language:` gets the page's language (the `lang` of the page's playground link, else
    the folder name), which is what the website's playground runs it with;
  - input.<ext>: the first code block of the Example section (not under a Diff heading),
    with VitePress `[!code ...]` annotations removed and lines marked `[!code ++]` dropped;
    ext from the rule's language.
Every rule block that does not become a case is listed in skipped.txt with the reason:
no fix, no example, a language ast-edit lacks (`ast-edit langs --json`), or the error
ast-grep 0.51.1 gives when loading it (`ast-grep scan -r rule.yml` on the input).

The script deletes and rewrites cases/ and skipped.txt; it prints one line per case
(whether ast-grep's `scan -U` changes the input, and whether the result equals the
page's Diff block) for the reader, which is not stored.
"""

import argparse
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = "ast-grep/ast-grep.github.io"

# The file extension the input gets, by ast-edit's canonical language name.
EXT = {
    "bash": "sh", "c": "c", "cpp": "cpp", "csharp": "cs", "css": "css", "dart": "dart",
    "elixir": "ex", "go": "go", "haskell": "hs", "hcl": "hcl", "html": "html",
    "java": "java", "javascript": "js", "json": "json", "kotlin": "kt", "lua": "lua",
    "nix": "nix", "php": "php", "python": "py", "ruby": "rb", "rust": "rs",
    "scala": "scala", "solidity": "sol", "swift": "swift", "tsx": "tsx",
    "typescript": "ts", "yaml": "yml",
}

FENCE = re.compile(r"^(`{3,})\s*([A-Za-z0-9_+-]*)(.*)$")
HEADING = re.compile(r"^(#{2,6})\s+(.*?)\s*$")
ANNOTATION = re.compile(r"\s*(?://|#|<!--)?\s*\[!code [^\]]*\](?:\s*-->)?")


def blocks(text):
    """Fenced code blocks as dicts: section (### heading), sub (#### heading), lang, body."""
    out, section, sub, lines, i = [], "", "", text.split("\n"), 0
    while i < len(lines):
        h, f = HEADING.match(lines[i]), FENCE.match(lines[i])
        if h and len(h.group(1)) <= 3:
            section, sub = h.group(2), ""
        elif h:
            sub = h.group(2)
        elif f:
            j = i + 1
            while j < len(lines) and not lines[j].startswith(f.group(1)):
                j += 1
            body = "\n".join(lines[i + 1:j]) + "\n"
            out.append({"section": section, "sub": sub, "lang": f.group(2).lower(), "body": body})
            i = j
        i += 1
    return out


def documents(body):
    return re.split(r"^---[ \t]*$", body, flags=re.M)


def top_key(doc, key):
    m = re.search(r"^%s:[ \t]*(.*)$" % re.escape(key), doc, re.M)
    return m.group(1).strip().strip("'\"") if m else None


def section_kind(b):
    s = b["section"].lower()
    if s.startswith("example"):
        return "diff" if b["sub"].lower().startswith("diff") else "example"
    if s.startswith("diff") or s.startswith("fix"):
        return "diff"
    return "text"


def page_lang(text, folder):
    m = re.search(r"playground#([A-Za-z0-9+/=_-]+)", text)
    if m:
        try:
            lang = json.loads(base64.b64decode(m.group(1) + "=" * (-len(m.group(1)) % 4)))["lang"]
            if lang:
                return lang
        except (ValueError, KeyError):
            pass
    return folder


def strip_annotations(body, drop):
    """Remove `[!code ...]` markers; drop lines marked `[!code DROP]`."""
    out = []
    for line in body.split("\n"):
        if "[!code %s]" % drop in line:
            continue
        out.append(ANNOTATION.sub("", line))
    return "\n".join(out)


def with_language(body, lang):
    docs = documents(body)
    fixed = [d if top_key(d, "language") is not None or top_key(d, "rule") is None
             else re.sub(r"^(?=\S)", "language: %s\n" % lang, d, count=1, flags=re.M)
             for d in docs]
    return "---".join(fixed), fixed != docs


def run(cmd, cwd=None):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def ast_edit_langs(bin_):
    code, out, err = run([bin_, "langs", "--json"])
    if code != 0:
        sys.exit("ast-edit langs --json failed: " + err)
    names = {}
    for lang in json.loads(out):
        for alias in [lang["name"]] + lang["aliases"]:
            names[alias.lower()] = lang["name"]
    return names


def first_error(err):
    """ast-grep's cause chain (the `╰▻` lines), without the file name."""
    causes = []
    for line in err.splitlines():
        line = line.strip()
        if line.startswith("╰▻") and line[2:].strip() not in causes:
            causes.append(line[2:].strip())
    return " / ".join(causes) or err.strip().splitlines()[0]


def ast_grep_scan(ag, rule, name, text):
    """(loaded, error, result text) of `ast-grep scan -r rule.yml -U` on one file."""
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "src"))
        with open(os.path.join(d, "rule.yml"), "w") as f:
            f.write(rule)
        with open(os.path.join(d, "src", name), "w") as f:
            f.write(text)
        code, _, err = run([ag, "scan", "-r", "rule.yml", "-U", "src"], cwd=d)
        with open(os.path.join(d, "src", name)) as f:
            after = f.read()
    if code not in (0, 1):
        return False, first_error(err), None
    return True, None, after


def diff_after(diff):
    return strip_annotations(diff, "--") if diff else None


def page_cases(path, rel, ag, langs, out_dir):
    """Write the page's cases; return (case lines for stdout, skipped lines)."""
    text = open(path, encoding="utf-8").read()
    folder, stem = rel.split("/")[0], os.path.splitext(os.path.basename(rel))[0]
    bs = blocks(text)
    rules = [b for b in bs if b["lang"] in ("yaml", "yml") and section_kind(b) == "text"
             and any(top_key(d, "rule") is not None for d in documents(b["body"]))]
    examples = [b for b in bs if section_kind(b) == "example"]
    diffs = [b for b in bs if section_kind(b) == "diff"]
    shown, skipped = [], []
    for n, b in enumerate(rules, 1):
        case = "%s-%s-%d" % (folder, stem, n)
        docs = documents(b["body"])
        if not any(top_key(d, "fix") is not None for d in docs):
            skipped.append((case, "no fix"))
            continue
        if not examples:
            skipped.append((case, "the page has no Example block"))
            continue
        body, added = with_language(b["body"], page_lang(text, folder))
        fix_doc = next(d for d in documents(body) if top_key(d, "fix") is not None)
        lang = langs.get(top_key(fix_doc, "language").lower())
        if lang is None:
            skipped.append((case, "language `%s` is not in `ast-edit langs`" % top_key(fix_doc, "language")))
            continue
        header = "# %s website/catalog/%s, YAML block %d%s\n" % (
            REPO, rel, n, "; `language` added from the page" if added else "")
        rule = header + body
        name = "input." + EXT[lang]
        source = strip_annotations(examples[0]["body"], "++")
        # Loaded without the header, so that line numbers in errors are the block's.
        loaded, err, after = ast_grep_scan(ag, body, name, source)
        if not loaded:
            skipped.append((case, "ast-grep 0.51.1 cannot load it: " + err))
            continue
        case_dir = os.path.join(out_dir, case)
        os.makedirs(case_dir)
        for file, content in (("rule.yml", rule), (name, source)):
            with open(os.path.join(case_dir, file), "w") as f:
                f.write(content)
        want = diff_after(diffs[0]["body"]) if diffs else None
        shown.append("%-60s changes=%-3s diff=%s" % (
            case, "yes" if after != source else "no",
            "none" if want is None else ("same" if want == after else "differs")))
    return shown, skipped


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkout")
    ap.add_argument("--ast-grep", default=os.environ.get("AST_GREP", "ast-grep"))
    ap.add_argument("--ast-edit", default=os.environ.get("AST_EDIT", "ast-edit"))
    a = ap.parse_args()
    code, out, _ = run([a.ast_grep, "--version"])
    if out.strip() != "ast-grep 0.51.1":
        sys.exit("need ast-grep 0.51.1, found: " + (out.strip() or "nothing"))
    langs = ast_edit_langs(a.ast_edit)
    root = os.path.join(a.checkout, "website", "catalog")
    out_dir = os.path.join(HERE, "cases")
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    shown, skipped = [], []
    for folder in sorted(os.listdir(root)):
        if not os.path.isdir(os.path.join(root, folder)):
            continue
        for page in sorted(os.listdir(os.path.join(root, folder))):
            if page.endswith(".md") and page != "index.md":
                s, k = page_cases(os.path.join(root, folder, page), folder + "/" + page,
                                  a.ast_grep, langs, out_dir)
                shown += s
                skipped += k
    with open(os.path.join(HERE, "skipped.txt"), "w") as f:
        f.write("# Rule blocks of the catalog that are not cases, with the reason.\n"
                "# Written by extract.py; do not edit by hand.\n")
        for case, why in skipped:
            f.write("%s\t%s\n" % (case, why))
    print("\n".join(shown))
    print("%d cases, %d rule blocks skipped" % (len(shown), len(skipped)))


if __name__ == "__main__":
    main()
