#!/bin/sh
# SPDX-License-Identifier: MIT
# collector_build.sh OUT_BIN - builds the test Collector (collector/main.go:
# the OpenTelemetry Collector core's OTLP receiver and debug exporter) from
# the Go module proxy into OUT_BIN, with the versions collector/go.sum pins.
# The Go caches are the usual ones (GOMODCACHE, GOCACHE): a fresh machine
# downloads and compiles about 740 packages, minutes on 2 busy cores; later
# builds only relink. Exit 77 (skipped, with a message) when go is missing
# or the module proxy cannot be reached, and exit 1 instead when CI=true.
set -u
OUT=${1:?usage: collector_build.sh OUT_BIN}
HERE=$(cd "$(dirname "$0")" && pwd)
skip() {
  if [ "${CI:-}" = true ]; then
    echo "otel collector: $1 (required when CI=true)" >&2
    exit 1
  fi
  echo "SKIP otel collector: $1" >&2
  exit 77
}
command -v go >/dev/null 2>&1 || skip "go is not installed"
# the collector's modules need go 1.26 (collector/go.mod)
GOV=$(GOTOOLCHAIN=local go env GOVERSION 2>/dev/null | sed 's/^go//')
case $GOV in
1.2[6-9]* | 1.[3-9][0-9]* | [2-9].*) ;;
*) skip "go ${GOV:-?} is older than the 1.26 collector/go.mod needs" ;;
esac
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
START=$(date +%s)
# -mod=readonly: go.mod and go.sum are the sources' own, never rewritten
# here; -buildvcs=false: no git stamp (a clone may not let go run git)
if ! (cd "$HERE/collector" && GOFLAGS="-mod=readonly -buildvcs=false" go build -trimpath -o "$OUT" .) >"$LOG" 2>&1; then
  # the collector module itself cannot be had: the proxy is out of reach
  if ! (cd "$HERE/collector" && go mod download go.opentelemetry.io/collector/otelcol) >/dev/null 2>&1; then
    cat "$LOG" >&2
    skip "the Go module proxy cannot be reached (offline?)"
  fi
  echo "otel collector: go build failed:" >&2
  cat "$LOG" >&2
  exit 1
fi
echo "otel collector: built $OUT in $(($(date +%s) - START)) s ($(go version))"
