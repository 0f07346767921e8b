#!/bin/sh
# SPDX-License-Identifier: MIT
# usage: check-dockerfile.sh SOURCE_DIR DOCKERFILE DEMO_BINARY
# examples/deploy/Dockerfile: built with docker when a daemon answers
# (docker info); checked statically either way: every COPY source is in the
# tree, the scripts it runs exist, the binary it copies and starts is the
# demo target, the options of its ENTRYPOINT/CMD are in the demo's --help,
# the MCP_* variables it sets are read by the demo, STOPSIGNAL SIGTERM, the
# Debian 12 base. Exit 77 only when nothing could be checked.
set -u
src=$1
df=$2
demo=$3
checked=0
fail() { echo "deploy_dockerfile: $*"; exit 1; }
[ -r "$df" ] || { echo "deploy_dockerfile: SKIP: no $df"; exit 77; }

# instructions with their continuation lines joined
flat=$(sed -e ':a' -e '/\\$/N; s/\\\n/ /; ta' "$df" | grep -v '^[[:space:]]*#')

# the base image of every stage
echo "$flat" | grep '^FROM ' | while read -r _ image _; do
  [ "$image" = "debian:bookworm-slim" ] || fail "FROM $image, not debian:bookworm-slim"
done || exit 1
checked=$((checked + 1))

# COPY sources from the build context exist in the tree
echo "$flat" | grep '^COPY ' | grep -v -- '--from=' | while read -r _ rest; do
  set -f
  # shellcheck disable=SC2086
  set -- $rest
  set +f
  while [ $# -gt 1 ]; do
    [ -e "$src/$1" ] || fail "COPY source $1 is not in the tree"
    shift
  done
done || exit 1
checked=$((checked + 1))

# scripts the build runs exist and are executable
for s in $(echo "$flat" | grep '^RUN ' | grep -o 'scripts/[A-Za-z0-9_.-]*' | sort -u); do
  [ -x "$src/$s" ] || fail "RUN uses $s, not an executable in the tree"
done
checked=$((checked + 1))

# the binary: built as a target, copied from the build stage, started
name=$(basename "$demo")
echo "$flat" | grep -q -- "--target $name\\b" || fail "the build stage does not build the target $name"
echo "$flat" | grep -q "^COPY --from=build .*/bin/$name " || fail "the run stage does not copy bin/$name"
entry=$(echo "$flat" | sed -n 's/^ENTRYPOINT \[\(.*\)\]/\1/p')
[ -n "$entry" ] || fail "no ENTRYPOINT [...]"
first=$(echo "$entry" | sed 's/^ *"\([^"]*\)".*/\1/')
[ "$(basename "$first")" = "$name" ] || fail "ENTRYPOINT starts $first, not $name"
checked=$((checked + 1))

# every option of ENTRYPOINT and CMD is one the demo knows
help=$("$demo" --help 2>&1) || fail "$demo --help failed"
cmd=$(echo "$flat" | sed -n 's/^CMD \[\(.*\)\]/\1/p')
for opt in $(echo "$entry $cmd" | grep -o '"--[a-z-]*"' | tr -d '"'); do
  echo "$help" | grep -q -- "$opt\\b" || fail "$opt is not an option of $name (--help)"
done
checked=$((checked + 1))

# the MCP_* variables set are read by the demo (as by mcp_server_run)
for v in $(echo "$flat" | grep '^ENV ' | grep -o 'MCP_[A-Z_]*=' | tr -d '=' | sort -u); do
  grep -q "getenv(\"$v\")" "$src"/examples/demo/*.c || fail "ENV $v: the demo does not read it"
done
checked=$((checked + 1))

echo "$flat" | grep -q '^STOPSIGNAL SIGTERM$' || fail "no STOPSIGNAL SIGTERM"
echo "$flat" | grep -q '^VOLUME ' || fail "no VOLUME for the SQLite store"
checked=$((checked + 1))
echo "deploy_dockerfile: $checked static checks passed"

if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
  tag=libmcp-deploy-test:$$
  docker build -q -f "$df" -t "$tag" "$src" || fail "docker build failed"
  docker image rm "$tag" >/dev/null 2>&1
  echo "deploy_dockerfile: docker build ok"
else
  echo "deploy_dockerfile: SKIP docker build: no docker daemon (docker info failed)"
fi
[ "$checked" -gt 0 ] || exit 77
exit 0
