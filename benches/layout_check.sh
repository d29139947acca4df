#!/usr/bin/env bash
# Layout and structure check on real code (docs/DESIGN.md, minimal rewrites and the
# structure guard): for each rewrite below, previews the edit on its corpus twice, with
# the default (minimal rewrites) and with --verbatim (ast-grep's own output, byte for
# byte: see benches/compare.sh), and reports
#   - lines changed (the `+`/`-` lines of the previewed diffs) by each; the default must
#     never change more lines than --verbatim;
#   - files the structure guard flags (`structureChanged`) in each mode; on the cases
#     marked `keep` (rewrites that keep the syntax tree's structure) every flag is a
#     false alarm;
#   - for Python, the judgement of Python's own `ast` module: the changed files are
#     copied to a scratch folder, the edit is applied there, and the statement skeleton
#     (each statement's type and the chain of statements holding it) of every file is
#     compared before and after. A flag where the skeleton kept is a false alarm; a
#     changed skeleton without a flag is a miss.
# Prints one line per case and a table; writes benches/results/layout.tsv; exits 1 if
# the default changes more lines than --verbatim anywhere, or on any false alarm or
# miss.
#
#   benches/layout_check.sh [CORPORA]      (default ~/ast-edit-corpora, built by
#                                           benches/corpora.sh js-ts python rust c-linux)
#   AST_EDIT=path/to/ast-edit              (default: cargo build --release here)
#   FILTER=REGEX                           only the patterns that match
#
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CORPORA=${1:-$HOME/ast-edit-corpora}
if [ -z "${AST_EDIT:-}" ]; then
  (cd "$ROOT" && cargo build --release --quiet --bin ast-edit)
  AST_EDIT=$ROOT/target/release/ast-edit
fi
AST_EDIT=$(realpath "$AST_EDIT")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export AST_EDIT_STATE_DIR=$WORK/state
OUT=$ROOT/benches/results/layout.tsv

# The cases of benches/prefilter_check.sh (lang <TAB> path under CORPORA <TAB> pattern
# <TAB> rewrite), then an identity rewrite, a `$$$` capture followed by `,` and the
# Django method-body case. Each gets a kind: `throwaway` for the rewrites to a bare
# name (`x`, `x;`, `f`), which are not meant to keep anything (their flags are
# reported, not judged); `django` for the method-body case, which --verbatim must
# flag and the default must not; `keep` for every other (they keep structure).
CASES=$(sed -n "/^CASES=\$(cat <<'EOF'$/,/^EOF$/p" "$ROOT/benches/prefilter_check.sh" | sed '1d;$d')
CASES+=$'\n'$(printf '%s\t%s\t%s\t%s\n' \
  rs rust '$A.unwrap()' '$A.unwrap()' \
  py python 'warnings.warn($$$A)' 'warnings.warn($$$A, stacklevel=2)' \
  py python/Django-5.1.3 'def $F(self): $$$B' 'def $F(self) -> None: $$$B')
kind_of() {
  case "$2" in
    x|x\;|f) echo throwaway ;;
    *) if [ "$1" = 'def $F(self): $$$B' ]; then echo django; else echo keep; fi ;;
  esac
}

"$AST_EDIT" run --help | grep -q -- '--verbatim' || { echo "layout_check: $AST_EDIT has no --verbatim" >&2; exit 2; }
printf 'kind\tlang\tpattern\trewrite\treplacements_verbatim\treplacements_default\tsyntax_flagged_verbatim\tsyntax_flagged_default\tfiles\tlines_verbatim\tlines_default\tflagged_verbatim\tflagged_default\tjudged\tfalse_alarms\tmisses\tseconds_default\tfiles_default_larger\tnote\n' > "$OUT"
n=0
while IFS=$'\t' read -r lang dir pat rew; do
  n=$((n + 1))
  kind=$(kind_of "$pat" "$rew")
  [[ "$pat" =~ ${FILTER:-} ]] || continue
  for mode in default verbatim; do
    extra=()
    [ "$mode" = verbatim ] && extra=(--verbatim)
    start=$(date +%s.%N)
    (cd "$CORPORA" && "$AST_EDIT" run -p "$pat" -r "$rew" -l "$lang" "${extra[@]}" --no-ignore \
      --max-filesize 16777216 "$dir" --json > "$WORK/$n.$mode.json") || [ $? -eq 1 ]
    end=$(date +%s.%N)
    echo "$end - $start" | bc > "$WORK/$n.$mode.secs"
    if [ "$lang" = py ]; then
      # The changed files, copied and edited in a scratch folder, for the ast judge.
      rm -rf "$WORK/copy" && mkdir -p "$WORK/copy/$mode"
      python3 -c 'import json,sys; [print(f["path"]) for f in json.load(open(sys.argv[1]))["files"]]' \
        "$WORK/$n.$mode.json" > "$WORK/$n.list"
      (cd "$CORPORA" && while IFS= read -r f; do mkdir -p "$WORK/copy/$mode/$(dirname "$f")"; cp "$f" "$WORK/copy/$mode/$f"; done < "$WORK/$n.list")
      if [ -s "$WORK/$n.list" ]; then
        # Staged and applied with both guards waived: the judge must see what each
        # mode writes, flagged or not.
        (cd "$WORK/copy/$mode" && "$AST_EDIT" run -p "$pat" -r "$rew" -l "$lang" "${extra[@]}" \
          --max-filesize 16777216 . > /dev/null && "$AST_EDIT" resolve apply --reason judge \
          --extra '{"allowSyntaxErrors": true, "allowStructureChanges": true}' > /dev/null 2>&1) || [ $? -eq 3 ]
      fi
      python3 "$ROOT/benches/layout_check.py" judge "$CORPORA" "$WORK/copy/$mode" "$WORK/$n.list" > "$WORK/$n.$mode.judge"
    fi
  done
  python3 "$ROOT/benches/layout_check.py" row "$kind" "$lang" "$pat" "$rew" "$WORK/$n" >> "$OUT"
  tail -n 1 "$OUT"
done <<<"$CASES"
python3 "$ROOT/benches/layout_check.py" table "$OUT"
