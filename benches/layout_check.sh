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
#     changed skeleton without a flag is a miss;
#   - the edits the build's template check validated (`editsChecked`), wrote verbatim
#     because the minimal layout failed it (`layoutFallbacks`), and the files where
#     neither layout followed the template (`templateMismatch`), read as 0 where the
#     build does not report them;
#   - what each mode writes, compared: every changed file is written in a scratch
#     folder by both modes (both guards waived) and the default's text is compared with
#     --verbatim's. Blanks are the default's business, except where --verbatim has a
#     blank between two characters that make one token without it (two word characters,
#     a two-character operator, a string prefix and its quote) and the default none:
#     a glued edit (`self.assertIn(a, b)` -> `assert ain b`); the other way round is
#     a split. Non-blank text that differs (a kept `,` or comment) is counted apart.
#     For Python also: both texts parse and `ast` reads them differently.
# Kind `codemod` (real codemods that write operators and keywords, CODEMODS below): its
# flags are reported by file and line so each can be explained, not judged, except
# that a glued or split edit, a file only the default flags (syntax or structure) and,
# for Python, an `ast` differing from --verbatim's mean the default does not say what
# the template says. A file where a codemod turns statements into another kind in
# place (a call into an `assert`) is not judged by the Python judge, which reads
# statements and not the expressions inside them; its flags are listed by file and
# line. A file both modes flag is left out of the lines-changed rule (apply refuses
# it either way) and listed apart (`larger-flagged-both`).
# Prints one line per case (and its first findings), then a table; writes
# benches/results/layout.tsv and every finding, by file and line, in
# benches/results/layout_details.tsv; exits 1 if the default changes more lines than
# --verbatim in any file, on any false alarm or miss, or on a codemod's violation above.
#
#   benches/layout_check.sh [CORPORA]      (default ~/ast-edit-corpora, built by
#                                           benches/corpora.sh js-ts python rust c-linux
#                                           and benches/corpora_go.sh)
#   AST_EDIT=path/to/ast-edit              (default: cargo build --release here)
#   FILTER=REGEX                           only the cases whose `KIND LANG PATH PATTERN`
#                                           matches (FILTER=codemod, FILTER='^codemod go ')
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
DETAILS=$ROOT/benches/results/layout_details.tsv

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

# Codemods that write operators and keywords the matched code did not have (kind
# `codemod`): lang <TAB> path under CORPORA <TAB> pattern <TAB> rewrite [<TAB> the
# --selector a C expression pattern needs]. Each matches on its path; the path is a
# sub-folder where the whole corpus would be slow. `go` is the corpus of
# benches/corpora_go.sh.
CODEMODS=$(cat <<'END_CODEMODS'
py	python	self.assertIn($A, $B)	assert $A in $B
py	python	self.assertNotIn($A, $B)	assert $A not in $B
py	python	self.assertEqual($A, $B)	assert $A == $B
py	python	self.assertNotEqual($A, $B)	assert $A != $B
py	python	self.assertTrue($A)	assert $A
py	python	self.assertFalse($A)	assert not $A
py	python	self.assertIs($A, $B)	assert $A is $B
py	python	self.assertIsNot($A, $B)	assert $A is not $B
py	python	self.assertIsNone($A)	assert $A is None
py	python	self.assertIsNotNone($A)	assert $A is not None
py	python	self.assertGreater($A, $B)	assert $A > $B
py	python	self.assertLess($A, $B)	assert $A < $B
py	python	self.assertIsInstance($A, $B)	assert isinstance($A, $B)
py	python	$A == None	$A is None
py	python	$A != None	$A is not None
py	python	not $A in $B	$A not in $B
py	python	not $A is $B	$A is not $B
js	js-ts/webpack-5.96.1	$A && $A.$B	$A?.$B
js	js-ts/webpack-5.96.1	$A = $A || $B	$A ||= $B
js	js-ts/webpack-5.96.1	$A !== undefined ? $A : $B	$A ?? $B
js	js-ts/webpack-5.96.1	$A.length === 0	!$A.length
js	js-ts/webpack-5.96.1	const $A = require($B)	import $A from $B
js	js-ts/webpack-5.96.1	void 0	undefined
js	js-ts/three-0.170.0	$A.indexOf($B) !== -1	$A.includes($B)
js	js-ts/three-0.170.0	$A.indexOf($B) === -1	!$A.includes($B)
js	js-ts/three-0.170.0	typeof $A !== "undefined"	$A !== undefined
js	js-ts/three-0.170.0	$A === null || $A === undefined	$A == null
js	js-ts/three-0.170.0	Object.assign({}, $A, $B)	({ ...$A, ...$B })
js	js-ts/three-0.170.0	Array.prototype.slice.call($A)	[...$A]
js	js-ts/three-0.170.0	Math.pow($A, $B)	$A ** $B
js	js-ts/three-0.170.0	$A = $A + $B	$A += $B
js	js-ts/date-fns-4.1.0	exports.$A = $B	export const $A = $B
ts	js-ts/effect-3.10.0/src	<$T>$A	$A as $T
ts	js-ts/effect-3.10.0/src	$A === undefined	$A === void 0
ts	js-ts/effect-3.10.0/src	$A.length === 0	!$A.length
rs	rust	match $O { Some($X) => Some($E), None => None }	$O.map(|$X| $E)
rs	rust	match $O { Some($X) => $X, None => $D }	$O.unwrap_or($D)
rs	rust	if let Some($X) = $O { $X } else { $D }	$O.unwrap_or($D)
rs	rust	$A.map_or(false, $F)	$A.is_some_and($F)
rs	rust	$A.map_or(true, $F)	$A.is_none_or($F)
rs	rust	!$A.is_some()	$A.is_none()
rs	rust	!$A.is_none()	$A.is_some()
rs	rust	$A.len() == 0	$A.is_empty()
rs	rust	$A.len() != 0	!$A.is_empty()
rs	rust	$A.len() > 0	!$A.is_empty()
rs	rust	$A.iter().any(|$X| $X == $B)	$A.contains(&$B)
rs	rust	$A == false	!$A
rs	rust	if $C { true } else { false }	$C
go	go	if err != nil { return err }	if err != nil { return fmt.Errorf("op: %w", err) }
go	go	strings.Index($A, $B) == -1	!strings.Contains($A, $B)
go	go	strings.Index($A, $B) < 0	!strings.Contains($A, $B)
go	go	strings.Index($A, $B) >= 0	strings.Contains($A, $B)
go	go	bytes.Compare($A, $B) != 0	!bytes.Equal($A, $B)
go	go	$X = $X + 1	$X++
go	go	$X = $X + $Y	$X += $Y
go	go	$A == false	!$A
go	go	!($A == $B)	$A != $B
go	go	!($A != $B)	$A == $B
go	go	for _, $X := range $Y { $A = append($A, $X) }	$A = append($A, $Y...)
go	go	if strings.HasPrefix($S, $P) { $S = $S[len($P):] }	$S = strings.TrimPrefix($S, $P)
c	c-linux/tools	!($A == $B);	$A != $B	unary_expression
c	c-linux/tools	!($A != $B);	$A == $B	unary_expression
c	c-linux/tools	sizeof($A) / sizeof($A[0]);	ARRAY_SIZE($A)	binary_expression
c	c-linux/tools	$A ? 1 : 0;	!!$A	conditional_expression
c	c-linux/tools	$A ? true : false;	!!$A	conditional_expression
c	c-linux/tools	$A = $A + 1;	$A++;
c	c-linux/tools	$A = $A - 1;	$A--;
c	c-linux/tools	$A = $A + $B;	$A += $B;
c	c-linux/tools	$A = $A | $B;	$A |= $B;
c	c-linux/tools	if ($A) free($A);	free($A);
c	c-linux/kernel	$A == NULL	!$A
END_CODEMODS
)

# One line per case: kind <TAB> lang <TAB> path <TAB> pattern <TAB> rewrite <TAB> selector (or -).
ALL=$(while IFS=$'\t' read -r lang dir pat rew; do
        printf '%s\t%s\t%s\t%s\t%s\t-\n' "$(kind_of "$pat" "$rew")" "$lang" "$dir" "$pat" "$rew"
      done <<<"$CASES"
      while IFS=$'\t' read -r lang dir pat rew sel; do
        printf 'codemod\t%s\t%s\t%s\t%s\t%s\n' "$lang" "$dir" "$pat" "$rew" "${sel:--}"
      done <<<"$CODEMODS")

"$AST_EDIT" run --help | grep -q -- '--verbatim' || { echo "layout_check: $AST_EDIT has no --verbatim" >&2; exit 2; }
python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import layout_check as L; print("\t".join(L.COLUMNS))' "$ROOT/benches" > "$OUT"
printf 'kind\tlang\tpath\tpattern\trewrite\tselector\tmode\twhat\tfile\tline\ttext\n' > "$DETAILS"
n=0
while IFS=$'\t' read -r kind lang dir pat rew sel; do
  n=$((n + 1))
  [[ "$kind $lang $dir $pat" =~ ${FILTER:-} ]] || continue
  selector=()
  [ "$sel" != - ] && selector=(--selector "$sel")
  rm -rf "$WORK/copy"
  for mode in default verbatim; do
    extra=()
    [ "$mode" = verbatim ] && extra=(--verbatim)
    start=$(date +%s.%N)
    (cd "$CORPORA" && "$AST_EDIT" run -p "$pat" -r "$rew" -l "$lang" "${selector[@]}" "${extra[@]}" --no-ignore \
      --max-filesize 16777216 "$dir" --json > "$WORK/$n.$mode.json") || [ $? -eq 1 ]
    end=$(date +%s.%N)
    echo "$end - $start" | bc > "$WORK/$n.$mode.secs"
    # The changed files, copied to a scratch folder and written there as this mode
    # writes them, with both guards waived: the judges must see what each mode writes,
    # flagged or not. Files with a template mismatch are left out (apply refuses them).
    mkdir -p "$WORK/copy/$mode"
    python3 -c 'import json,sys; [print(f["path"]) for f in json.load(open(sys.argv[1]))["files"]]' \
      "$WORK/$n.$mode.json" > "$WORK/$n.$mode.list"
    if [ -s "$WORK/$n.$mode.list" ]; then
      (cd "$CORPORA" && xargs -d '\n' cp --parents -t "$WORK/copy/$mode" < "$WORK/$n.$mode.list")
      (cd "$WORK/copy/$mode" && "$AST_EDIT" run -p "$pat" -r "$rew" -l "$lang" "${selector[@]}" "${extra[@]}" \
        --no-ignore --max-filesize 16777216 . --json > "$WORK/$n.$mode.copy.json") || [ $? -eq 1 ]
      read -r id apply_extra < <(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
x = [f["path"] for f in d["files"] if f.get("templateMismatch")]
print(d["id"], json.dumps({"allowSyntaxErrors": True, "allowStructureChanges": True, **({"exclude": x} if x else {})}))' \
        "$WORK/$n.$mode.copy.json")
      (cd "$WORK/copy/$mode" && "$AST_EDIT" resolve apply --id "$id" --reason judge --extra "$apply_extra" > /dev/null 2>&1) || [ $? -eq 3 ]
    fi
    if [ "$lang" = py ]; then
      python3 "$ROOT/benches/layout_check.py" judge "$CORPORA" "$WORK/copy/$mode" "$WORK/$n.$mode.list" > "$WORK/$n.$mode.judge"
    fi
  done
  python3 "$ROOT/benches/layout_check.py" compare "$lang" "$CORPORA" "$WORK/copy" "$WORK/$n" > "$WORK/$n.compare"
  python3 "$ROOT/benches/layout_check.py" row "$kind" "$lang" "$dir" "$pat" "$rew" "$sel" "$WORK/$n" >> "$OUT"
  tail -n 1 "$OUT"
  # What to explain, by file and line: all of it in $DETAILS, the first few of each
  # sort here.
  awk -F'\t' -v OFS='\t' -v c="$kind"$'\t'"$lang"$'\t'"$dir"$'\t'"$pat"$'\t'"$rew"$'\t'"$sel" '{ print c, $0 }' \
    "$WORK/$n.details" >> "$DETAILS"
  awk -F'\t' -v all="${DETAILS#"$ROOT"/}" '{ k = $1 " " $2; if (++seen[k] <= 3) printf "    %s %s %s:%s %s\n", $1, $2, $3, $4, $5 }
    END { for (k in seen) if (seen[k] > 3) printf "    (%s: %d more in %s)\n", k, seen[k] - 3, all }' "$WORK/$n.details"
done <<<"$ALL"
python3 "$ROOT/benches/layout_check.py" table "$OUT"
