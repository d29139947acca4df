#!/usr/bin/env bash
# How far real code stays under the meter's limits (docs/DESIGN.md section 2.5.7):
# `ast-edit scan --stats` with each rule project on each corpus, and the most work
# one file did under each limit (steps, stack, transform text), with the margin
# (limit / most). The step limit is meant to stay at least 10 times above every
# file of these corpora with these rules.
#
# Usage:  benches/work_margin.sh [CORPORA_DIR] [CORPUS_REGEX]
#   CORPORA_DIR   where benches/corpora.sh builds the corpora (also env CORPORA; default
#                 $HOME/ast-edit-corpora); a missing corpus is built first
#   CORPUS_REGEX  only the corpora whose name matches (also env FILTER): python, c-linux
# Env:
#   PROJECTS      rule projects (sgconfig.yml paths; default: queries/, benches/scan-project/
#                 and benches/scan-relational/)
#   AST_EDIT      ast-edit binary (default: `cargo build --release` here)
#
# The steps are counted, not timed: the figures are the same on an idle or a busy
# machine and at any thread count. Output: a markdown table on stdout, also written
# to benches/results/work_margin.md. Exits 1 when a margin of steps is under 10 or a
# run fails (exit 13 is a file one of the limits skipped).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
CORPORA=${1:-${CORPORA:-$HOME/ast-edit-corpora}}
FILTER=${2:-${FILTER:-}}
PROJECTS=${PROJECTS:-"$ROOT/queries/sgconfig.yml $ROOT/benches/scan-project/sgconfig.yml $ROOT/benches/scan-relational/sgconfig.yml"}
LOG_TAG=work-margin
AG_VERSION=0.51.1
# shellcheck source=benches/lib.sh
. "$HERE/lib.sh"
if [ -z "${AST_EDIT:-}" ]; then
  log "cargo build --release (in $ROOT)"
  (cd "$ROOT" && cargo build --release --locked --quiet --bin ast-edit) >&2
  AST_EDIT=${CARGO_TARGET_DIR:-$ROOT/target}/release/ast-edit
fi
[ -x "$AST_EDIT" ] || die "no ast-edit binary at $AST_EDIT"
AST_EDIT=$(cd "$(dirname "$AST_EDIT")" && pwd)/$(basename "$AST_EDIT")

mkdir -p "$ROOT/benches/results"
OUT="$ROOT/benches/results/work_margin.md"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# The figure and the file of one "most ..." row of the --stats table.
row() { { grep "^  most $1 " "$2" || true; } | sed -E 's/^  most [a-z ]+ +([0-9]+)(  \(in (.*); the limit is .*\))?$/\1\t\3/'; }

bad=0
{
  echo "| corpus | project | files | exit | most steps (file) | steps margin | most stack bytes (file) | stack margin | most transform text bytes (file) |"
  echo "|---|---|---:|---:|---|---:|---|---:|---|"
} > "$TMP/table"
for corpus in python rust js-ts c-linux; do
  [[ -n "$FILTER" && ! "$corpus" =~ $FILTER ]] && continue
  [ -d "$CORPORA/$corpus" ] || "$HERE/corpora.sh" "$CORPORA" "$corpus" >&2
  # ast-grep reads .gitignore only inside a git repository; the kernel has them.
  # (After the corpus: `--no-ignore` takes an optional KIND, which a path after it would be.)
  extra=()
  [ "$corpus" = c-linux ] && extra=(--no-ignore)
  for project in $PROJECTS; do
    name=$(basename "$(dirname "$project")")
    log "$corpus with $name"
    state=$(mktemp -d)
    set +e
    (cd "$CORPORA" && AST_EDIT_STATE_DIR="$state" "$AST_EDIT" scan -c "$project" --stats "$corpus" "${extra[@]}" > /dev/null 2> "$TMP/err")
    code=$?
    set -e
    rm -rf "$state"
    files=$(awk '/^  files searched/ {print $3}' "$TMP/err")
    IFS=$'\t' read -r steps steps_in < <(row steps "$TMP/err")
    IFS=$'\t' read -r stack stack_in < <(row stack "$TMP/err")
    IFS=$'\t' read -r text text_in < <(row "text built" "$TMP/err")
    limit=$(sed -nE 's/^  most steps.*the limit is ([0-9]+) per file.*/\1/p' "$TMP/err")
    stack_limit=$(sed -nE 's/^  most stack.*the limit is ([0-9]+) bytes.*/\1/p' "$TMP/err")
    margin=$(awk -v l="${limit:-0}" -v n="${steps:-0}" 'BEGIN { if (n > 0) printf "%.0fx", l / n; else print "-" }')
    smargin=$(awk -v l="${stack_limit:-0}" -v n="${stack:-0}" 'BEGIN { if (n > 0) printf "%.0fx", l / n; else print "-" }')
    [ "${files:-0}" = 0 ] && [ "$code" = 0 ] && continue   # no file of the project's languages
    echo "| $corpus | $name | ${files:-?} | $code | ${steps:-?} (${steps_in:-}) | $margin | ${stack:-?} (${stack_in:-}) | $smargin | ${text:-?} (${text_in:-}) |" >> "$TMP/table"
    # exit 0 or 1 (findings of error rules) are a finished scan; 13 is a limit's skip.
    if [ "$code" -gt 1 ] || [ -z "${steps:-}" ] || awk -v l="${limit:-0}" -v n="$steps" 'BEGIN { exit !(n * 10 > l) }'; then
      log "FAIL: $corpus with $name: exit $code, most steps ${steps:-?} of ${limit:-?}"
      tail -5 "$TMP/err" >&2
      bad=1
    fi
  done
done
{
  echo "# Work margin: the most work one file did, against the meter's limits"
  echo
  echo "ast-edit $("$AST_EDIT" --version | awk '{print $2}') ($(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null || echo '?')), $(date -u +%Y-%m-%d); \`benches/work_margin.sh\`."
  echo
  cat "$TMP/table"
} | tee "$OUT"
exit "$bad"
