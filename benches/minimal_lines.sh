#!/usr/bin/env bash
# Lines changed by the minimal rewrite (the default, docs/DESIGN.md §2.5.9) against
# --verbatim (ast-grep's template output), for the rewrite patterns of
# benches/prefilter_check.sh on the corpora of benches/corpora.sh. Prints a
# Markdown table: per pattern, replacements, changed diff lines (`-` plus `+`) and
# files flagged for added syntax errors, each way; exits 1 if the default ever
# changes more lines than --verbatim. Extra cases (identity rewrites, the Django
# annotation) follow the prefilter_check.sh ones.
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
CASES+=$'\n'$(printf '%s\t%s\t%s\t%s\n' \
  rs rust '$A.unwrap()' '$A.unwrap()' \
  py python 'def $F(self): $$$B' 'def $F(self) -> None: $$$B' \
  py python 'warnings.warn($$$A)' 'warnings.warn($$$A, stacklevel=2)')

count() {   # replacements and changed lines of a preview's JSON on stdin
  python3 -c '
import json, sys
d = json.load(sys.stdin)
lines = 0
for f in d["files"]:
    for l in f["diff"].splitlines():
        if (l.startswith("+") and not l.startswith("+++")) or (l.startswith("-") and not l.startswith("---")):
            lines += 1
print(d["totalReplacements"], lines, sum(1 for f in d["files"] if f["syntaxErrorsIntroduced"]))'
}

bad=0
echo "| lang | pattern | rewrite | replacements default | replacements --verbatim | lines changed default | lines changed --verbatim | files flagged default | files flagged --verbatim |"
echo "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
while IFS=$'\t' read -r lang dir pat rew; do
  run() { (cd "$CORPORA" && "$AST_EDIT" run -p "$pat" -r "$rew" -l "$lang" --no-ignore --max-filesize 16777216 "$@" "$dir" --json | count); }
  read -r dr dl df <<<"$(run)"
  read -r vr vl vf <<<"$(run --verbatim)"
  [ "$dl" -le "$vl" ] || bad=1
  printf '| %s | `%s` | `%s` | %s | %s | %s | %s | %s | %s |\n' "$lang" "$pat" "$rew" "$dr" "$vr" "$dl" "$vl" "$df" "$vf"
done <<<"$CASES"
exit $bad
