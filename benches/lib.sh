# Shell functions shared by the timing scripts (benches/compare.sh,
# benches/scan_compare.sh, benches/scan_relational.sh, benches/deep_search.sh,
# benches/deep_rewrite.sh), sourced after they set LOG_TAG, QUIET_PCT and QUIET_MAX.

HZ=$(getconf CLK_TCK); NCPU=$(nproc)

log() { printf '[%s] %s\n' "$LOG_TAG" "$*" >&2; }
die() { log "ERROR: $*"; exit 2; }

# Wall seconds of a command (its output dropped, its failure ignored), and the
# median and the least of a list of numbers on stdin.
secs() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N); echo "$e - $s" | bc; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
minimum() { sort -g | head -1; }
busy() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9}' /proc/stat; }   # user nice system irq softirq steal

# Wait (at most QUIET_MAX seconds) until the machine's CPU use is below QUIET_PCT %
# for 2 s: it is shared, and a timed run should not measure other processes.
wait_quiet() {
  local waited=0 b0 b1 pct
  while :; do
    b0=$(busy); sleep 2; b1=$(busy)
    pct=$(( (b1 - b0) * 100 / (2 * HZ * NCPU) ))
    [ "$pct" -lt "$QUIET_PCT" ] && return 0
    if [ "$waited" -ge "$QUIET_MAX" ]; then log "machine still ${pct}% busy after ${waited}s; measuring anyway"; return 0; fi
    [ "$waited" -eq 0 ] && log "machine ${pct}% busy (other processes); waiting for quiet"
    sleep 3; waited=$((waited + 5))
  done
}

# GNU time (installed when missing), AST_GREP (ast-grep $AG_VERSION: from PATH, the
# pyenv shim resolved, installed with pip when missing) and AST_EDIT (when unset,
# built with `cargo build --release` in ROOT); dies when one is not right.
find_tools() {
  [ -x /usr/bin/time ] || { log "installing GNU time"; apt-get install -y -qq time >/dev/null; }
  if [ -z "${AST_GREP:-}" ]; then
    command -v ast-grep >/dev/null 2>&1 || python3 -m pip install --quiet --disable-pip-version-check "ast-grep-cli==$AG_VERSION"
    AST_GREP=$(command -v ast-grep)
    if command -v pyenv >/dev/null 2>&1 && pyenv which ast-grep >/dev/null 2>&1; then AST_GREP=$(pyenv which ast-grep); fi
  fi
  [ "$("$AST_GREP" --version)" = "ast-grep $AG_VERSION" ] || die "need ast-grep $AG_VERSION, got $("$AST_GREP" --version)"
  if [ -z "${AST_EDIT:-}" ]; then
    log "cargo build --release (in $ROOT)"
    (cd "$ROOT" && cargo build --release --locked --quiet --bin ast-edit) >&2
    AST_EDIT=${CARGO_TARGET_DIR:-$ROOT/target}/release/ast-edit
  fi
  [ -x "$AST_EDIT" ] || die "no ast-edit binary at $AST_EDIT"
}
