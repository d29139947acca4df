#!/usr/bin/env bash
# The Go corpus of the benches, next to those of benches/corpora.sh (which has no Go):
# the source of Go's standard library and tools (the `src/` tree of the Go 1.19.8
# distribution: 5,558 .go files, testdata included), from the Debian package
# golang-1.19-src at a pinned version, unpacked into TARGET/go/go-1.19.8/.
#
# Usage:  benches/corpora_go.sh TARGET_DIR      (the same TARGET_DIR as corpora.sh)
#
# Idempotent like corpora.sh: skipped when TARGET/.stamps/go.done and TARGET/go exist
# (delete either to rebuild); the .deb is cached in TARGET/.cache/deb/.
# Needs: apt-get, dpkg-deb. Disk: about 120 MB.
#
# Env override (only if the pinned version disappears from the Debian archive):
#   GO_SRC_VERSION  Debian version of golang-1.19-src (default below)
set -euo pipefail

TARGET=${1:?usage: corpora_go.sh TARGET_DIR}
GO_PKG=golang-1.19-src
GO_SRC_VERSION=${GO_SRC_VERSION:-1.19.8-2}
DIR=go-1.19.8

mkdir -p "$TARGET"
TARGET=$(cd "$TARGET" && pwd)
CACHE=$TARGET/.cache/deb
STAMPS=$TARGET/.stamps
mkdir -p "$CACHE" "$STAMPS"
log() { printf '[corpora_go] %s\n' "$*" >&2; }
for t in apt-get apt-cache dpkg-deb; do
  command -v "$t" >/dev/null 2>&1 || { log "missing tool: $t"; exit 1; }
done

if [ -f "$STAMPS/go.done" ] && [ -d "$TARGET/go" ]; then
  log "go: present, skipping"
  exit 0
fi

# `apt-cache show PKG=VERSION` exits 0 with no output for a version it does not
# know, so the check looks for the record itself (read whole: `grep -q` would stop
# early and fail the pipe under pipefail).
offered() { apt-cache show "$GO_PKG=$GO_SRC_VERSION" 2>/dev/null | grep -c '^Package:' >/dev/null; }
deb=$CACHE/${GO_PKG}_${GO_SRC_VERSION}_all.deb
if [ ! -s "$deb" ]; then
  if ! offered; then
    log "apt-get update (version $GO_SRC_VERSION not in the local package lists)"
    apt-get update -qq || true
  fi
  if ! offered; then
    log "$GO_PKG=$GO_SRC_VERSION is not available. Versions offered:"
    apt-cache madison "$GO_PKG" >&2 || true
    log "re-run with GO_SRC_VERSION=<one of them> and record it with the results"
    exit 1
  fi
  log "apt-get download $GO_PKG=$GO_SRC_VERSION (~18 MB)"
  (cd "$CACHE" && apt-get download -qq "$GO_PKG=$GO_SRC_VERSION")
  got=$(ls "$CACHE"/${GO_PKG}_*"${GO_SRC_VERSION#*:}"_all.deb | head -1)
  [ "$got" = "$deb" ] || mv "$got" "$deb"
fi

out=$TARGET/go
rm -rf "$out.partial" && mkdir -p "$out.partial"
dpkg-deb -x "$deb" "$out.partial/deb"
mv "$out.partial/deb/usr/share/go-1.19/src" "$out.partial/$DIR"
rm -rf "$out.partial/deb"
rm -rf "$out" && mv "$out.partial" "$out"
printf '%s\n' "$GO_PKG=$GO_SRC_VERSION" > "$STAMPS/go.done"
log "go: $(find "$out" -name '*.go' | wc -l) .go files in $out/$DIR"
