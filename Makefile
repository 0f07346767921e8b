# SPDX-License-Identifier: MIT
# libmcp top-level Makefile: a thin wrapper around CMake.
#   make demo    install missing Debian packages, build, run the demo server
#   make check   install missing packages, build with ASan+UBSan, run every
#                test; then build with ThreadSanitizer and run them again
#   make         build (release) into build/
#   make install install library, headers, pkg-config and CMake package
#   make bench   build and run the benchmarks (on demand, not part of check)
#   make abi-dump  rewrite abi/*.abi from the release build (docs/abi.md)
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BUILD ?= build
CHECK_BUILD ?= build/check
TSAN_BUILD ?= build/tsan
PREFIX ?= /usr/local
DEMO_ARGS ?= --http 127.0.0.1:8808

.PHONY: all deps configure build demo check install bench format clean abi-dump

all: build

deps:
	@scripts/install-deps

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=$(PREFIX)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	@$(BUILD)/bin/mcp-demo-server --banner $(DEMO_ARGS)

check: deps
	cmake -S . -B $(CHECK_BUILD) -DCMAKE_BUILD_TYPE=Debug -DMCP_SANITIZE=ON -DMCP_WERROR=ON
	cmake --build $(CHECK_BUILD) -j $(JOBS)
	cd $(CHECK_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS) --timeout 600
	cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DMCP_TSAN=ON -DMCP_WERROR=ON
	cmake --build $(TSAN_BUILD) -j $(JOBS)
	@# install_consumers builds programs against the installed library
	@# without -fsanitize=thread, which cannot link; the ASan pass covers it.
	cd $(TSAN_BUILD) && TSAN_OPTIONS=halt_on_error=1:exitcode=66 \
	  ctest --output-on-failure -j $(JOBS) --timeout 600 -E '^install_consumers$$'

install: build
	cmake --install $(BUILD)

# The ABI of the release, kept in abi/ and compared by the abi_check test.
# Run when a release adds to the ABI (docs/abi.md).
abi-dump: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target mcp_shared mcp_client_shared
	scripts/abi dump $(BUILD)/lib

bench:
	@scripts/install-deps --bench
	bench/run-all

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD)
