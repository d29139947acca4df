#!/usr/bin/env bash
# Lines changed by the minimal rewrite (the default, docs/DESIGN.md §2.5.9) against
# --verbatim (ast-grep's template output), for the rewrite patterns of
# benches/prefilter_check.sh on the corpora of benches/corpora.sh. Prints a
# Markdown table: per pattern, replacements and changed diff lines (`-` plus `+`)
# each way; exits 1 if the default ever changes more lines than --verbatim.
#
#   benches/minimal_lines.sh [CORPORA]      (default ~/ast-edit-corpora)
#   AST_EDIT=path/to/ast-edit               (default: cargo build --release here)
#
# Nothing is written to the corpora: each run only previews (the pending actions
# go to a temporary state dir).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CORPORA=${1:-$HOME/ast-edit-corpora}
if [ -z "${AST_EDIT:-}" ]; then
  (cd "$ROOT" && cargo build --release --quiet --bin ast-edit)
  AST_EDIT=$ROOT/target/release/ast-edit
fi
AST_EDIT=$(realpath "$AST_EDIT")
STATE=$(mktemp -d)
trap 'rm -rf "$STATE"' EXIT
export AST_EDIT_STATE_DIR=$STATE

# The cases of prefilter_check.sh: lang <TAB> path under CORPORA <TAB> pattern <TAB> rewrite.
CASES=$(sed -n "/^CASES=\$(cat <<'EOF'$/,/^EOF$/p" "$ROOT/benches/prefilter_check.sh" | sed '1d;$d')

count() {   # replacements and changed lines of a preview's JSON on stdin
  python3 -c '
import json, sys
d = json.load(sys.stdin)
lines = 0
for f in d["files"]:
    for l in f["diff"].splitlines():
        if (l.startswith("+") and not l.startswith("+++")) or (l.startswith("-") and not l.startswith("---")):
            lines += 1
print(d["totalReplacements"], lines)'
}

bad=0
echo "| lang | pattern | rewrite | replacements default | replacements --verbatim | lines changed default | lines changed --verbatim |"
echo "| --- | --- | --- | ---: | ---: | ---: | ---: |"
while IFS=$'\t' read -r lang dir pat rew; do
  run() { (cd "$CORPORA" && "$AST_EDIT" run -p "$pat" -r "$rew" -l "$lang" --no-ignore --max-filesize 16777216 "$@" "$dir" --json | count); }
  read -r dr dl <<<"$(run)"
  read -r vr vl <<<"$(run --verbatim)"
  [ "$dl" -le "$vl" ] || bad=1
  printf '| %s | `%s` | `%s` | %s | %s | %s | %s |\n' "$lang" "$pat" "$rew" "$dr" "$vr" "$dl" "$vl"
done <<<"$CASES"
exit $bad
