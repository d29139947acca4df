#!/usr/bin/env bash
# A rewrite of nested matches: `ast-edit run` (the preview, staged) against
# `ast-grep run -r` 0.51.1, same pattern, same generated files, in the same run.
# Each match is one level deeper than the last, so any step that walks from the
# tree's root to each edit costs the square of the depth in all; one that climbs
# with tree-sitter's `Node::parent` (a walk down from the root per call) cost the
# cube, and took 292 s at 2,000 deep. This keeps the case measured.
#
# Usage:  benches/deep_rewrite.sh
# Env:
#   RUNS (3)        timed runs per tool and case, the order alternating
#   AST_EDIT        ast-edit binary (default: `cargo build --release` here)
#   AST_GREP        ast-grep binary (default: from PATH, pyenv shim resolved)
#   QUIET_PCT (10), QUIET_MAX (120)  wait for a quiet machine before each run
#
# Cases (python, generated in a temp folder): one line of lists nested 500,
# 1,000 and 2,000 deep, each list holding `f(h(x))`; `f($A)` -> `g($A)`. Prints
# one line per case: median and min wall seconds of each tool, the ratio
# ast-edit / ast-grep (lower is better for ast-edit), and the time's growth
# from the case before (2.0 for a doubling is linear, 4.0 quadratic).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
RUNS=${RUNS:-3}
QUIET_PCT=${QUIET_PCT:-10}; QUIET_MAX=${QUIET_MAX:-120}
AG_VERSION=0.51.1
LOG_TAG=deep_rewrite
# shellcheck source=benches/lib.sh
. "$HERE/lib.sh"
find_tools

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export AST_EDIT_STATE_DIR=$WORK/state

# nested DEPTH FILE: `x = [f(h(x)), [f(h(x)), ... 0]]`, DEPTH lists deep.
nested() {
  python3 - "$1" "$2" <<'PY'
import sys
depth, path = int(sys.argv[1]), sys.argv[2]
open(path, "w").write("x = " + "[f(h(x)), " * depth + "0" + "]" * depth + "\n")
PY
}

ours() { rm -rf "$AST_EDIT_STATE_DIR"; secs "$AST_EDIT" run -p 'f($A)' -r 'g($A)' -l python "$1"; }
theirs() { secs "$AST_GREP" run -p 'f($A)' -r 'g($A)' -l python "$1"; }

previous=""
for depth in 500 1000 2000; do
  file="$WORK/deep$depth.py"
  nested "$depth" "$file"
  o=(); t=()
  for i in $(seq 1 "$RUNS"); do
    wait_quiet
    if [ $((i % 2)) -eq 1 ]; then o+=("$(ours "$file")"); t+=("$(theirs "$file")"); else t+=("$(theirs "$file")"); o+=("$(ours "$file")"); fi
  done
  om=$(printf '%s\n' "${o[@]}" | median); tm=$(printf '%s\n' "${t[@]}" | median)
  growth=$([ -n "$previous" ] && printf '%.1f' "$(echo "$om / $previous" | bc -l)" || echo "-")
  printf '%s deep: ast-edit %.3f s (min %.3f), ast-grep %.3f s (min %.3f), ratio %.1f; growth %s\n' \
    "$depth" "$om" "$(printf '%s\n' "${o[@]}" | minimum)" "$tm" "$(printf '%s\n' "${t[@]}" | minimum)" "$(echo "$om / $tm" | bc -l)" "$growth"
  previous=$om
done
