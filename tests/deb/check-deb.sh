#!/bin/sh
# SPDX-License-Identifier: MIT
# usage: check-deb.sh SOURCE_DIR OUT_DIR
# Builds the packages into OUT_DIR (scripts/build-deb: dpkg-buildpackage and
# lintian), checks what each package holds, unpacks them into a throw-away
# root and builds and runs examples/hello against it with pkg-config and
# with find_package(libmcp).
set -eu
src=$1; out=$2
fail() { echo "deb: $*"; exit 1; }
"$src/scripts/build-deb" "$out" >/dev/null
cd "$out"
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
ver=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
darch=$(dpkg --print-architecture)
for p in libmcp0 libmcp-client0 libmcp-dev mcpc; do
  test -f "${p}_${ver}_${darch}.deb" || fail "no ${p}_${ver}_${darch}.deb"
done
files() { dpkg-deb -c "$1_${ver}_${darch}.deb" | awk '{print $6}' | sed 's|^\./|/|'; }
has() { files "$1" | grep -qx "$2" || fail "$1 lacks $2"; }
lacks() { ! files "$1" | grep -q "$2" || fail "$1 must not hold $2"; }
has libmcp0 "/usr/lib/$arch/libmcp.so.0"
has libmcp0 "/usr/lib/$arch/libmcp.so.$ver"
lacks libmcp0 "include"
lacks libmcp0 "libmcp-client"
has libmcp-client0 "/usr/lib/$arch/libmcp-client.so.0"
for f in include/mcp/mcp.h include/mcp/tool_decl.h "lib/$arch/libmcp.so" \
         "lib/$arch/libmcp.a" "lib/$arch/libmcp-client.so" \
         "lib/$arch/libmcp-client.a" "lib/$arch/pkgconfig/libmcp.pc" \
         "lib/$arch/pkgconfig/libmcp-client.pc" \
         "lib/$arch/cmake/libmcp/libmcpConfig.cmake"; do
  has libmcp-dev "/usr/$f"
done
lacks libmcp-dev "libmcp.so.0"
has mcpc /usr/bin/mcpc
has mcpc /usr/share/man/man1/mcpc.1.gz
has mcpc /usr/share/bash-completion/completions/mcpc
# nothing carries a RUNPATH in /usr
for p in libmcp0 libmcp-client0 mcpc; do
  rm -rf x && dpkg-deb -x "${p}_${ver}_${darch}.deb" x
  for f in $(find x -type f -name '*.so*' -o -type f -path '*/bin/*'); do
    ! readelf -d "$f" | grep -q 'R.*PATH' || fail "$f has a RUNPATH"
  done
done
dpkg-deb -f "libmcp-dev_${ver}_${darch}.deb" Depends | grep -q "libmcp0 (= $ver)" ||
  fail "libmcp-dev must depend on libmcp0 (= $ver)"
# libpq is loaded with dlopen (src/store/pq.c): libmcp.so.0 must not need it
rm -rf x && dpkg-deb -x "libmcp0_${ver}_${darch}.deb" x
! readelf -d "x/usr/lib/$arch/libmcp.so.0" | grep -q 'NEEDED.*libpq' ||
  fail "libmcp.so.0 links libpq (it must load it with dlopen)"
# every module the .pc files require (Requires, Requires.private) comes
# from a package libmcp-dev depends on (pkg-config needs their .pc files
# even without --static)
devdeps=$(dpkg-deb -f "libmcp-dev_${ver}_${darch}.deb" Depends)
rm -rf x && dpkg-deb -x "libmcp-dev_${ver}_${darch}.deb" x
for m in $(sed -n 's/^Requires\(\.private\)\{0,1\}: *//p' x/usr/lib/"$arch"/pkgconfig/*.pc |
             tr ' ,' '\n\n' | grep -v '^libmcp$' | grep '^[A-Za-z]' | sort -u); do
  pc=$(pkg-config --variable=pcfiledir "$m")/$m.pc
  pkg=$(dpkg -S "$pc" 2>/dev/null | head -1 | cut -d: -f1)
  [ -n "$pkg" ] || fail "no Debian package holds $pc (for $m)"
  echo "$devdeps" | grep -Eq "(^|[ ,|])$pkg([ ,(]|$)" ||
    fail "libmcp-dev must depend on $pkg (its .pc files require $m)"
done

# a throw-away root with the four packages
root=$out/root
rm -rf x "$root" && mkdir -p "$root"
for p in libmcp0 libmcp-client0 libmcp-dev mcpc; do
  dpkg-deb -x "${p}_${ver}_${darch}.deb" "$root"
done
libdir=$root/usr/lib/$arch
export LD_LIBRARY_PATH="$libdir" # what ldconfig would give an installed root
PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --exists libmcp libmcp-client ||
  fail "pkg-config does not find libmcp"
# shellcheck disable=SC2046
cc -std=c17 -Wall -Werror $(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags libmcp) \
  "$src/examples/hello/hello.c" \
  $(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --libs libmcp) -o hello-pc
readelf -d hello-pc | grep -q 'NEEDED.*libmcp.so.0' || fail "hello-pc not linked to libmcp.so.0"
./hello-pc --version | grep -q '^hello 1.0.0 (libmcp ' || fail "hello-pc --version"
# static: libmcp.a with what pkg-config --static says it needs
static_libs=$(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --static --libs libmcp) ||
  fail "pkg-config --static --libs libmcp fails"
# shellcheck disable=SC2046,SC2086
cc -std=c17 -Wall -Werror $(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags libmcp) \
  "$src/examples/hello/hello.c" "$libdir/libmcp.a" \
  $(echo " $static_libs " | sed 's/ -lmcp / /') -o hello-static ||
  fail "hello does not link statically with pkg-config --static --libs libmcp"
! readelf -d hello-static | grep -q 'NEEDED.*libmcp' || fail "hello-static uses libmcp.so"
./hello-static --version | grep -q '^hello 1.0.0' || fail "hello-static --version"
printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"deb"}}}' |
  ./hello-pc --stdio | grep -q 'Hello, deb!' || fail "hello-pc does not answer"
# find_package(libmcp) from the root
mkdir -p cm && cat > cm/CMakeLists.txt <<CM
cmake_minimum_required(VERSION 3.16)
project(hello_deb C)
find_package(libmcp REQUIRED)
add_executable(hello-cmake $src/examples/hello/hello.c)
target_link_libraries(hello-cmake libmcp::mcp)
CM
cmake -S cm -B cm/build -DCMAKE_PREFIX_PATH="$root/usr" >cm.log 2>&1 ||
  { cat cm.log; fail "find_package(libmcp) failed"; }
cmake --build cm/build >>cm.log 2>&1 || { cat cm.log; fail "hello-cmake build failed"; }
cm/build/hello-cmake --version | grep -q '^hello 1.0.0' || fail "hello-cmake --version"
"$root/usr/bin/mcpc" --version >/dev/null || fail "packaged mcpc --version"
rm -rf "$root" cm hello-pc hello-static
echo "deb: ok ($(ls ./*.deb | wc -l) packages, lintian clean)"
