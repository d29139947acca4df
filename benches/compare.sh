#!/usr/bin/env bash
# ast-edit vs ast-grep 0.51.1 on real corpora: same cases as benches/peer.sh,
# both tools interleaved in one run, with an identical-output check.
#
# Usage:  benches/compare.sh [CORPORA_DIR] [CASE_REGEX]
#   CORPORA_DIR  where benches/corpora.sh builds the corpora (also env CORPORA;
#                default $HOME/ast-edit-corpora). Corpora already there are not rebuilt;
#                only the corpora that the selected cases need are built.
#   CASE_REGEX   only run cases whose id matches (also env FILTER; e.g. '^py-', 'common',
#                '^c-(none|common)$'). Cases: {py,rs,ts,js,c}-{common,rare,none}.
# Env:
#   RUNS (5)        timed runs per tool for python/rust/ts cases;  RUNS_JS (3) for js;
#   RUNS_C (2)      for the kernel (an ast-grep pass over it is ~70 s)
#   APPLY (1)       0: skip the apply cases
#   APPLY_CASES     regex of case ids that also get apply runs (default: '-common$')
#   APPLY_RUNS      timed apply runs per tool (default: min(runs, 3))
#   AST_EDIT        ast-edit binary to measure (default: `cargo build --release` here,
#                   then target/release/ast-edit)
#   AST_GREP        ast-grep binary (default: from PATH, pyenv shim resolved; installed
#                   from PyPI as ast-grep-cli==0.51.1 the way peer.sh does if missing)
#   QUIET_PCT (10), QUIET_MAX (300)  before each case, wait (at most QUIET_MAX s) until
#                   the machine's CPU use is below QUIET_PCT % for 2 s (it is shared)
#   KEEP_TMP=1      keep the check outputs and apply copies (in CORPORA_DIR/.compare-tmp)
#
# What is measured, per case (cwd = CORPORA_DIR, so both tools print paths as corpus/...):
#   preview  ast-grep run -p P -r R -l L [EXTRA] CORPUS --json=compact > /dev/null
#            ast-edit run -p P -r R -l L [EXTRA] --verbatim --max-filesize M CORPUS --json > /dev/null
#            (ast-edit stages a pending action: AST_EDIT_STATE_DIR is a fresh temp dir per run)
#            One untimed run of each first (warms the page cache), whose JSON is kept for the
#            check: same set of files, same match counts per file (ast-grep's JSON lists
#            nested matches too; ast-edit keeps the outermost and reports the rest in
#            `overlaps`, so per-file counts may differ by exactly that, which is shown).
#            Then RUNS timed runs, alternating which tool goes first.
#   ceiling  after each run's pair, ast-grep on only the files its check run matched
#            (same command, those paths instead of CORPUS): the parse a tool cannot
#            avoid if it parses each file it edits. ast-grep time / this time is the
#            ceiling of the ratio for such a tool (reported beside each target).
#   floor    then ast-edit on those same files (its command, those paths): what
#            ast-edit itself spends on the files it must edit (parse, rewrite,
#            re-parse for the syntax check, diffs, JSON). ast-grep time / this time is
#            the best ratio ast-edit can reach however cheaply it skips the other
#            files; a target above it cannot be met by a better prefilter or walk.
#   apply    for APPLY_CASES: per run, fresh `cp -a` copies of the corpus (not timed), then
#              ag-apply     ast-grep run ... COPY -U
#              ae-apply     ast-edit run ... COPY -U            (plan + apply in one call)
#              ae-resolve   ast-edit resolve apply --reason bench   after an untimed preview
#                           on its copy (the apply of a stored plan)
#            after the last run, the three copies must be byte-identical (diff -r); the
#            first differing files and a short diff are printed and the script exits 1.
# Each timed run: wall time (date +%s%N around the command), peak RSS, user and sys
# (GNU time: %M %U %S), and other_cpu_s = CPU seconds that *other* processes used
# during the run (from /proc/stat; > ~5 % of the run's own CPU means it was disturbed).
#
# --max-filesize: ast-grep skips a file only if it is > 3 MB and > 200k lines; ast-edit
# skips by size alone. Per corpus/lang the script finds the files ast-grep skips and
# passes ast-edit a cap just below the smallest of them when every file ast-grep keeps is
# smaller (then both parse the same files); else the default 16 MiB cap stays, and the
# difference is reported. The value used is in the results.
#
# Output: benches/results/<case>.tsv (raw per-run rows), <case>.check (output check),
# <case>.meta (machine, versions, commit); benches/RESULTS.md is regenerated from every
# case file in benches/results/, so corpora can be run one at a time.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
CORPORA=${1:-${CORPORA:-$HOME/ast-edit-corpora}}
FILTER=${2:-${FILTER:-.}}
RUNS=${RUNS:-5}; RUNS_JS=${RUNS_JS:-3}; RUNS_C=${RUNS_C:-2}
APPLY=${APPLY:-1}; APPLY_CASES=${APPLY_CASES:--common$}
QUIET_PCT=${QUIET_PCT:-10}; QUIET_MAX=${QUIET_MAX:-300}
RESDIR=${RESULTS_DIR:-$HERE/results}
REPORT=${REPORT:-$HERE/RESULTS.md}
AG_VERSION=0.51.1

LOG_TAG=compare
# shellcheck source=benches/lib.sh
. "$HERE/lib.sh"

# ---------------------------------------------------------------- cases (= peer.sh's)
# id | corpus | lang | pattern | rewrite | literal for rg | extra ast-grep args
CASES=$(cat <<'EOF'
py-common|python|python|print($$$A)|logger.info($$$A)|print(|
py-rare|python|python|os.getcwd()|Path.cwd()|os.getcwd()|
py-none|python|python|zzz_no_such_fn($A)|zzz($A)|zzz_no_such_fn|
rs-common|rust|rust|$A.unwrap()|$A.expect("checked")|.unwrap()|
rs-rare|rust|rust|mem::transmute($A)|mem::transmute_copy(&$A)|mem::transmute(|
rs-none|rust|rust|zzz_no_such_fn($A)|zzz($A)|zzz_no_such_fn|
ts-common|js-ts|ts|$A as any|$A as unknown| as any|
ts-rare|js-ts|ts|Object.assign({}, $A)|({ ...$A })|Object.assign({},|
ts-none|js-ts|ts|zzzNoSuchCallee($A)|zzz($A)|zzzNoSuchCallee|
js-common|js-ts|js|console.log($$$A)|logger.debug($$$A)|console.log(|
js-rare|js-ts|js|JSON.parse(JSON.stringify($A))|structuredClone($A)|JSON.parse(JSON.stringify(|
js-none|js-ts|js|zzzNoSuchCallee($A)|zzz($A)|zzzNoSuchCallee|
c-common|c-linux|c|kfree($A);|kvfree($A);|kfree(|
c-rare|c-linux|c|x = kmemdup_nul($A, $B, $C);|kmemdup_nul_checked($A, $B, $C)|kmemdup_nul(|--selector call_expression
c-none|c-linux|c|zzz_no_such_fn($A);|zzz($A);|zzz_no_such_fn|
EOF
)
peer_cases=$(sed -n "/^CASES=\$(cat <<'EOF'/,/^EOF/p" "$HERE/peer.sh" | sed '1d;$d')
[ "$peer_cases" = "$CASES" ] || log "WARNING: the case table differs from $HERE/peer.sh's; results are not comparable with that script's"

ext_of() {   # ast-grep 0.51's extension list for -l LANG (as corpora.sh counts files)
  case $1 in
    js) echo "js cjs mjs jsx" ;; ts) echo "ts cts mts" ;; python) echo "py py3 pyi bzl bazel" ;;
    rust) echo "rs" ;; c) echo "c h" ;;
  esac
}
ae_extra() {   # map ast-grep's extra args to ast-edit's
  local out=() a
  set -- $1
  while [ $# -gt 0 ]; do
    a=$1; shift
    case $a in
      --selector) out+=(--selector "$1"); shift ;;
      --strictness) out+=(--strictness "$1"); shift ;;
      *) die "no ast-edit equivalent known for ast-grep argument '$a'" ;;
    esac
  done
  [ ${#out[@]} -eq 0 ] || printf '%s\n' "${out[@]}"
}

# ---------------------------------------------------------------- selected cases, corpora
SELECTED=()
declare -A NEED=()
while IFS='|' read -r id corpus _rest; do
  [ -n "$id" ] || continue
  [[ $id =~ $FILTER ]] || continue
  SELECTED+=("$id"); NEED[$corpus]=1
done <<< "$CASES"
[ ${#SELECTED[@]} -gt 0 ] || die "no case matches '$FILTER'"
log "cases: ${SELECTED[*]}"

mkdir -p "$CORPORA"; CORPORA=$(cd "$CORPORA" && pwd)
missing=()
for c in "${!NEED[@]}"; do
  [ -f "$CORPORA/.stamps/$c.done" ] && [ -d "$CORPORA/$c" ] || missing+=("$c")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "building corpora: ${missing[*]} (into $CORPORA; the kernel needs ~2 GB)"
  df -h "$CORPORA" >&2 || true
  "$HERE/corpora.sh" "$CORPORA" "${missing[@]}"
else
  log "corpora present in $CORPORA"
fi

# ---------------------------------------------------------------- tools
for t in /usr/bin/time; do
  if [ ! -x "$t" ]; then
    log "installing GNU time (Debian package 'time')"
    apt-get install -y -qq time >/dev/null || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }
  fi
done
if [ -z "${AST_GREP:-}" ]; then
  if ! command -v ast-grep >/dev/null 2>&1 || [ "$(ast-grep --version 2>/dev/null)" != "ast-grep $AG_VERSION" ]; then
    log "installing ast-grep-cli==$AG_VERSION (prebuilt binary wheel from PyPI)"
    python3 -m pip install --quiet --disable-pip-version-check "ast-grep-cli==$AG_VERSION"
    hash -r
  fi
  AST_GREP=$(command -v ast-grep)
  # a pyenv shim is a shell script that costs ~40 ms per call: time the real binary
  if command -v pyenv >/dev/null 2>&1 && pyenv which ast-grep >/dev/null 2>&1; then AST_GREP=$(pyenv which ast-grep); fi
fi
[ "$("$AST_GREP" --version)" = "ast-grep $AG_VERSION" ] || die "need ast-grep $AG_VERSION, got $("$AST_GREP" --version)"
if [ -z "${AST_EDIT:-}" ]; then
  log "cargo build --release (in $ROOT)"
  (cd "$ROOT" && cargo build --release --quiet --bin ast-edit) >&2
  AST_EDIT=$ROOT/target/release/ast-edit
fi
AST_EDIT=$(cd "$(dirname "$AST_EDIT")" && pwd)/$(basename "$AST_EDIT")
[ -x "$AST_EDIT" ] || die "no ast-edit binary at $AST_EDIT"
AE_COMMIT=$(cd "$ROOT" && git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
AE_DIRTY=$(cd "$ROOT" && git status --porcelain -- src Cargo.toml Cargo.lock 2>/dev/null | wc -l)
[ "${AE_DIRTY:-0}" -gt 0 ] && AE_COMMIT="$AE_COMMIT+dirty(src)"
[ -n "${AE_COMMIT_LABEL:-}" ] && AE_COMMIT=$AE_COMMIT_LABEL
log "ast-edit: $AST_EDIT ($AE_COMMIT); ast-grep: $AST_GREP"

TMP=$CORPORA/.compare-tmp
rm -rf "$TMP"; mkdir -p "$TMP" "$RESDIR"
cleanup() { [ "${KEEP_TMP:-0}" = 1 ] || rm -rf "$TMP"; }
trap cleanup EXIT

machine_meta() {
  echo "date	$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "cpu	$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') x $NCPU (nproc)"
  echo "mem	$(awk '/MemTotal/{printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
  echo "kernel	$(uname -srm)"
  echo "ast-grep	$("$AST_GREP" --version)"
  echo "ast-edit	$("$AST_EDIT" --version 2>/dev/null | head -1) commit $AE_COMMIT"
  echo "time	$(/usr/bin/time --version 2>&1 | head -1)"
}

# ---------------------------------------------------------------- max-filesize per corpus/lang
declare -A MAXFS=() MAXFS_NOTE=()
max_filesize_for() {   # corpus lang -> sets MAXFS[corpus/lang]
  local key=$1/$2
  [ -n "${MAXFS[$key]:-}" ] && return 0
  local exts; exts=$(ext_of "$2")
  local r
  r=$(python3 "$HERE/scan_compare.py" maxfs "$CORPORA" "$1" $exts)
  MAXFS[$key]=${r%% *}
  MAXFS_NOTE[$key]=${r#* }
  log "$key: --max-filesize ${MAXFS[$key]} (${MAXFS_NOTE[$key]})"
}

# ---------------------------------------------------------------- one timed command
# measure TSV CASE TOOL MODE RUN CWD STATE_DIR -- CMD...   (stdout -> /dev/null)
measure() {
  local tsv=$1 case=$2 tool=$3 mode=$4 run=$5 cwd=$6 state=$7; shift 8
  local tf=$TMP/time.out ef=$TMP/$tool.stderr t0 t1 b0 b1 rc=0
  b0=$(busy); t0=$(date +%s%N)
  (cd "$cwd" && AST_EDIT_STATE_DIR=$state exec /usr/bin/time -f '%M %U %S' -o "$tf" "$@" >/dev/null 2>"$ef") || rc=$?
  t1=$(date +%s%N); b1=$(busy)
  local rss user sys
  read -r rss user sys < <(tail -n 1 "$tf")
  local row
  row=$(awk -v t0="$t0" -v t1="$t1" -v b0="$b0" -v b1="$b1" -v hz="$HZ" -v u="$user" -v s="$sys" \
    'BEGIN { w = (t1 - t0) / 1e9; o = (b1 - b0) / hz - u - s; if (o < 0) o = 0; printf "%.3f\t%.2f\t%.2f\t%.2f", w, u, s, o }')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$case" "$tool" "$mode" "$run" "$row" "$rss" "$rc" >> "$tsv"
  local wall=${row%%$'\t'*}
  # ast-grep exits 1 when nothing matched; anything else non-zero is a failure
  if [ "$rc" -ne 0 ] && ! { [ "$tool" = ast-grep ] && [ "$rc" -eq 1 ]; }; then
    log "  $tool $mode run $run exited $rc: $(head -c 600 "$ef")"
  fi
  LAST="${wall}s, $((rss / 1024)) MB"
}

# ---------------------------------------------------------------- output checks
check_preview() {   # ag.json ae.json -> prints a one-line verdict, returns 1 on mismatch;
                    # writes the files ast-edit leaves alone by design to $TMP/bydesign.txt
  python3 - "$1" "$2" "$TMP/bydesign.txt" <<'PY'
import json, re, sys, collections
try:
    ag = json.load(open(sys.argv[1]))
    ae = json.load(open(sys.argv[2]))
except Exception as e:
    print(f"MISMATCH: cannot read a tool's JSON output ({e}); see its stderr above")
    sys.exit(1)
agc = collections.Counter(m["file"] for m in ag)
ag_lines = collections.defaultdict(collections.Counter)   # file -> 1-based start line -> matches
for m in ag:
    ag_lines[m["file"]][m["range"]["start"]["line"] + 1] += 1
aec = {f["path"]: f["replacements"] for f in ae["files"]}
# Deliberate deviation 1: a match whose node holds an ERROR node is left alone by
# ast-edit (ast-grep rewrites it and can lose code) and named in a warning
# "PATH:LINE: a match contains code that does not parse ...". Notes are capped at 20;
# the rest are counted in "... and N more matches left alone".
unparsed = collections.Counter(); unparsed_at = collections.defaultdict(collections.Counter); unlisted = 0
for w in ae.get("warnings", []):
    m = re.match(r"^(.*):(\d+): a match contains code that does not parse", w)
    if m:
        unparsed[m.group(1)] += 1; unparsed_at[m.group(1)][int(m.group(2))] += 1
    m = re.match(r"^\.\.\. and (\d+) more matches left alone", w)
    if m:
        unlisted += int(m.group(1))
problems = []
for p, lines in unparsed_at.items():
    for line, n in lines.items():
        if ag_lines[p][line] < n:
            problems.append(f"  ast-edit reports {n} unparsed match(es) at {p}:{line}, ast-grep has {ag_lines[p][line]} there")
only_ae = sorted(set(aec) - set(agc))
# Deliberate deviation 2: nested matches. ast-grep's JSON lists every match; ast-edit
# rewrites the outermost and counts the rest in `overlaps` (ast-grep -U also keeps one).
residual = {p: agc[p] - aec.get(p, 0) - unparsed[p] for p in set(agc) | set(aec)}
neg = {p: r for p, r in residual.items() if r < 0}
extra = sum(r for r in residual.values() if r > 0)
ov = ae.get("overlaps", 0)
ag_total, ae_total = sum(agc.values()), sum(aec.values())
skipped = ae.get("skipped", [])
head = (f"ast-grep {ag_total} matches in {len(agc)} files; ast-edit {ae_total} replacements in {len(aec)} files "
        f"(+{ov} overlaps, +{sum(unparsed.values()) + unlisted} left alone around ERROR nodes), "
        f"{ae.get('filesSearched')} files searched, {len(skipped)} skipped")
# every ast-grep match is accounted for: rewritten, nested (overlaps) or left alone (unparsed)
ok = not only_ae and not neg and not problems and extra == ov + unlisted
with open(sys.argv[3], "w") as f:
    for p in sorted(unparsed):
        f.write(p + "\n")
if ok:
    why = []
    nested = sum(1 for r in residual.values() if r > 0)
    if nested: why.append(f"{nested} files differ in count only by nested matches (sum {extra - unlisted} = ast-edit overlaps)")
    if unparsed or unlisted: why.append(f"{len(unparsed)} files hold matches around ERROR nodes left alone by design ({sum(unparsed.values())} listed at the lines ast-grep matched, {unlisted} more counted)")
    print(f"OK same files and counts: {head}" + ("; " + "; ".join(why) if why else ""))
    sys.exit(0)
print(f"MISMATCH: {head}")
for p in only_ae[:10]: print(f"  only ast-edit: {p} ({aec[p]} replacements)")
for p, r in sorted(neg.items())[:10]: print(f"  ast-edit has more than ast-grep: {p}: ast-grep {agc[p]}, ast-edit {aec.get(p, 0)} + {unparsed[p]} unparsed")
for line in problems[:10]: print(line)
if extra != ov + unlisted:
    print(f"  unaccounted: ast-grep has {extra} matches more than ast-edit rewrote or reported, ast-edit reports {ov} overlaps + {unlisted} unlisted")
    for p, r in sorted((p, r) for p, r in residual.items() if r > 0)[:10]:
        print(f"  count differs: {p}: ast-grep {agc[p]}, ast-edit {aec.get(p, 0)} (+{unparsed[p]} unparsed)")
for s in skipped[:5]: print(f"  ast-edit skipped: {s['path']}: {s['reason']}")
sys.exit(1)
PY
}

compare_trees() {   # A B label [strict] -> 0 identical except the files in $TMP/bydesign.txt
                    # (matches around ERROR nodes that ast-edit leaves alone and
                    # ast-grep rewrites; none excepted with `strict`); prints the
                    # first differences
  local a=$1 b=$2 label=$3 strict=${4:-} out=$TMP/diffq.txt rel
  diff -rq "$a" "$b" > "$out.all" 2>&1 || true
  : > "$out"; : > "$TMP/bydesign.hit"
  while IFS= read -r line; do
    rel=$(printf '%s\n' "$line" | sed -nE "s|^Files $a/(.*) and $b/.* differ\$|\1|p")
    if [ -z "$strict" ] && [ -n "$rel" ] && [ -s "$TMP/bydesign.txt" ] && grep -qxF "$CORPUS_NAME/$rel" "$TMP/bydesign.txt"; then
      echo "$CORPUS_NAME/$rel" >> "$TMP/bydesign.hit"
    else
      printf '%s\n' "$line" >> "$out"
    fi
  done < "$out.all"
  [ -s "$out" ] || return 0
  log "MISMATCH ($label): $(wc -l < "$out") files differ; first ones:"
  head -n 10 "$out" | sed 's/^/  /' >&2
  local first; first=$(grep -m1 '^Files .* differ$' "$out" | sed -E 's/^Files (.*) and (.*) differ$/\1\t\2/' || true)
  if [ -n "$first" ]; then
    log "first difference (${first%%$'\t'*}), diff -u, first 30 lines:"
    diff -u "${first%%$'\t'*}" "${first#*$'\t'}" | head -n 30 | cut -c1-300 >&2 || true
  fi
  return 1
}

# ---------------------------------------------------------------- run
FAILED=0
declare -A IGNFILES=()
ncase=${#SELECTED[@]}; i=0
while IFS='|' read -r id corpus lang pat rew lit extra; do
  [ -n "$id" ] || continue
  [[ $id =~ $FILTER ]] || continue
  i=$((i + 1))
  case $corpus in c-linux) runs=$RUNS_C ;; js-ts) [ "$lang" = js ] && runs=$RUNS_JS || runs=$RUNS ;; *) runs=$RUNS ;; esac
  max_filesize_for "$corpus" "$lang"
  mfs=${MAXFS[$corpus/$lang]}
  mapfile -t aex < <(ae_extra "$extra")
  AG=("$AST_GREP" run -p "$pat" -r "$rew" -l "$lang")
  [ -n "$extra" ] && AG+=($extra)
  AE=("$AST_EDIT" run -p "$pat" -r "$rew" -l "$lang" "${aex[@]}" --verbatim --max-filesize "$mfs")
  # Both tools (as ripgrep) read .gitignore only inside a git repository; the corpora
  # are not repositories, so both search the same files (docs/REFERENCE.md,
  # `--no-require-git`). The count of ignore files goes to the meta file.
  if [ -z "${IGNFILES[$corpus]:-}" ]; then
    IGNFILES[$corpus]=$(find "$CORPORA/$corpus" \( -name .gitignore -o -name .ignore \) -print | wc -l)
  fi
  tsv=$RESDIR/$id.tsv chk=$RESDIR/$id.check meta=$RESDIR/$id.meta
  printf 'case\ttool\tmode\trun\twall_s\tuser_s\tsys_s\tother_cpu_s\tpeak_rss_kb\texit\n' > "$tsv"
  {
    machine_meta
    echo "corpus	$corpus"; echo "lang	$lang"; echo "pattern	$pat"; echo "rewrite	$rew"; echo "extra	$extra"
    echo "max_filesize	$mfs (${MAXFS_NOTE[$corpus/$lang]})"
    echo "runs	$runs"
    echo "ag_cmd	ast-grep run -p '$pat' -r '$rew' -l $lang $extra $corpus --json=compact"
    echo "ae_cmd	ast-edit run -p '$pat' -r '$rew' -l $lang ${aex[*]} --max-filesize $mfs $corpus --json"
    echo "ignore_files	${IGNFILES[$corpus]} .gitignore/.ignore files in the corpus (.gitignore counts for neither tool outside a git repository)"
  } > "$meta"
  : > "$chk"

  log "($i/$ncase) $id: $corpus/$lang  \`$pat\` -> \`$rew\` $extra  ($runs runs per tool)"
  wait_quiet
  # untimed check run of each tool (also warms the page cache)
  st=$TMP/state-check; rm -rf "$st"; mkdir -p "$st"
  log "($i/$ncase) $id: check run, ast-grep"
  (cd "$CORPORA" && "${AG[@]}" "$corpus" --json=compact > "$TMP/ag.json" 2>"$TMP/ag.err") || true
  log "($i/$ncase) $id: check run, ast-edit"
  (cd "$CORPORA" && AST_EDIT_STATE_DIR=$st "${AE[@]}" "$corpus" --json > "$TMP/ae.json" 2>"$TMP/ae.err") \
    || { log "ast-edit failed: $(head -c 800 "$TMP/ae.err")"; }
  rm -rf "$st"
  echo "json_bytes	ast-grep $(stat -c %s "$TMP/ag.json")	ast-edit $(stat -c %s "$TMP/ae.json")" >> "$chk"
  python3 - "$TMP/ae.json" >> "$chk" <<'PY' || true
import json, sys
d = json.load(open(sys.argv[1]))
cut = [w for w in d.get("warnings", []) if "cut in this preview" in w]
print(f"ae_warnings\t{len(d.get('warnings', []))} warnings, {len(cut)} about cut diff lines")
PY
  if verdict=$(check_preview "$TMP/ag.json" "$TMP/ae.json" 2>&1); then
    log "($i/$ncase) $id: preview check: $verdict"
  else
    FAILED=1
    log "($i/$ncase) $id: preview check FAILED:"; printf '%s\n' "$verdict" | sed 's/^/  /' >&2
  fi
  printf 'preview\t%s\n' "$verdict" | head -n 1 >> "$chk"
  printf '%s\n' "$verdict" | tail -n +2 | sed 's/^/preview_detail\t/' >> "$chk"

  # The ceiling: ast-grep on only the files that hold a match (from its check run).
  # Any tool that must parse each file it edits spends at least that, so
  # ast-grep's time over it bounds the ratio such a tool can reach.
  mapfile -t MATCHED < <(python3 -c 'import json, sys; print("\n".join(sorted({m["file"] for m in json.load(open(sys.argv[1]))})))' "$TMP/ag.json" 2>/dev/null | sed '/^$/d')
  if [ ${#MATCHED[@]} -gt 0 ]; then
    mbytes=$(cd "$CORPORA" && cat -- "${MATCHED[@]}" | wc -c)
    echo "matched_files	${#MATCHED[@]} files hold a match ($mbytes bytes); ceiling runs: ast-grep on them alone" >> "$meta"
  else
    echo "matched_files	no file holds a match: no ceiling run" >> "$meta"
  fi
  for k in $(seq 1 "$runs"); do
    order=(ast-grep ast-edit); [ $((k % 2)) -eq 0 ] && order=(ast-edit ast-grep)
    [ ${#MATCHED[@]} -gt 0 ] && order+=(matched ae-matched)
    for tool in "${order[@]}"; do
      if [ "$tool" = matched ]; then
        measure "$tsv" "$id" ast-grep matched "$k" "$CORPORA" "" -- "${AG[@]}" --json=compact "${MATCHED[@]}"
      elif [ "$tool" = ast-grep ]; then
        measure "$tsv" "$id" ast-grep preview "$k" "$CORPORA" "" -- "${AG[@]}" "$corpus" --json=compact
      else
        # ast-edit on the corpus, or (ae-matched) on the matched files only
        mode=preview; paths=("$corpus")
        [ "$tool" = ae-matched ] && { mode=matched; paths=("${MATCHED[@]}"); }
        st=$TMP/state-$k; rm -rf "$st"; mkdir -p "$st"
        measure "$tsv" "$id" ast-edit "$mode" "$k" "$CORPORA" "$st" -- "${AE[@]}" "${paths[@]}" --json
        rm -rf "$st"
      fi
      label=$tool; [ "$tool" = matched ] && label="ceiling (ast-grep on the ${#MATCHED[@]} matched files)"
      [ "$tool" = ae-matched ] && label="floor (ast-edit on the ${#MATCHED[@]} matched files)"
      log "($i/$ncase) $id: preview $label run $k/$runs: $LAST"
    done
  done

  if [ "$APPLY" = 1 ] && [[ $id =~ $APPLY_CASES ]]; then
    aruns=${APPLY_RUNS:-$(( runs < 3 ? runs : 3 ))}
    for k in $(seq 1 "$aruns"); do
      for t in ag ae ar; do
        rm -rf "${TMP:?}/$t"; mkdir -p "$TMP/$t"; cp -a "$CORPORA/$corpus" "$TMP/$t/$corpus"
      done
      sync
      st=$TMP/state-ar; rm -rf "$st"; mkdir -p "$st"
      (cd "$TMP/ar" && AST_EDIT_STATE_DIR=$st "${AE[@]}" "$corpus" --json > "$TMP/ar.preview.json" 2>"$TMP/ar.err") \
        || log "ast-edit preview for resolve failed: $(head -c 600 "$TMP/ar.err")"
      wait_quiet
      order=(ag ae ar); [ $((k % 2)) -eq 0 ] && order=(ar ae ag)
      for t in "${order[@]}"; do
        case $t in
          ag) measure "$tsv" "$id" ast-grep apply "$k" "$TMP/ag" "" -- "${AG[@]}" "$corpus" -U
              log "($i/$ncase) $id: apply ast-grep -U run $k/$aruns: $LAST" ;;
          ae) st2=$TMP/state-ae; rm -rf "$st2"; mkdir -p "$st2"
              measure "$tsv" "$id" ast-edit apply "$k" "$TMP/ae" "$st2" -- "${AE[@]}" "$corpus" -U --json
              log "($i/$ncase) $id: apply ast-edit run -U run $k/$aruns: $LAST" ;;
          ar) measure "$tsv" "$id" ast-edit resolve "$k" "$TMP/ar" "$st" -- "$AST_EDIT" resolve apply --reason bench --json
              log "($i/$ncase) $id: apply ast-edit resolve apply run $k/$aruns: $LAST" ;;
        esac
      done
    done
    changed=$( (diff -rq "$CORPORA/$corpus" "$TMP/ag/$corpus" 2>/dev/null || true) | wc -l)
    ok=1 CORPUS_NAME=$corpus
    compare_trees "$TMP/ag/$corpus" "$TMP/ae/$corpus" "$id: ast-grep -U vs ast-edit run -U" || ok=0
    nd1=$(wc -l < "$TMP/bydesign.hit")
    compare_trees "$TMP/ag/$corpus" "$TMP/ar/$corpus" "$id: ast-grep -U vs ast-edit resolve apply" || ok=0
    nd2=$(wc -l < "$TMP/bydesign.hit")
    # the files left alone by design must still be byte-identical between ast-edit's two apply paths
    compare_trees "$TMP/ae/$corpus" "$TMP/ar/$corpus" "$id: ast-edit run -U vs resolve apply" strict || ok=0
    if [ "$ok" = 1 ]; then
      msg="OK byte-identical trees after ast-grep -U, ast-edit run -U and ast-edit resolve apply ($changed files changed)"
      if [ "$nd1" -gt 0 ] || [ "$nd2" -gt 0 ]; then
        msg="$msg, except $nd1 file(s) where ast-edit left matches around ERROR nodes alone by design (the preview check lists them; ast-edit's two apply paths agree on them)"
      fi
      log "($i/$ncase) $id: apply check: $msg"
    else
      FAILED=1
      n_ae=$( (diff -rq "$TMP/ag/$corpus" "$TMP/ae/$corpus" || true) | wc -l)
      n_ar=$( (diff -rq "$TMP/ag/$corpus" "$TMP/ar/$corpus" || true) | wc -l)
      msg="MISMATCH: trees differ after apply ($changed files changed by ast-grep; $n_ae differ from ast-edit run -U, $n_ar from resolve apply)"
      { (diff -rq "$TMP/ag/$corpus" "$TMP/ae/$corpus" || true) | head -n 10 | sed "s|$TMP/||g; s/^/apply_detail\tvs run -U: /"
        (diff -rq "$TMP/ag/$corpus" "$TMP/ar/$corpus" || true) | head -n 10 | sed "s|$TMP/||g; s/^/apply_detail\tvs resolve: /"; } >> "$chk" || true
    fi
    printf 'apply\t%s\n' "$msg" >> "$chk"
    rm -rf "${TMP:?}/ag" "${TMP:?}/ae" "${TMP:?}/ar" "$st"
  fi
done <<< "$CASES"

# ---------------------------------------------------------------- report
python3 "$HERE/compare_report.py" "$RESDIR" "$REPORT"
log "wrote $REPORT"
[ "$FAILED" = 0 ] || { log "OUTPUT MISMATCH between the tools: see the checks above and in $REPORT"; exit 1; }
