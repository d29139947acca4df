# Shell functions shared by the timing scripts (benches/compare.sh,
# benches/scan_compare.sh), sourced after they set LOG_TAG, QUIET_PCT and QUIET_MAX.

HZ=$(getconf CLK_TCK); NCPU=$(nproc)

log() { printf '[%s] %s\n' "$LOG_TAG" "$*" >&2; }
die() { log "ERROR: $*"; exit 2; }
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
