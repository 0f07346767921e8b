#!/bin/sh
# SPDX-License-Identifier: MIT
# usage: check-install.sh BUILD_DIR SOURCE_DIR CC [EXTRA_CFLAGS]
set -eu
build=$1; src=$2; cc=$3; extra=${4:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
libdir=$(ls -d "$tmp"/prefix/lib*/ | head -1)
test -f "$tmp/prefix/include/mcp/mcp.h"
test -f "$libdir/pkgconfig/libmcp.pc"
test -f "$libdir/pkgconfig/libmcp-client.pc"
ls "$libdir"/libmcp-client.so* >/dev/null
# a server built on libmcp does not pull in the client's libcurl
if readelf -d "$libdir/libmcp.so" | grep -q libcurl; then
  echo "libmcp.so must not depend on libcurl"; exit 1
fi
PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --exists libmcp-client
test -f "$libdir/cmake/libmcp/libmcpConfig.cmake"
ls "$libdir"/libmcp.so* >/dev/null
ls "$libdir"/libmcp.a >/dev/null

# 1. pkg-config consumer, linked against the shared library
PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --exists libmcp
cflags=$(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags libmcp)
libs=$(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --libs libmcp)
# shellcheck disable=SC2086
"$cc" -std=c17 -Wall -Werror $extra $cflags "$src/examples/hello/hello.c" $libs \
  -Wl,-rpath,"$libdir" -o "$tmp/hello-pc"
reply=$(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"ping"}' | "$tmp/hello-pc")
case "$reply" in *'"result":{}'*) ;; *) echo "pkg-config build: bad reply: $reply"; exit 1;; esac

# 2. CMake consumer
mkdir -p "$tmp/consumer"
cp "$src/examples/hello/hello.c" "$tmp/consumer/"
cat > "$tmp/consumer/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(consumer C)
find_package(libmcp REQUIRED)
add_executable(hello hello.c)
target_link_libraries(hello PRIVATE libmcp::mcp)
CM
cmake -S "$tmp/consumer" -B "$tmp/consumer/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_RPATH="$libdir" \
  -DCMAKE_C_FLAGS="$extra" -DCMAKE_EXE_LINKER_FLAGS="$extra" >/dev/null
cmake --build "$tmp/consumer/build" >/dev/null
reply=$(printf '%s\n' '{"jsonrpc":"2.0","id":"x","method":"ping"}' | "$tmp/consumer/build/hello")
case "$reply" in *'"result":{}'*) ;; *) echo "CMake build: bad reply: $reply"; exit 1;; esac
echo "install: pkg-config and find_package consumers built and answered ping"
