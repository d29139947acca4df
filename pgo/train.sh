#!/usr/bin/env bash
# Regenerates the stored C profiles pgo/cc compiles with (docs/REFERENCE.md,
# "Profile-guided C"): builds ast-edit with the C code instrumented (in
# target/pgo-train), runs it over the training set, then writes each object's
# profile to pgo/gcc/<package>-<version>/<source>.gcda and pgo/gcc/MANIFEST (the
# compiler's version, each source's SHA-256).
#
# The training set is code every machine that builds and tests ast-edit has, and
# no benchmark measures (neither benches/corpora.sh's corpora nor the public
# projects of benches/dropin_compare.py), scanned with pgo/rules.yml (which parses
# and walks every file of its languages: C, C++, Go, JavaScript, Python, Rust,
# TypeScript):
#   - the sources of the crates Cargo.lock pins (Rust; C: tree-sitter's runtime, the
#     grammars' hand-written scanners, mimalloc), less the crates of the Rust corpus,
#     generated Windows and Linux bindings and the grammars' generated parser.c;
#   - this repository's own sources;
#   - the standard library of python3 and, where they are installed, Go's (the
#     tests' Go parser) and parse5's JavaScript (the tests' HTML parser), less their
#     test folders and test data (written to break parsers).
# pgo/gcc/TRAINING lists what the last training scanned.
#
# Usage:  pgo/train.sh
# Run it again when Cargo.lock changes a crate that builds C, or the compiler
# changes: pgo/cc leaves a source whose bytes or compiler differ unprofiled.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TARGET=$ROOT/target/pgo-train
PROF=$TARGET/prof
if [ -z "${PGO_REUSE_BUILD:-}" ] || [ ! -s "$PROF/objects.tsv" ]; then
  rm -rf "$TARGET/release/build" "$PROF"   # every C object compiled again, instrumented
  echo "pgo/train.sh: building the instrumented binary in $TARGET" >&2
  (cd "$ROOT" && AST_EDIT_PGO=generate:$PROF CARGO_TARGET_DIR=$TARGET cargo build --release --locked --bin ast-edit)
  [ -s "$PROF/objects.tsv" ] || { echo "pgo/train.sh: pgo/cc compiled no object (is .cargo/config.toml read?)" >&2; exit 1; }
fi
find "$PROF" -name '*.gcda' -delete   # counts from this training only

echo "pgo/train.sh: training" >&2
python3 - "$ROOT" "$TARGET/release/ast-edit" "$PROF/TRAINING" <<'PY'
import json, os, re, shutil, subprocess, sys, sysconfig
root, ae, log = sys.argv[1:]
corpora = open(os.path.join(root, "benches", "corpora.sh")).read()
in_corpus = set(re.findall(r"([\w-]+)=\d", corpora[corpora.index("RUST_CRATES=("):].split(")", 1)[0]))
meta = json.loads(subprocess.run(["cargo", "metadata", "--locked", "--format-version", "1"], cwd=root, check=True, capture_output=True, text=True).stdout)
crates = sorted(os.path.dirname(p["manifest_path"]) for p in meta["packages"]
                if p["source"] and p["name"] not in in_corpus
                and not p["name"].startswith(("windows", "winapi", "linux-raw-sys")))
trees = [("the crates Cargo.lock pins, less the rust corpus's", crates, ["!parser.c"]),
         ("this repository", [os.path.join(root, d) for d in ("src", "crates", "tests", "benches")], [])]
stdlib = sysconfig.get_path("stdlib")
trees.append((f"python3's standard library ({stdlib})", [stdlib], ["!site-packages/", "!test/", "!tests/", "!lib2to3/", "!idlelib/"]))
if shutil.which("go"):
    goroot = subprocess.run(["go", "env", "GOROOT"], capture_output=True, text=True).stdout.strip()
    trees.append((f"Go's standard library ({goroot}/src)", [os.path.join(goroot, "src")], ["!testdata/"]))
if shutil.which("npm"):
    parse5 = os.path.join(subprocess.run(["npm", "root", "-g"], capture_output=True, text=True).stdout.strip(), "parse5")
    if os.path.isdir(parse5):
        trees.append((f"parse5 ({parse5})", [parse5], []))
rules = os.path.join(root, "pgo", "rules.yml")
with open(log, "w") as out:
    for what, paths, globs in trees:
        cmd = [ae, "scan", "-r", rules, "--json=compact", "--no-cache"]
        for g in globs:
            cmd += ["-g", g]
        p = subprocess.run(cmd + paths, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode not in (0, 1):
            sys.exit(f"pgo/train.sh: scanning {what} exited {p.returncode}: {p.stderr[-2000:]}")
        found = len(json.loads(p.stdout or "[]"))
        line = f"{what}: {len(paths)} folders, {found} findings"
        print("  " + line, file=sys.stderr)
        out.write(line + "\n")
PY

out=$ROOT/pgo/gcc
rm -rf "$out"
mkdir -p "$out"
printf 'compiler\t%s\n' "$(${CC:-cc} -v 2>&1 | tail -n 1)" >"$out/MANIFEST"
sort -u -t "$(printf '\t')" -k2,2 "$PROF/objects.tsv" | while IFS="$(printf '\t')" read -r base key src; do
  gcda=$PROF/ast-edit-pgo/$base.gcda
  [ -f "$gcda" ] || continue
  mkdir -p "$(dirname "$out/$key")"
  cp "$gcda" "$out/${key%.*}.gcda"
  printf '%s\t%s\n' "$key" "$(sha256sum <"$src" | cut -d ' ' -f 1)" >>"$out/MANIFEST"
done
{ echo "ast-edit scan -r pgo/rules.yml --no-cache, trained on:"; sed 's/^/- /' "$PROF/TRAINING"; } >"$out/TRAINING"
echo "pgo/train.sh: $(($(wc -l <"$out/MANIFEST") - 1)) profiles in pgo/gcc" >&2

# Cargo reruns a build script when its sources or the variables it names change,
# not when a profile does: the packages that compile C are cleaned in this
# checkout's optimized profiles, so the next build compiles them with these.
pkgs=()
for p in $(tail -n +2 "$out/MANIFEST" | cut -f 1 | cut -d / -f 1 | sed 's/-[0-9][0-9.]*$//' | sort -u); do
  pkgs+=(-p "$p")
done
for profile in release profiling; do
  (cd "$ROOT" && cargo clean --profile "$profile" "${pkgs[@]}")
done
