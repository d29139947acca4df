#!/usr/bin/env bash
# Differential check of the literal prefilter on real code: for each pattern below,
# runs `ast-edit run` on a corpus with the prefilter and with --no-prefilter and
# compares the files, replacement counts and diffs, and the count of warnings about
# matches left alone around parse errors (the one thing the prefilter may change,
# see benches/RESULTS.md, "Analysis"). Prints one line per pattern; exits 1 if any edit
# differs.
#
#   benches/prefilter_check.sh [CORPORA]    (default ~/ast-edit-corpora, built by
#                                            benches/corpora.sh)
#   AST_EDIT=path/to/ast-edit               (default: cargo build --release here)
#
# Every pattern costs a full parse of its corpus without the prefilter: about
# 5 minutes in all on 2 cores (the C patterns use the kernel's kernel/ folder only).
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

# lang <TAB> path under CORPORA <TAB> pattern <TAB> rewrite
CASES=$(cat <<'EOF'
ts	js-ts	$A as any	$A as unknown
ts	js-ts	Object.assign({}, $A)	({ ...$A })
ts	js-ts	return $A as $T	return $A
ts	js-ts	typeof $A === "string"	isString($A)
ts	js-ts	export default $A;	export { $A as default };
ts	js-ts	if ($A) { return $B; }	if ($A) return $B;
ts	js-ts	Array.isArray($A)	isArr($A)
js	js-ts	JSON.parse(JSON.stringify($A))	structuredClone($A)
js	js-ts	console.log($$$A)	log($$$A)
js	js-ts	Object.keys($A).forEach($F)	each($A, $F)
js	js-ts	new Error($A)	err($A)
rs	rust	$A.unwrap()	$A.expect("x")
rs	rust	Box::new($A)	Box::from($A)
rs	rust	return Err($E);	bail!($E);
rs	rust	if let Some($A) = $B { $$$C }	x
rs	rust	$A as usize	usize::from($A)
rs	rust	unsafe { $$$A }	x
py	python	print($$$A)	log($$$A)
py	python	isinstance($A, str)	is_str($A)
py	python	return None	return
py	python	lambda $A: $B	f
py	python	$A is not None	present($A)
py	python	$A not in $B	absent($A, $B)
py	python	os.path.join($$$A)	join($$$A)
c	c-linux/kernel	kfree($A);	kvfree($A);
c	c-linux/kernel	return -EINVAL;	return -EBADF;
c	c-linux/kernel	if (!$A) return -ENOMEM;	x;
c	c-linux/kernel	spin_lock_irqsave($A, $B);	lock($A, $B);
c	c-linux/kernel	$A->$B = NULL;	clear($A->$B);
EOF
)

summary() {
  python3 -c '
import json, sys
d = json.load(sys.stdin)
alone = sum(1 for w in d["warnings"] if "ERROR" in w)
print(json.dumps({"files": [(f["path"], f["replacements"], f["diff"]) for f in d["files"]], "total": d["totalReplacements"]}))
print(alone)'
}

bad=0
while IFS=$'\t' read -r lang dir pat rew; do
  on=$(cd "$CORPORA" && "$AST_EDIT" run -p "$pat" -r "$rew" -l "$lang" --no-ignore --max-filesize 16777216 "$dir" --json | summary)
  off=$(cd "$CORPORA" && "$AST_EDIT" run -p "$pat" -r "$rew" -l "$lang" --no-ignore --max-filesize 16777216 --no-prefilter "$dir" --json | summary)
  total=$(head -1 <<<"$on" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')
  if [ "$(head -1 <<<"$on")" = "$(head -1 <<<"$off")" ]; then verdict=same; else verdict=DIFFERENT; bad=1; fi
  printf '%-9s %-3s %-38s %6s edits; warnings about matches around parse errors: %s with, %s without\n' \
    "$verdict" "$lang" "$pat" "$total" "$(tail -1 <<<"$on")" "$(tail -1 <<<"$off")"
done <<<"$CASES"
exit $bad
