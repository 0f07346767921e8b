#!/bin/sh
# SPDX-License-Identifier: MIT
# usage: check-install.sh BUILD_DIR SOURCE_DIR CC [EXTRA_CFLAGS [CXX]]
# make install-only / make uninstall from BUILD_DIR into scratch prefixes:
# the prefix of each call is honoured, mcpc is installed, programs built
# with pkg-config and with find_package(libmcp) run without
# LD_LIBRARY_PATH (C, and C++ through libmcpxx.pc and libmcp::mcpxx), and
# make uninstall removes every installed file.
set -eu
build=$1; src=$2; cc=$3; extra=${4:-}; cxx=${5:-c++}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset LD_LIBRARY_PATH
mk() { make -s --no-print-directory -C "$src" BUILD="$build" "$@"; }
first=$tmp/first
prefix=$tmp/opt/libmcp
fail() { echo "install: $*"; exit 1; }

# 1. two installs from the same build dir, each into its own PREFIX
mk install-only PREFIX="$first" >/dev/null
mk install-only PREFIX="$prefix" >/dev/null
test -f "$first/include/mcp/mcp.h" || fail "first PREFIX not used"
test -f "$prefix/include/mcp/mcp.h" || fail "second PREFIX not used (cached prefix?)"
libdir=$(ls -d "$prefix"/lib*/ | head -1)
libdir=${libdir%/}
test -f "$libdir/pkgconfig/libmcp.pc"
test -f "$libdir/pkgconfig/libmcp-client.pc"
test -f "$libdir/pkgconfig/libmcpxx.pc"
test -f "$prefix/include/mcp/mcp.hpp" || fail "mcp.hpp not installed"
test -f "$libdir/cmake/libmcp/libmcpConfig.cmake"
ls "$libdir"/libmcp.so* "$libdir"/libmcp.a "$libdir"/libmcp-client.so* >/dev/null
# a server built on libmcp does not pull in the client's libcurl
if readelf -d "$libdir/libmcp.so" | grep -q libcurl; then
  fail "libmcp.so must not depend on libcurl"
fi
# libmcp-client.so finds libmcp.so.0 next to it
readelf -d "$libdir/libmcp-client.so" | grep -q 'R.*PATH.*\[\$ORIGIN\]' ||
  fail "libmcp-client.so lacks RUNPATH \$ORIGIN"

# 2. mcpc installed, with a RUNPATH relative to itself
test -x "$prefix/bin/mcpc" || fail "mcpc not installed"
readelf -d "$prefix/bin/mcpc" | grep -q 'R.*PATH.*\$ORIGIN/\.\./lib' ||
  fail "mcpc lacks RUNPATH \$ORIGIN/../lib"
"$prefix/bin/mcpc" --help >/dev/null || fail "installed mcpc --help failed"

# 3. pkg-config consumers, no -rpath of our own and no LD_LIBRARY_PATH
export PKG_CONFIG_PATH="$libdir/pkgconfig"
libs=$(pkg-config --libs libmcp)
case "$libs" in *"-Wl,-rpath,$libdir"*) ;; *) fail "pkg-config --libs lacks -Wl,-rpath,$libdir: $libs";; esac
# shellcheck disable=SC2046,SC2086
"$cc" -std=c17 -Wall -Werror $extra $(pkg-config --cflags libmcp) \
  "$src/examples/hello/hello.c" $libs -o "$tmp/hello-pc"
"$tmp/hello-pc" --version | grep -q '^hello 1.0.0 (libmcp ' || fail "hello-pc --version"
reply=$(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"ping"}' | "$tmp/hello-pc")
case "$reply" in *'"result":{}'*) ;; *) fail "pkg-config build: bad reply: $reply";; esac
# the installed mcpc drives the installed-library hello
out=$("$prefix/bin/mcpc" -c "$tmp/hello-pc" tools call greet --args '{"name":"install"}')
case "$out" in *'Hello, install!'*) ;; *) fail "mcpc -> hello-pc: $out";; esac
cat >"$tmp/client.c" <<'C'
#include <stdio.h>
#include <mcp/client.h>
#include <mcp/version.h>
int main(void) {
  mcp_client_options_t *o = NULL;
  if (mcp_client_options_new(&o) != MCP_OK)
    return 1;
  mcp_client_options_free(o);
  printf("client %s\n", mcp_version_string());
  return 0;
}
C
# shellcheck disable=SC2046,SC2086
"$cc" -std=c17 -Wall -Werror $extra $(pkg-config --cflags libmcp-client) \
  "$tmp/client.c" $(pkg-config --libs libmcp-client) -o "$tmp/client-pc"
"$tmp/client-pc" | grep -q '^client ' || fail "libmcp-client consumer did not run"

# the C++ layer: examples/cpp/shop.cpp with pkg-config libmcpxx
# shellcheck disable=SC2046,SC2086
"$cxx" -std=c++17 -Wall -Wextra -pedantic -Werror $extra $(pkg-config --cflags libmcpxx) \
  "$src/examples/cpp/shop.cpp" $(pkg-config --libs libmcpxx) -o "$tmp/shop-pc"
out=$("$prefix/bin/mcpc" -c "$tmp/shop-pc" resources read shop://terms)
case "$out" in *'returns within 30 days'*) ;; *) fail "mcpc -> shop-pc: $out";; esac

# 4. CMake consumer: find_package with CMAKE_PREFIX_PATH, no rpath options
mkdir -p "$tmp/consumer"
cp "$src/examples/hello/hello.c" "$tmp/consumer/"
cat > "$tmp/consumer/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(consumer C)
find_package(libmcp REQUIRED)
add_executable(hello hello.c)
target_link_libraries(hello PRIVATE libmcp::mcp)
CM
cmake -S "$tmp/consumer" -B "$tmp/consumer/build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$extra" \
  -DCMAKE_EXE_LINKER_FLAGS="$extra" >/dev/null
cmake --build "$tmp/consumer/build" >/dev/null
reply=$(printf '%s\n' '{"jsonrpc":"2.0","id":"x","method":"ping"}' | "$tmp/consumer/build/hello")
case "$reply" in *'"result":{}'*) ;; *) fail "CMake build: bad reply: $reply";; esac
# and a C++ one: libmcp::mcpxx brings C++17 and the library
mkdir -p "$tmp/cxxconsumer"
cp "$src/examples/cpp/shop.cpp" "$tmp/cxxconsumer/"
cat > "$tmp/cxxconsumer/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(cxxconsumer CXX)
find_package(libmcp REQUIRED)
add_executable(shop shop.cpp)
target_link_libraries(shop PRIVATE libmcp::mcpxx)
CM
cmake -S "$tmp/cxxconsumer" -B "$tmp/cxxconsumer/build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_FLAGS="$extra -Wall -Wextra -pedantic -Werror" \
  -DCMAKE_EXE_LINKER_FLAGS="$extra" >/dev/null
cmake --build "$tmp/cxxconsumer/build" >/dev/null
out=$("$prefix/bin/mcpc" -c "$tmp/cxxconsumer/build/shop" prompts get order_help item=mug)
case "$out" in *'Help me order mug'*) ;; *) fail "CMake C++ build: $out";; esac

# 5. make uninstall removes what the last install put down
mk uninstall >/dev/null
left=$(find "$prefix" -type f -o -type l)
[ -z "$left" ] || fail "make uninstall left: $left"
test ! -d "$prefix/include/mcp" || fail "make uninstall left include/mcp"
test -f "$first/include/mcp/mcp.h" || fail "make uninstall touched the other prefix"
echo "install: PREFIX honoured twice; pkg-config (server, client, C++), find_package (C, C++) and mcpc ran without LD_LIBRARY_PATH; uninstall removed every file"
