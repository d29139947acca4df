#!/usr/bin/env bash
# ast-edit scan -U vs ast-grep scan -U 0.51.1 with a rule project (benches/scan-project:
# 14 Rust and C rules, and the 11 Python rules of queries/), on the corpora of
# benches/corpora.sh, with a file-by-file check that both tools wrote the same trees.
#
# Usage:  benches/scan_compare.sh [CORPORA_DIR] [CORPUS_REGEX]
#   CORPORA_DIR   where benches/corpora.sh builds the corpora (also env CORPORA; default
#                 $HOME/ast-edit-corpora); a missing corpus is built first
#   CORPUS_REGEX  only the corpora whose name matches (also env FILTER): rust, c-linux,
#                 python
# Env:
#   RUNS (5)        timed runs per tool and mode on rust and python;  RUNS_C (2) on the kernel
#   PREVIEW (1)     0: skip the preview timing
#   REPORTS (1)     0: skip the report timing
#   RELATIONAL (1)  0: skip the heavy relational rules on the kernel (benches/scan_relational.sh,
#                   run after the rest when c-linux is selected, with the same CORPORA_DIR and
#                   KERNEL_SUBDIR)
#   KERNEL_SUBDIR   run the kernel on this folder of it only (e.g. drivers). Without it the
#                   whole kernel runs when the disk has room for two copies (+1 GiB), else
#                   drivers/ (said in the results)
#   PROJECT         the project's config (default benches/scan-project/sgconfig.yml)
#   AST_EDIT        ast-edit binary (default: `cargo build --release` here, then
#                   $CARGO_TARGET_DIR or target/release/ast-edit)
#   AST_GREP        ast-grep binary (default: from PATH, pyenv shim resolved)
#   QUIET_PCT (10), QUIET_MAX (300)  before each timed pair, wait (at most QUIET_MAX s)
#                   until the machine's CPU use is below QUIET_PCT % for 2 s (it is shared)
#   KEEP_TMP=1      keep the copies of the last run (in CORPORA_DIR/.scan-compare-tmp)
#
# Per corpus (cwd = the copy's parent, so both tools print paths as corpus/...):
#   preview  ast-grep scan -c P --json=compact CORPUS   > /dev/null
#            ast-edit scan -c P --preview-json [--max-filesize M] CORPUS > /dev/null
#            (a fresh AST_EDIT_STATE_DIR per run: ast-edit stages a pending action).
#            One untimed run of each first (page cache; its JSON is summarised), then
#            RUNS timed runs, the order alternating.
#   report   ast-grep scan -c P --json=compact CORPUS   > /dev/null
#            ast-edit scan -c P --json=compact [...] CORPUS > /dev/null
#            (a fresh state dir per run: its scan cache cold, entries written); then
#            report-warm (one state dir, filled first: nothing changed) and report-one
#            (the same, one file with a match given a new last line before each pair),
#            after checking that a cold and a warm report equal `--no-cache`'s byte for byte
#            the same work on both sides (every match as a record, nothing staged or
#            written); the record counts of the untimed run go to the meta file.
#   apply    per run, fresh `cp -a` copies of the corpus for each tool (not timed), then
#            ast-grep scan -c P -U CORPUS                     (in its copy)
#            ast-edit scan -c P -U --skip-flagged --preview-json [...] CORPUS  (in its copy; JSON kept)
#            After the last run, benches/scan_compare.py check compares the original and
#            the two trees file by file; every file where the tools wrote different bytes
#            must be explained by a documented difference (matches around ERROR nodes
#            left alone, files skipped by a reported limit, files refused for an added
#            syntax error or left out as flagged by --skip-flagged (ast-grep's text would
#            change what the code says), unused ast-grep-ignore comments that ast-grep removes); the
#            script exits 1 if one is not. Then the cache: `-U` in another fresh copy, with a state
#            dir a preview of the original filled (every file's entry warm), must write the
#            tree the last run wrote with its cache cold, byte for byte (exit 1 if not).
# --max-filesize: as in compare.sh, ast-edit gets a cap just below the smallest file
# ast-grep skips (> 3 MB and > 200k lines) so that both parse the same files;
# Ignore files: both tools read .gitignore only inside a git repository (the corpora are
# not), so both search the same files.
# Each timed run: wall time, peak RSS, user and sys (GNU time), other_cpu_s = CPU seconds
# other processes used during the run (from /proc/stat).
#
# Output: benches/results/scan-<corpus>.{tsv,meta,check}; the section
# "## scan -U with a rule project" of benches/RESULTS.md is rewritten from every
# scan-*.tsv there (between its own markers), so corpora can be run one at a time.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
CORPORA=${1:-${CORPORA:-$HOME/ast-edit-corpora}}
FILTER=${2:-${FILTER:-.}}
RUNS=${RUNS:-5}; RUNS_C=${RUNS_C:-2}; PREVIEW=${PREVIEW:-1}; REPORTS=${REPORTS:-1}
QUIET_PCT=${QUIET_PCT:-10}; QUIET_MAX=${QUIET_MAX:-300}
PROJECT=${PROJECT:-$HERE/scan-project/sgconfig.yml}
RESDIR=${RESULTS_DIR:-$HERE/results}
REPORT=${REPORT:-$HERE/RESULTS.md}
HELPER=$HERE/scan_compare.py
AG_VERSION=0.51.1

LOG_TAG=scan_compare
# shellcheck source=benches/lib.sh
. "$HERE/lib.sh"

# corpus | languages' extensions (ast-grep's, for the size cap)
CORPUS_TABLE="rust|rs
c-linux|c h rs
python|py"
SELECTED=()
while IFS='|' read -r c _; do [[ $c =~ $FILTER ]] && SELECTED+=("$c"); done <<< "$CORPUS_TABLE"
[ ${#SELECTED[@]} -gt 0 ] || die "no corpus matches '$FILTER' (corpora: rust, c-linux, python)"
[ -f "$PROJECT" ] || die "no project config at $PROJECT"
PROJECT=$(cd "$(dirname "$PROJECT")" && pwd)/$(basename "$PROJECT")

mkdir -p "$CORPORA"; CORPORA=$(cd "$CORPORA" && pwd)
missing=()
for c in "${SELECTED[@]}"; do
  [ -f "$CORPORA/.stamps/$c.done" ] && [ -d "$CORPORA/$c" ] || missing+=("$c")
done
[ ${#missing[@]} -eq 0 ] || "$HERE/corpora.sh" "$CORPORA" "${missing[@]}"

# ---------------------------------------------------------------- tools
find_tools
AE_COMMIT=$(cd "$ROOT" && git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
[ "$(cd "$ROOT" && git status --porcelain -- src Cargo.toml Cargo.lock 2>/dev/null | wc -l)" -gt 0 ] && AE_COMMIT="$AE_COMMIT+dirty(src)"
log "ast-edit: $AST_EDIT ($AE_COMMIT); ast-grep: $AST_GREP; project: $PROJECT"
NRULES=$(find "$(dirname "$PROJECT")/rules" -name '*.yml' | wc -l)

TMP=$CORPORA/.scan-compare-tmp
rm -rf "$TMP"; mkdir -p "$TMP" "$RESDIR"
cleanup() { [ "${KEEP_TMP:-0}" = 1 ] || rm -rf "$TMP"; }
trap cleanup EXIT

# measure TSV CORPUS TOOL MODE RUN CWD STATE OUT -- CMD...
measure() {
  local tsv=$1 corpus=$2 tool=$3 mode=$4 run=$5 cwd=$6 state=$7 out=$8; shift 9
  local tf=$TMP/time.out ef=$TMP/$tool.$mode.stderr t0 t1 b0 b1 rc=0
  b0=$(busy); t0=$(date +%s%N)
  (cd "$cwd" && AST_EDIT_STATE_DIR=$state exec /usr/bin/time -f '%M %U %S' -o "$tf" "$@" >"$out" 2>"$ef") || rc=$?
  t1=$(date +%s%N); b1=$(busy)
  local rss user sys row
  read -r rss user sys < <(tail -n 1 "$tf")
  row=$(awk -v t0="$t0" -v t1="$t1" -v b0="$b0" -v b1="$b1" -v hz="$HZ" -v u="$user" -v s="$sys" \
    'BEGIN { w = (t1 - t0) / 1e9; o = (b1 - b0) / hz - u - s; if (o < 0) o = 0; printf "%.3f\t%.2f\t%.2f\t%.2f", w, u, s, o }')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$corpus" "$tool" "$mode" "$run" "$row" "$rss" "$rc" >> "$tsv"
  [ "$rc" -eq 0 ] || log "  $tool $mode run $run exited $rc: $(head -c 600 "$ef")"
  LAST="${row%%$'\t'*}s, $((rss / 1024)) MB"
}

# timed_pairs MODE FLAG [KEEP]: RUNS timed runs per tool, the order alternating, of
# `ast-grep scan --json=compact` and `ast-edit scan FLAG` on the corpus of the loop below
# ($tsv, $corpus, $spec, $runs, AG, AE). Each ast-edit run gets a fresh state dir (its scan
# cache cold), unless KEEP: `warm` keeps one state dir, filled by an untimed run first;
# `one` too, and before each pair one file of the corpus ($ONE_FILE) gets a new last line
# (put back after the runs), so ast-edit finds one entry stale and both tools read it anew.
timed_pairs() {
  local mode=$1 flag=$2 keep=${3:-} k t st=$TMP/state-$1
  if [ -n "$keep" ]; then
    rm -rf "$st"; mkdir -p "$st"
    (cd "$CORPORA" && AST_EDIT_STATE_DIR=$st "${AE[@]}" "$flag" "$spec" > /dev/null 2>&1) || true
    [ "$keep" = one ] && cp -p "$CORPORA/$ONE_FILE" "$TMP/one.orig"
  fi
  for k in $(seq 1 "$runs"); do
    wait_quiet
    [ "$keep" = one ] && printf '\n// run %s\n' "$k" >> "$CORPORA/$ONE_FILE"
    order=(ag ae); [ $((k % 2)) -eq 0 ] && order=(ae ag)
    for t in "${order[@]}"; do
      if [ "$t" = ag ]; then
        measure "$tsv" "$corpus" ast-grep "$mode" "$k" "$CORPORA" "" /dev/null -- "${AG[@]}" --json=compact "$spec"
      else
        [ -n "$keep" ] || { rm -rf "$st"; mkdir -p "$st"; }
        measure "$tsv" "$corpus" ast-edit "$mode" "$k" "$CORPORA" "$st" /dev/null -- "${AE[@]}" "$flag" "$spec"
      fi
      log "$spec: $mode $t run $k/$runs: $LAST"
    done
  done
  [ "$keep" = one ] && cp -p "$TMP/one.orig" "$CORPORA/$ONE_FILE"
  rm -rf "$st"
}

fresh_copy() {   # TOOL SPEC: a real copy of CORPORA/SPEC at TMP/TOOL/SPEC
  rm -rf "${TMP:?}/$1"; mkdir -p "$TMP/$1/$(dirname "$2")"
  cp -a "$CORPORA/$2" "$TMP/$1/$2"
}

FAILED=0
for corpus in "${SELECTED[@]}"; do
  exts=$(awk -F'|' -v c="$corpus" '$1 == c {print $2}' <<< "$CORPUS_TABLE")
  runs=$RUNS; [ "$corpus" = c-linux ] && runs=$RUNS_C
  spec=$corpus; note=""
  if [ "$corpus" = c-linux ]; then
    if [ -n "${KERNEL_SUBDIR:-}" ]; then
      spec=c-linux/$KERNEL_SUBDIR; note="kernel subset $KERNEL_SUBDIR/ (KERNEL_SUBDIR)"
    else
      need_kb=$(( 2 * $(du -sk "$CORPORA/c-linux" | cut -f1) + 1048576 ))
      avail_kb=$(df -Pk "$CORPORA" | awk 'NR == 2 {print $4}')
      if [ "$avail_kb" -lt "$need_kb" ]; then
        spec=c-linux/drivers; note="kernel subset drivers/: $((avail_kb / 1048576)) GiB free, two whole copies need $((need_kb / 1048576)) GiB"
        log "$note"
      fi
    fi
  fi
  [ -d "$CORPORA/$spec" ] || die "no $CORPORA/$spec"
  read -r mfs mfs_note < <(python3 "$HELPER" maxfs "$CORPORA" "$corpus" $exts)
  nign=$(find "$CORPORA/$corpus" \( -name .gitignore -o -name .ignore \) -print | wc -l)
  AG=("$AST_GREP" scan -c "$PROJECT")
  AE=("$AST_EDIT" scan -c "$PROJECT" --verbatim --max-filesize "$mfs")
  AEX=(--max-filesize="$mfs")
  tsv=$RESDIR/scan-$corpus.tsv chk=$RESDIR/scan-$corpus.check meta=$RESDIR/scan-$corpus.meta
  printf 'corpus\ttool\tmode\trun\twall_s\tuser_s\tsys_s\tother_cpu_s\tpeak_rss_kb\texit\n' > "$tsv"
  {
    echo "date	$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "cpu	$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') x $NCPU (nproc)"
    echo "mem	$(awk '/MemTotal/{printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
    echo "kernel	$(uname -srm)"
    echo "ast-grep	$("$AST_GREP" --version)"
    echo "ast-edit	$("$AST_EDIT" --version 2>/dev/null | head -1) commit $AE_COMMIT"
    echo "corpus	$spec"
    echo "subset	${note:-none (the whole corpus)}"
    echo "files	$(find "$CORPORA/$spec" -type f | wc -l) files, $(du -sh "$CORPORA/$spec" | cut -f1)"
    echo "rules	$NRULES rule files in $(basename "$(dirname "$PROJECT")")/rules"
    echo "runs	$runs"
    echo "max_filesize	$mfs ($mfs_note)"
    echo "ignore_files	$nign .gitignore/.ignore files (.gitignore counts for neither tool outside a git repository)"
    echo "ag_apply	ast-grep scan -c $(realpath --relative-to="$ROOT" "$PROJECT") -U $spec"
    echo "ae_apply	ast-edit scan -c $(realpath --relative-to="$ROOT" "$PROJECT") -U --skip-flagged --preview-json ${AE[*]:4} $spec"
    echo "ag_preview	ast-grep scan -c $(realpath --relative-to="$ROOT" "$PROJECT") --json=compact $spec"
    echo "ae_preview	ast-edit scan -c $(realpath --relative-to="$ROOT" "$PROJECT") --preview-json ${AE[*]:4} $spec"
    echo "ae_report	ast-edit scan -c $(realpath --relative-to="$ROOT" "$PROJECT") --json=compact ${AE[*]:4} $spec"
  } > "$meta"
  log "== $spec: $runs runs per tool and mode${note:+ ($note)}"

  # ---------------------------------------------------------- preview
  wait_quiet
  st=$TMP/state; rm -rf "$st"; mkdir -p "$st"
  (cd "$CORPORA" && "${AG[@]}" --json=compact "$spec" > "$TMP/ag.json" 2>"$TMP/ag.err") || true
  (cd "$CORPORA" && AST_EDIT_STATE_DIR=$st "${AE[@]}" --preview-json "$spec" > "$TMP/ae.json" 2>"$TMP/ae.err") \
    || log "ast-edit preview failed: $(head -c 600 "$TMP/ae.err")"
  python3 - "$TMP/ag.json" "$TMP/ae.json" >> "$meta" <<'PY'
import collections, json, sys
ag, ae = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
fix = [m for m in ag if "replacement" in m]
per = collections.Counter(m["ruleId"] for m in fix)
left = sum(1 for w in ae["warnings"] if ": a match contains code that does not parse" in w)
more = sum(int(w.split()[2]) for w in ae["warnings"] if w.startswith("... and ") and "more matches left alone" in w)
print(f"ag_preview_json\t{len(fix)} matches with a fix in {len({m['file'] for m in fix})} files; per rule: "
      + ", ".join(f"{r} {n}" for r, n in sorted(per.items())))
print(f"ae_preview_json\t{ae['totalReplacements']} replacements in {ae['filesTouched']} files, {ae['overlaps']} nested matches "
      f"(overlaps), {left + more} left alone around ERROR nodes, {ae['filesSearched']} files searched, "
      f"{len(ae['skipped'])} skipped" + "".join(f"; skipped {s['path']}: {s['reason']}" for s in ae["skipped"]))
import os
print(f"json_bytes\tast-grep {os.path.getsize(sys.argv[1])}\tast-edit {os.path.getsize(sys.argv[2])}")
PY
  if [ "$PREVIEW" = 1 ]; then timed_pairs preview --preview-json; fi
  rm -rf "$st"

  # ---------------------------------------------------------- report
  if [ "$REPORTS" = 1 ]; then
    (cd "$CORPORA" && AST_EDIT_STATE_DIR=$TMP/state-report "${AE[@]}" --json=compact "$spec" > "$TMP/ae-report.json" 2>"$TMP/ae.err") || true
    python3 - "$TMP/ag.json" "$TMP/ae-report.json" >> "$meta" <<'PY'
import json, sys
ag, ae = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
key = lambda m: (m["file"], m["ruleId"], m["range"]["byteOffset"]["start"], m["range"]["byteOffset"]["end"])
same = sorted(map(key, ag)) == sorted(map(key, ae))
print(f"report_records\tast-grep {len(ag)}, ast-edit {len(ae)} records; the same (file, rule, range) set: {'yes' if same else 'NO'}")
PY
    timed_pairs report --json=compact
    # The scan cache: a cold and a warm report are the report without the cache,
    # byte for byte; then the warm case and the one-file-changed case, timed.
    st=$TMP/state-check; rm -rf "$st"; mkdir -p "$st"
    for r in cold warm; do
      (cd "$CORPORA" && AST_EDIT_STATE_DIR=$st "${AE[@]}" --json=compact "$spec" > "$TMP/ae-$r.json" 2>/dev/null) || true
    done
    (cd "$CORPORA" && AST_EDIT_STATE_DIR=$st "${AE[@]}" --json=compact --no-cache "$spec" > "$TMP/ae-nocache.json" 2>/dev/null) || true
    rm -rf "$st"
    if cmp -s "$TMP/ae-cold.json" "$TMP/ae-nocache.json" && cmp -s "$TMP/ae-warm.json" "$TMP/ae-nocache.json"; then
      echo "cache_check	the cold and the warm report equal the report without the cache byte for byte" >> "$meta"
    else
      echo "cache_check	a report with the cache DIFFERS from the report without it" >> "$meta"
      log "$spec: a report with the cache differs from the report without it"; FAILED=1
    fi
    ONE_FILE=$(cd "$CORPORA" && python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r[0]["file"] if r else "")' "$TMP/ae-nocache.json")
    timed_pairs report-warm --json=compact warm
    if [ -n "$ONE_FILE" ]; then timed_pairs report-one --json=compact one; fi
  fi

  # ---------------------------------------------------------- apply
  for k in $(seq 1 "$runs"); do
    fresh_copy ag "$spec"; fresh_copy ae "$spec"; sync
    st=$TMP/state-apply; rm -rf "$st"; mkdir -p "$st"
    wait_quiet
    order=(ag ae); [ $((k % 2)) -eq 0 ] && order=(ae ag)
    for t in "${order[@]}"; do
      if [ "$t" = ag ]; then
        measure "$tsv" "$corpus" ast-grep apply "$k" "$TMP/ag" "" "$TMP/ag-apply.out" -- "${AG[@]}" -U "$spec"
      else
        measure "$tsv" "$corpus" ast-edit apply "$k" "$TMP/ae" "$st" "$TMP/ae-apply.json" -- "${AE[@]}" -U --skip-flagged --preview-json "$spec"
      fi
      log "$spec: apply $t -U run $k/$runs: $LAST"
    done
    rm -rf "$st"
  done
  log "$spec: comparing the trees of the last run file by file"
  ok=0
  summary=$(python3 "$HELPER" check --orig "$CORPORA" --ag "$TMP/ag" --ae "$TMP/ae" --corpus "$spec" \
    --ae-json "$TMP/ae-apply.json" --config "$PROJECT" --ast-grep "$AST_GREP" --ast-edit "$AST_EDIT" \
    "${AEX[@]/#/--ae-arg=}" --out "$chk") || ok=1
  echo "ag_apply_out	ast-grep -U said: $(cat "$TMP/ag-apply.out" "$TMP/ast-grep.apply.stderr" | tr '\n' ' ' | tail -c 200)" >> "$meta"
  # The scan cache in -U: the last run's tree (its cache cold) against -U in a
  # fresh copy whose cache a preview of the original filled (every file a hit).
  rm -rf "${TMP:?}/ag"; fresh_copy ae-warm "$spec"
  st=$TMP/state-warm; rm -rf "$st"; mkdir -p "$st"
  (cd "$CORPORA" && AST_EDIT_STATE_DIR=$st "${AE[@]}" --preview-json "$spec" > /dev/null 2>&1) || true
  (cd "$TMP/ae-warm" && AST_EDIT_STATE_DIR=$st "${AE[@]}" -U --skip-flagged --preview-json "$spec" > /dev/null 2>&1) || true
  if diff -rq "$TMP/ae/$spec" "$TMP/ae-warm/$spec" > "$TMP/warm.diff"; then
    echo "cache_apply_check	-U with the cache warm wrote the tree -U with it cold wrote, byte for byte" >> "$meta"
  else
    echo "cache_apply_check	-U with the cache warm wrote ANOTHER tree than with it cold: $(head -c 300 "$TMP/warm.diff")" >> "$meta"
    log "$spec: -U with the cache warm wrote another tree"; FAILED=1
  fi
  rm -rf "$st" "${TMP:?}/ae-warm"
  log "$spec: $summary"
  if [ "$ok" = 1 ]; then
    FAILED=1
    log "$spec: UNEXPLAINED differences (or ast-edit wrote nothing); see $chk:"
    grep -m 5 -A 12 '^UNEXPLAINED\|^ast-edit -U wrote nothing' "$chk" >&2 || true
  fi
  [ "${KEEP_TMP:-0}" = 1 ] || rm -rf "${TMP:?}/ag" "${TMP:?}/ae"
done

python3 "$HELPER" report "$RESDIR" "$REPORT"
log "wrote the section of $REPORT"
if [ "${RELATIONAL:-1}" = 1 ] && printf '%s\n' "${SELECTED[@]}" | grep -qx c-linux; then
  log "heavy relational rules on the kernel: benches/scan_relational.sh"
  AST_EDIT=$AST_EDIT AST_GREP=$AST_GREP "$HERE/scan_relational.sh" "$CORPORA" || FAILED=1
fi
[ "$FAILED" = 0 ] || { log "the trees differ beyond the documented differences: see benches/results/scan-*.check"; exit 1; }
