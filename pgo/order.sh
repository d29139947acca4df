#!/usr/bin/env bash
# Regenerates pgo/order.txt, the order build.rs asks the linker to lay the binary's
# functions out in (docs/REFERENCE.md, "Function order"): the functions everyday
# runs execute, listed by valgrind's callgrind, so that they sit together in the
# binary instead of spread over its 15 MB of code, of which the kernel maps 64 KB
# around each page a run touches.
#
# The runs: this repository's fixtures/ scanned with the queries/ catalog (text and
# JSON reports, the scan cache cold then warm), with pgo/rules.yml (every file of its
# languages parsed), the README's `run` preview, and the catalog's rule tests.
# Needs valgrind. Run it again when Cargo.lock or the toolchain changes: a name the
# build no longer has is skipped by the linker, so a stale list only costs memory.
set -euo pipefail
export LC_ALL=C   # sort and comm agree, byte order
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
command -v valgrind >/dev/null || { echo "pgo/order.sh: valgrind is needed" >&2; exit 1; }
cargo build --release --locked --bin ast-edit
AE=$ROOT/target/release/ast-edit
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
n=0
profile() {
  n=$((n + 1))
  # Exit 1 (findings) is a run like any other.
  AST_EDIT_STATE_DIR=$WORK/state valgrind --tool=callgrind --demangle=no \
    --callgrind-out-file="$WORK/cg.$n" "$AE" "$@" >/dev/null 2>"$WORK/err.$n" || [ $? -eq 1 ] ||
    { echo "pgo/order.sh: ast-edit $* failed:" >&2; tail -5 "$WORK/err.$n" >&2; exit 1; }
}
profile scan -c queries/sgconfig.yml fixtures
profile scan -c queries/sgconfig.yml --json=compact fixtures
profile scan -c queries/sgconfig.yml --json=compact fixtures
profile scan -r pgo/rules.yml --json=compact --no-cache fixtures
profile run -p 'fetch_data($$$ARGS)' -r 'load_data($$$ARGS)' fixtures
profile test -c queries/sgconfig.yml
grep -ohE '^c?fn=\([0-9]+\) .*' "$WORK"/cg.* | sed -E 's/^c?fn=\([0-9]+\) //' | sort -u >"$WORK/executed"
nm --defined-only "$AE" | awk '{ print $3 }' | sort -u >"$WORK/defined"
comm -12 "$WORK/executed" "$WORK/defined" >pgo/order.txt
echo "pgo/order.sh: $(wc -l <pgo/order.txt) functions in pgo/order.txt" >&2
