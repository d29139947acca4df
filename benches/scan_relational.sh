#!/usr/bin/env bash
# Heavy relational rules: `ast-edit scan --json=compact` against `ast-grep scan
# --json=compact` 0.51.1, both reports (every match, nothing written), with the rule
# project benches/scan-relational (C rules whose `inside`/`has` run with `stopBy:
# end`, one comparing a metavariable across them) on the kernel corpus of
# benches/corpora.sh, in the same run; then a check that both report the same
# matches (rule, file, byte range).
#
# Usage:  benches/scan_relational.sh [CORPORA_DIR]
# Env:
#   RUNS (3)        timed runs per tool, the order alternating
#   KERNEL_SUBDIR   run on this folder of the kernel only (e.g. drivers); default all
#   AST_EDIT        ast-edit binary (default: `cargo build --release` here)
#   AST_GREP        ast-grep binary (default: from PATH, pyenv shim resolved)
#   QUIET_PCT (10), QUIET_MAX (300)  wait for a quiet machine before each run
#
# ast-edit chooses ast-grep's files by default; it runs with --max-filesize just below
# the smallest file ast-grep skips (as scan_compare.sh), so both read the same files, and
# with --no-cache, so every run parses (scan_compare.sh times the cache).
#
# Output: benches/results/relational.{tsv,meta}; the section "## Relational rules"
# of benches/RESULTS.md (between its markers) is rewritten.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
CORPORA=${1:-${CORPORA:-$HOME/ast-edit-corpora}}
RUNS=${RUNS:-3}
QUIET_PCT=${QUIET_PCT:-10}; QUIET_MAX=${QUIET_MAX:-300}
PROJECT=$HERE/scan-relational/sgconfig.yml
RESDIR=${RESULTS_DIR:-$HERE/results}
REPORT=${REPORT:-$HERE/RESULTS.md}
AG_VERSION=0.51.1
LOG_TAG=scan_relational
# shellcheck source=benches/lib.sh
. "$HERE/lib.sh"

[ -f "$CORPORA/.stamps/c-linux.done" ] && [ -d "$CORPORA/c-linux" ] || "$HERE/corpora.sh" "$CORPORA" c-linux
CORPORA=$(cd "$CORPORA" && pwd)
find_tools
AST_EDIT=$(cd "$(dirname "$AST_EDIT")" && pwd)/$(basename "$AST_EDIT")
AE_COMMIT=$(cd "$ROOT" && git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)

spec=c-linux${KERNEL_SUBDIR:+/$KERNEL_SUBDIR}
[ -d "$CORPORA/$spec" ] || die "no $CORPORA/$spec"
read -r mfs mfs_note < <(python3 "$HERE/scan_compare.py" maxfs "$CORPORA" c-linux c h rs)
AG=("$AST_GREP" scan -c "$PROJECT" --json=compact "$spec")
AE=("$AST_EDIT" scan -c "$PROJECT" --json=compact --no-cache --max-filesize "$mfs" "$spec")
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
mkdir -p "$RESDIR"
tsv=$RESDIR/relational.tsv meta=$RESDIR/relational.meta
printf 'tool\trun\twall_s\tuser_s\tsys_s\tother_cpu_s\tpeak_rss_kb\texit\n' > "$tsv"
{
  echo "date	$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "cpu	$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') x $NCPU (nproc)"
  echo "ast-grep	$("$AST_GREP" --version)"
  echo "ast-edit	commit $AE_COMMIT"
  echo "corpus	$spec: $(find "$CORPORA/$spec" -type f | wc -l) files, $(du -sh "$CORPORA/$spec" | cut -f1)"
  echo "runs	$RUNS"
  echo "ag	ast-grep scan -c benches/scan-relational/sgconfig.yml --json=compact $spec"
  echo "ae	ast-edit scan -c benches/scan-relational/sgconfig.yml --json=compact --no-cache --max-filesize $mfs $spec"
  echo "max_filesize	$mfs ($mfs_note)"
} > "$meta"

# run TOOL N OUT -- CMD...: one timed run, a row of the TSV
run() {
  local tool=$1 n=$2 out=$3; shift 4
  local tf=$TMP/time rc=0 t0 t1 b0 b1 rss user sys
  wait_quiet
  b0=$(busy); t0=$(date +%s%N)
  (cd "$CORPORA" && exec /usr/bin/time -f '%M %U %S' -o "$tf" "$@" >"$out" 2>"$TMP/$tool.err") || rc=$?
  t1=$(date +%s%N); b1=$(busy)
  read -r rss user sys < <(tail -n 1 "$tf")
  awk -v tool="$tool" -v n="$n" -v t0="$t0" -v t1="$t1" -v b0="$b0" -v b1="$b1" -v hz="$HZ" -v u="$user" -v s="$sys" -v rss="$rss" -v rc="$rc" \
    'BEGIN { w = (t1 - t0) / 1e9; o = (b1 - b0) / hz - u - s; if (o < 0) o = 0; printf "%s\t%s\t%.3f\t%.2f\t%.2f\t%.2f\t%s\t%s\n", tool, n, w, u, s, o, rss, rc }' >> "$tsv"
  log "  $tool run $n: $(tail -n 1 "$tsv" | cut -f3)s wall, exit $rc"
  # 1 is an error-severity match; anything else is a failed run.
  [ "$rc" -le 1 ] || die "$tool exited $rc: $(head -c 600 "$TMP/$tool.err")"
}

log "== $spec, $RUNS runs per tool"
for n in $(seq 1 "$RUNS"); do
  if [ $((n % 2)) -eq 1 ]; then
    run ast-grep "$n" "$TMP/ag.json" -- "${AG[@]}"; run ast-edit "$n" "$TMP/ae.json" -- "${AE[@]}"
  else
    run ast-edit "$n" "$TMP/ae.json" -- "${AE[@]}"; run ast-grep "$n" "$TMP/ag.json" -- "${AG[@]}"
  fi
done

python3 - "$TMP/ag.json" "$TMP/ae.json" "$tsv" "$meta" "$REPORT" <<'PY'
import json, statistics, sys
from collections import Counter
ag_f, ae_f, tsv, meta, report = sys.argv[1:]
key = lambda r: (r["ruleId"], r["file"], r["range"]["byteOffset"]["start"], r["range"]["byteOffset"]["end"])
ag = sorted(map(key, json.load(open(ag_f))))
ae = sorted(map(key, json.load(open(ae_f))))
same = ag == ae
rows = [l.rstrip("\n").split("\t") for l in open(tsv)][1:]
def med(tool, col):
    return statistics.median(float(r[col]) for r in rows if r[0] == tool)
m = dict(l.rstrip("\n").split("\t", 1) for l in open(meta))
per_rule = Counter(k[0] for k in ag)
lines = [
    "<!-- scan_relational.sh: generated from benches/results/relational.{tsv,meta}; rewritten by each run -->",
    "## Relational rules",
    "",
    f"`benches/scan_relational.sh` on {m['corpus']} ({m['date']}, {m['cpu']}; ast-edit {m['ast-edit']}, {m['ast-grep']}), "
    f"{m['runs']} runs per tool, alternating, medians. Both print reports (`--json=compact`): every match of the rules of "
    "benches/scan-relational (`inside`/`has` with `stopBy: end`, `lock-without-unlock` comparing `$L` across them).",
    "",
    "| tool | wall s | user s | sys s | peak RSS MB | ratio (wall, ast-edit / ast-grep) |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
]
for tool in ("ast-grep", "ast-edit"):
    ratio = med("ast-edit", 2) / med("ast-grep", 2)
    lines.append(f"| {tool} | {med(tool, 2):.2f} | {med(tool, 3):.2f} | {med(tool, 4):.2f} | {med(tool, 6) / 1024:.0f} | {'%.2f' % ratio if tool == 'ast-edit' else ''} |")
lines += [
    "",
    f"Matches: ast-grep {len(ag)}, ast-edit {len(ae)}, "
    + ("the same set (rule, file, byte range)" if same else "**NOT the same set**")
    + "; per rule: " + ", ".join(f"{k} {v}" for k, v in sorted(per_rule.items())) + ".",
    "<!-- end of the scan_relational.sh figures -->",
]
section = "\n".join(lines) + "\n"
text = open(report).read()
start, end = lines[0], lines[-1]
if start in text:
    a = text.index(start); b = text.index(end, a) + len(end) + 1
    text = text[:a] + section + text[b:]
else:
    text = text.rstrip("\n") + "\n\n" + section
open(report, "w").write(text)
print(section)
sys.exit(0 if same else 1)
PY
