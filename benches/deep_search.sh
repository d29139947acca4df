#!/usr/bin/env bash
# Search on deeply nested code: `ast-edit search --json` against `ast-grep run
# --json=compact` 0.51.1, same pattern, same generated files, in the same run.
# A listed match's enclosing name used to climb the tree with tree-sitter's
# `Node::parent`, which walks down from the root on every call (the square of the
# depth per match); this keeps the case measured.
#
# Usage:  benches/deep_search.sh
# Env:
#   RUNS (5)        timed runs per tool and case, the order alternating
#   AST_EDIT        ast-edit binary (default: `cargo build --release` here)
#   AST_GREP        ast-grep binary (default: from PATH, pyenv shim resolved)
#   QUIET_PCT (10), QUIET_MAX (120)  wait for a quiet machine before each run
#
# Cases (python, generated in a temp folder): `f(` nested 2,000 deep around 200
# `1`s, the pattern `1` (200 matches listed); `f(` nested 20,000 deep around one
# `1` (one match). Prints one line per case: median and min wall seconds of each
# tool, the ratio ast-grep / ast-edit (higher is better for ast-edit), and whether
# both found the same number of matches.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
RUNS=${RUNS:-5}
QUIET_PCT=${QUIET_PCT:-10}; QUIET_MAX=${QUIET_MAX:-120}
AG_VERSION=0.51.1
LOG_TAG=deep_search
# shellcheck source=benches/lib.sh
. "$HERE/lib.sh"
find_tools

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export AST_EDIT_STATE_DIR=$WORK/state

# nested DEPTH EVERY FILE: `f(` DEPTH deep, a `1, ` every EVERY levels.
nested() {
  python3 - "$1" "$2" "$3" <<'PY'
import sys
depth, every, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
parts = []
for i in range(depth):
    parts.append("f(")
    if i % every == 0:
        parts.append("1, ")
open(path, "w").write("".join(parts) + ")" * depth + "\n")
PY
}

run_case() {
  local name=$1 file=$2
  local ours=() theirs=() i
  for i in $(seq 1 "$RUNS"); do
    wait_quiet
    if [ $((i % 2)) -eq 1 ]; then
      ours+=("$(secs "$AST_EDIT" search -p 1 -l py --limit 200 --json "$file")")
      theirs+=("$(secs "$AST_GREP" run -p 1 -l py --json=compact "$file")")
    else
      theirs+=("$(secs "$AST_GREP" run -p 1 -l py --json=compact "$file")")
      ours+=("$(secs "$AST_EDIT" search -p 1 -l py --limit 200 --json "$file")")
    fi
  done
  local n_ours n_theirs
  n_ours=$("$AST_EDIT" search -p 1 -l py --limit 200 --json "$file" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totalMatches"])')
  n_theirs=$("$AST_GREP" run -p 1 -l py --json=compact "$file" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
  local om tm
  om=$(printf '%s\n' "${ours[@]}" | median); tm=$(printf '%s\n' "${theirs[@]}" | median)
  printf '%s: ast-edit %.3f s (min %.3f), ast-grep %.3f s (min %.3f), ratio %.2f; matches %s / %s%s\n' \
    "$name" "$om" "$(printf '%s\n' "${ours[@]}" | minimum)" "$tm" "$(printf '%s\n' "${theirs[@]}" | minimum)" \
    "$(echo "$tm / $om" | bc -l)" "$n_ours" "$n_theirs" "$([ "$n_ours" = "$n_theirs" ] && echo " (same)" || echo " (DIFFERENT)")"
}

nested 2000 10 "$WORK/deep2000.py"
nested 20000 1000000 "$WORK/deep20000.py"
run_case "2,000 deep, 200 matches" "$WORK/deep2000.py"
run_case "20,000 deep, 1 match" "$WORK/deep20000.py"
