# SPDX-License-Identifier: MIT
# libmcp top-level Makefile: a thin wrapper around CMake.
#   make demo    install missing Debian packages, build the library, the
#                demo server and mcpc (nothing else), run the demo server
#   make check   install missing packages, build with ASan+UBSan, run every
#                test; then build with ThreadSanitizer and run them again
#   make         build (release) into build/: libraries, examples, mcpc;
#                not the tests (make check builds and runs those)
#   make install install library, headers, mcpc (man page, completions),
#                pkg-config and CMake package into PREFIX (default
#                /usr/local; honoured every time)
#   make uninstall  remove what the last make install installed
#   make bench   build and run the benchmarks (on demand, not part of check)
#   make fuzz    build the libFuzzer targets (clang) and run each for
#                FUZZ_SECONDS (default 60); make check runs each for 30 s
#   make soak    mixed HTTP + stdio traffic under ASan for SOAK_SECONDS
#                (default 1800); reports RSS, fds, sessions (not in check)
#   make abi-dump  rewrite abi/*.abi from the release build (docs/abi.md)
#   make deb     Debian packages libmcp0, libmcp-client0, libmcp-dev, mcpc
#                (dpkg-buildpackage -us -uc -b, lintian) into build/deb
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BUILD ?= build
CHECK_BUILD ?= build/check
TSAN_BUILD ?= build/tsan
PREFIX ?= /usr/local
DEMO_ARGS ?= --http 127.0.0.1:8808

.PHONY: all deps configure build demo check install install-only uninstall \
        bench format clean abi-dump deb fuzz soak
FUZZ_SECONDS ?= 60
SOAK_SECONDS ?= 1800

all: build

deps:
	@scripts/install-deps

# The release tree has no tests: make check builds them in its own trees.
$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_INSTALL_PREFIX=$(PREFIX) -DMCP_BUILD_TESTS=OFF

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# Only what the demo needs (the library's objects are compiled once for
# libmcp.a and libmcp.so), and mcpc to talk to it.
demo: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target mcp-demo-server mcpc
	@$(BUILD)/bin/mcp-demo-server --banner $(DEMO_ARGS)

check: deps
	cmake -S . -B $(CHECK_BUILD) -DCMAKE_BUILD_TYPE=Debug -DMCP_SANITIZE=ON -DMCP_WERROR=ON
	cmake --build $(CHECK_BUILD) -j $(JOBS)
	cd $(CHECK_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS) --timeout 600
	@# every fuzz target for 30 s: regression corpus, then new inputs
	FUZZ_JOBS=$(JOBS) tests/fuzz/run 30
	cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DMCP_TSAN=ON -DMCP_WERROR=ON
	cmake --build $(TSAN_BUILD) -j $(JOBS)
	@# install_consumers builds programs against the installed library
	@# without -fsanitize=thread, which cannot link; the ASan pass covers it.
	@# deb_packages builds its own release tree: once (ASan pass) is enough.
	@# keycloak_interop checks the protocol with a Java server that takes
	@# minutes to start: once (ASan pass) too.
	cd $(TSAN_BUILD) && TSAN_OPTIONS=halt_on_error=1:exitcode=66:suppressions=$(CURDIR)/tests/tsan.supp \
	  ctest --output-on-failure -j $(JOBS) --timeout 600 \
	  -E '^(install_consumers|deb_packages|keycloak_interop)$$'

# --prefix: the prefix of this call, not the one cached when $(BUILD) was
# configured by an earlier make with another PREFIX.
install: build
	$(MAKE) install-only

# install what $(BUILD) holds, without building (used by tests/install)
install-only:
	cmake --install $(BUILD) --prefix $(PREFIX)

# Removes the files listed in $(BUILD)/install_manifest.txt (the last
# install from $(BUILD)), then libmcp's own now-empty directories.
uninstall:
	@test -f $(BUILD)/install_manifest.txt || \
	  { echo "uninstall: no $(BUILD)/install_manifest.txt: nothing installed from $(BUILD)"; exit 1; }
	@while IFS= read -r f || [ -n "$$f" ]; do \
	  if [ -e "$$f" ] || [ -L "$$f" ]; then echo "remove $$f"; rm -f "$$f"; fi; \
	done < $(BUILD)/install_manifest.txt
	@sed -n 's|^\(.*/include/mcp\)/.*|\1|p; s|^\(.*/cmake/libmcp\)/.*|\1|p' \
	  $(BUILD)/install_manifest.txt | sort -u | while IFS= read -r d; do \
	  rmdir "$$d" 2>/dev/null || true; done
	@rm -f $(BUILD)/install_manifest.txt

# The ABI of the release, kept in abi/ and compared by the abi_check test.
# Run when a release adds to the ABI (docs/abi.md).
abi-dump: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target mcp_shared mcp_client_shared
	scripts/abi dump $(BUILD)/lib

fuzz: deps
	FUZZ_JOBS=$(JOBS) tests/fuzz/run $(FUZZ_SECONDS)

soak: deps
	tests/soak/run $(SOAK_SECONDS)

# Packages from a copy of the tree; see debian/ and scripts/build-deb.
deb: deps
	JOBS=$(JOBS) scripts/build-deb $(BUILD)/deb

bench:
	@scripts/install-deps --bench
	bench/run-all

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD)
