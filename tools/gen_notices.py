#!/usr/bin/env python3
"""Generates THIRD-PARTY-NOTICES.md: the crates compiled into the `ast-edit` binary
on Linux (x86_64-unknown-linux-gnu), with their licence texts.

Which crates: `cargo tree --locked -e normal,no-proc-macro --target
x86_64-unknown-linux-gnu -p ast-edit`, that is the normal dependencies, transitively,
with the features a plain `cargo build` resolves. Left out are dev-dependencies,
build-dependencies (build scripts and what they use, such as `cc`) and procedural
macros (serde_derive, syn...): they run while compiling and are not part of the
binary. (`cargo metadata`'s graph alone would not do: it resolves features with the
dev-dependencies', and so lists crates such as mio or nix that only the tests link.)
The packages of this repository, the binary and its library `ast-edit-lib`
(crates/lib), are no third party: every package without a source in `cargo
metadata` (a workspace member or another path dependency) is left out.

Where the crates are: `cargo metadata --locked --filter-platform
x86_64-unknown-linux-gnu` (see tools/cargo_locked.py; works on a fresh machine, and
fetches the crates if they are not there yet).

For each crate: name, version, licence expression and repository from its
Cargo.toml, and the text of every licence file in its package: a file named
LICENSE*, LICENCE*, COPYING*, UNLICENSE* or NOTICE*, anywhere in the package but
under node_modules/ (npm build tooling some grammar crates ship), plus the file its
`license-file` names. A crate whose package has no licence file gets the text
kept in tools/licences/<crate>.txt, copied verbatim from the licence file of its
upstream repository (tools/licences/README.md says from where); a crate with
neither is listed with its licence name only. Texts that are identical (after
normalising line ends and trailing blanks) are printed once, with every crate and
file that has them.

Usage: tools/gen_notices.py > THIRD-PARTY-NOTICES.md
tests/it/generated.rs runs this script and fails when the file differs from its output.
"""
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in tools/ when a test runs this
import cargo_locked  # noqa: E402  (tools/cargo_locked.py, next to this script)

TARGET = "x86_64-unknown-linux-gnu"
ROOT_PACKAGE = "ast-edit"
LICENCE_NAME = re.compile(r"^(LICEN[CS]E|COPYING|UNLICENSE|NOTICE)", re.IGNORECASE)
# Licence texts from upstream repositories, for crates whose package ships none.
UPSTREAM_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "licences")
UPSTREAM_REL = "tools/licences"


def shipped(local):
    """(name, version) of every third-party crate compiled into the binary, sorted;
    the packages in `local` (ours) left out."""
    out = cargo_locked.cargo(
        "tree", "--locked", "-e", "normal,no-proc-macro", "--target", TARGET,
        "-p", ROOT_PACKAGE, "--prefix", "none", "--no-dedupe", "--format", "{p}",
    )
    found = set()
    for line in out.splitlines():
        # "name v1.2.3", then " (path)" for a local package or " (*)" for a repeat
        fields = line.split()
        if len(fields) < 2:
            continue
        crate = (fields[0], fields[1].removeprefix("v"))
        if crate not in local:
            found.add(crate)
    return sorted(found)


def licence_files(package):
    """Paths, relative to the crate's directory and sorted, of its licence files."""
    root = os.path.dirname(package["manifest_path"])
    out = set()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != "node_modules"]
        for f in filenames:
            if LICENCE_NAME.match(f):
                out.add(os.path.relpath(os.path.join(dirpath, f), root))
    if package.get("license_file"):
        lf = os.path.normpath(os.path.join(root, package["license_file"]))
        if os.path.isfile(lf):
            out.add(os.path.relpath(lf, root))
    return sorted(out)


def upstream_texts():
    """{crate name: file name} of the texts in tools/licences/ (<crate>.txt)."""
    return {f[:-len(".txt")]: f for f in sorted(os.listdir(UPSTREAM_DIR)) if f.endswith(".txt")}


def source(name, version, f, upstream):
    """Where a text comes from, for the notices."""
    if upstream:
        return f"{name} {version} (licence text from the upstream repository, `{UPSTREAM_REL}/{f}`)"
    return f"{name} {version} (`{f}`)"


def normalise(text):
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def fence(text):
    """A backtick fence longer than any backtick run in text."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def cell(s):
    return (s or "").replace("|", "\\|").replace("\n", " ").strip()


def main():
    meta = cargo_locked.packages(TARGET)
    # A package from a registry or a git repository has a `source`; ours have none.
    local = {key for key, p in meta.items() if p.get("source") is None}
    crates = shipped(local)
    upstream = upstream_texts()
    used = set()
    texts = {}  # normalised text -> [(crate, version, file, from upstream)]
    rows = []
    for name, version in crates:
        p = meta.get((name, version))
        if p is None:
            raise SystemExit(f"`cargo tree` lists {name} {version}, which `cargo metadata` does not")
        files = licence_files(p)
        root = os.path.dirname(p["manifest_path"])
        for f in files:
            with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
                texts.setdefault(normalise(fh.read()), []).append((name, version, f, False))
        shown = ", ".join(files) or "none shipped"
        if not files and name in upstream:
            used.add(name)
            with open(os.path.join(UPSTREAM_DIR, upstream[name]), encoding="utf-8") as fh:
                texts.setdefault(normalise(fh.read()), []).append((name, version, upstream[name], True))
            shown = "none shipped; text from the upstream repository"
        licence = p.get("license") or (f"see {p['license_file']}" if p.get("license_file") else "not declared")
        rows.append((name, version, licence, p.get("repository") or "", shown))
    stale = sorted(set(upstream) - used)
    if stale:
        raise SystemExit(
            f"{UPSTREAM_REL}/ has texts for crates that are not in the binary or whose package "
            f"now ships its own licence file: {', '.join(stale)}; remove them "
            f"(and their rows in {UPSTREAM_REL}/README.md)"
        )

    print("# Third-party notices")
    print()
    print("<!-- @generated by tools/gen_notices.py from Cargo.lock; do not edit. -->")
    print()
    print(f"The `ast-edit` binary built for Linux ({TARGET}) contains the {len(rows)} crates")
    print("below (normal dependencies, transitively; no dev-dependencies, build scripts or")
    print("procedural macros, which run only while compiling). Some of them carry C code")
    print("compiled into the binary: the tree-sitter runtime, the grammars' parsers and")
    print("mimalloc. The Rust standard library, linked into every Rust program, is")
    print("`MIT OR Apache-2.0`. ast-edit itself, the binary and its library (crates/lib),")
    print("is under the MIT licence in [LICENSE](LICENSE).")
    print()
    print("Regenerate with `tools/gen_notices.py > THIRD-PARTY-NOTICES.md`; the test")
    print("`third_party_notices_match_the_lockfile` in tests/it/generated.rs fails when this file")
    print("differs from what the script makes.")
    print()
    print("## Crates")
    print()
    print("Licence and repository are as the crate's Cargo.toml declares them; \"licence")
    print("files\" are those in the published package, whose texts follow the table.")
    print()
    print("| crate | version | licence | repository | licence files |")
    print("| --- | --- | --- | --- | --- |")
    for name, version, licence, repo, files in rows:
        print(f"| {cell(name)} | {cell(version)} | {cell(licence)} | {cell(repo)} | {cell(files)} |")
    fetched = [(n, v, repo) for n, v, lic, repo, files in rows if files.startswith("none shipped;")]
    if fetched:
        print()
        print("These crates' published packages hold no licence file; the text that follows for")
        print("each is the licence file of its upstream repository, kept verbatim in")
        print(f"`{UPSTREAM_REL}/` (its README.md says from which revision):")
        print()
        for n, v, repo in fetched:
            print(f"- {n} {v}: {repo or 'no repository declared'}")
    bare = [(n, v, lic, repo) for n, v, lic, repo, files in rows if files == "none shipped"]
    if bare:
        print()
        print("These crates' published packages hold no licence file; their licence is the one")
        print("declared above, and its text with the copyright notice is in their repository:")
        print()
        for n, v, lic, repo in bare:
            print(f"- {n} {v}: {lic}, {repo or 'no repository declared'}")
    print()
    print("## Licence texts")
    print()
    print("Each distinct text once, with the crates and files it comes from.")
    order = sorted(texts.items(), key=lambda kv: (kv[1][0][0], kv[1][0][1], kv[1][0][2], kv[0]))
    for i, (text, users) in enumerate(order, 1):
        print()
        first = users[0]
        heading = f"{UPSTREAM_REL}/{first[2]}" if first[3] else first[2]
        print(f"### {i}. {first[0]} {first[1]}: {heading}")
        print()
        print("From: " + ", ".join(source(*u) for u in users) + ".")
        print()
        f = fence(text)
        print(f + "text")
        print(text)
        print(f)


if __name__ == "__main__":
    main()
