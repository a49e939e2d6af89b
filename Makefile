# memtrack - drop-in debug memory tracker for C and C++.  `make help` lists the targets.
#
# Missing Debian packages are installed with apt-get when run as root; otherwise the
# build stops with the exact command to run (tools/deps.sh).

PREFIX ?= /usr/local
DESTDIR ?=
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec
MANDIR ?= $(PREFIX)/share/man

CC ?= cc
CXX ?= c++
OPT ?= -O2 -g
B = build
# DEBUG=1: the library's internal invariants are checked (MT_ASSERT), as in make sanitize.
DEBUG_FLAGS = $(if $(filter-out 0,$(DEBUG)),-DMT_DEBUG)

WARN = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
# The library defines malloc, free...: the compiler must not assume what they do.
# -fno-plt: the C library's malloc and free, called on every pair, are called through the
# GOT at once rather than through a PLT stub (3-4 instructions a pair by callgrind).
LIB_CFLAGS = -std=gnu11 $(OPT) $(WARN) -fPIC -fno-plt -fvisibility=hidden -pthread \
	-fno-builtin-malloc -fno-builtin-free -fno-builtin-calloc -fno-builtin-realloc \
	-Iinclude -Isrc -MMD -MP $(DEBUG_FLAGS) $(SANITIZE_FLAGS) $(EXTRA_CFLAGS)
LIB_CXXFLAGS = -std=c++17 $(OPT) -Wall -Wextra -Wshadow -fPIC -fvisibility=hidden \
	-fno-threadsafe-statics -Iinclude -Isrc -MMD -MP $(SANITIZE_FLAGS) $(EXTRA_CXXFLAGS)
LIB_LDLIBS = -ldl -pthread
# Tests and tools built against the library (they may include its internal headers).
TEST_CFLAGS = -std=gnu11 -O1 -g $(WARN) -pthread -Iinclude -Isrc $(DEBUG_FLAGS) $(SANITIZE_FLAGS)

# The library's sources live in one folder per layer (src/README.md).
LIB_SRC = $(wildcard src/*/*.c)
LIB_CXX_SRC = $(wildcard src/*/*.cpp)
LIB_C_OBJ = $(LIB_SRC:src/%.c=$(B)/obj/%.o)
LIB_CXX_OBJ = $(LIB_CXX_SRC:src/%.cpp=$(B)/obj/%.o)
LIB_OBJ = $(LIB_C_OBJ) $(LIB_CXX_OBJ)

# PLATFORM=NAME or CROSS=prefix-: the library for another target, in build/platform/NAME.
include tools/platform.mk

# The report tool reads a JSON report back into the library's model and renders it with
# the library's own renderers.
TOOL_SRC = tools/memtrack-report.c tools/json.c tools/json_read.c \
	tools/report_read.c tools/run.c tools/run_verdict.c tools/saved_frames.c \
	tools/module_file.c tools/pe_file.c tools/dw_lib.c \
	tools/out_file.c tools/site_match.c tools/sweep.c tools/sweep_outcome.c tools/sweep_render.c \
	tools/sweep_runs.c tools/options_man.c src/base/buf.c src/base/buf_fmt.c src/base/runtime.c \
	src/base/options.c src/errors/format.c src/records/kinds.c src/report/model.c \
	$(wildcard src/report/render_*.c)

VERSION := $(shell sed -n 's/^\#define MEMTRACK_VERSION "\(.*\)"/\1/p' include/memtrack.h)

.PHONY: all deps help demo test test-quick unit unit-debug e2e e2e-quick fault model model-long stress \
	browser test-command test-header test-report test-hostile test-platforms platform-env \
	print-platforms format format-check layers install \
	install-command uninstall deb test-package bench bench-core bench-pools bench-startup bench-exit \
	bench-sweep bench-reach bench-libs sanitize fuzz clean
.DEFAULT_GOAL := all

help:
	@echo 'make              the library (build/libmemtrack.a, .so), the report tool, pkg-config file'
	@echo 'make demo         build and run small programs with real leaks, an overrun, pool misuse'
	@echo 'make test         every test suite (what CI runs), about four minutes'
	@echo 'make test-quick   the everyday loop: unit, e2e programs, fault, model, stress, command'
	@echo '                  and report scripts; not the compiler matrices (header group,'
	@echo '                  cxx_matrix), the format check, the browser or the package'
	@echo 'make unit | unit-debug | e2e | fault | model | stress | browser | test-command |'
	@echo '     test-header | test-report | test-hostile | test-platforms | test-package'
	@echo '                  one suite (test/README.md)'
	@echo 'make format       clang-format the sources; make format-check: only check'
	@echo 'make layers       check the layers and knots src/README.md allows (part of make test)'
	@echo 'make install      PREFIX=/usr/local DESTDIR= (make uninstall takes it back)'
	@echo 'make deb          a Debian package in build/deb (dpkg -i it; man memtrack)'
	@echo 'make bench        the benchmark tables of tools/bench/README.md (QUICK=1: under a minute)'
	@echo 'make sanitize     the tests under ASan+UBSan, ThreadSanitizer and UBSan'
	@echo 'make model-long   the model test for STEPS steps; make fuzz: libFuzzer (clang)'
	@echo 'make clean        remove build/'
	@echo 'DEBUG=1           check the library'"'"'s internal invariants (MT_ASSERT)'
	@echo 'PLATFORM=NAME     the library for another target in build/platform/NAME: musl, i686,'
	@echo '                  aarch64, s390x (with CROSS=prefix-: another gcc; tools/doc/platforms.md)'

# ---- all: the library, the report tool, the pkg-config file -----------------------------

all: $(B)/libmemtrack.a $(if $(PLATFORM),,$(B)/libmemtrack.so $(B)/memtrack-report \
	$(B)/pkgconfig/memtrack.pc $(B)/cmake/memtrackConfig.cmake \
	$(B)/cmake/memtrackConfigVersion.cmake $(B)/man/memtrack.1 $(B)/man/memtrack.3)

deps:
	@tools/deps.sh build

$(B)/.deps-build:
	@tools/deps.sh $(DEPS_LIST)
	@mkdir -p $(B) && touch $@

$(B)/obj/%.o: src/%.c $(B)/.deps-build
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) -c $< -o $@

$(B)/obj/%.o: src/%.cpp $(B)/.deps-build
	@mkdir -p $(dir $@)
	$(CXX) $(LIB_CXXFLAGS) -c $< -o $@

# The C objects go into the archive as one relocatable object, so a static link takes the
# whole tracker (the process allocator with the entry points, the exit report with the
# lifecycle), as the shared library does. The C++ operators stay apart: a C program never
# pulls them in. base/code_end.o goes last: it marks the end of libmemtrack's code, after
# which a static link places the C library (src/base/code_end.c). base/own_data_begin.o
# goes first and base/own_data_end.o last, in the shared library too: they mark where
# libmemtrack's data lies, which the leak scan must not read as the program's
# (src/base/own_data.h).
CODE_END_OBJ = $(B)/obj/base/code_end.o
OWN_BEGIN_OBJ = $(B)/obj/base/own_data_begin.o
OWN_END_OBJ = $(B)/obj/base/own_data_end.o
LIB_C_OBJ_ORDERED = $(OWN_BEGIN_OBJ) \
	$(filter-out $(CODE_END_OBJ) $(OWN_BEGIN_OBJ) $(OWN_END_OBJ),$(LIB_C_OBJ)) \
	$(CODE_END_OBJ) $(OWN_END_OBJ)
$(B)/libmemtrack.a: $(LIB_OBJ)
	rm -f $@
	$(LD) -r -o $(B)/memtrack-c.o $(LIB_C_OBJ_ORDERED)
	$(AR) rcs $@ $(B)/memtrack-c.o $(LIB_CXX_OBJ)

# The operators reference the C++ runtime weakly (src/api/cxx.cpp), so libmemtrack.so
# does not need libstdc++ and a C program links and starts without it; the check fails
# the build if a strong reference slips in.
CHECK_NO_CXX_RUNTIME = if nm -D --undefined-only $@ | grep -E ' U (_Z|__cxa_|__gxx_)'; then \
	echo "$@: strong references to the C++ runtime (above): C programs could not use it" >&2; \
	rm -f $@; exit 1; fi

$(B)/libmemtrack.so: $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,libmemtrack.so -o $@ $(OWN_BEGIN_OBJ) \
	    $(filter-out $(OWN_BEGIN_OBJ) $(OWN_END_OBJ),$^) $(OWN_END_OBJ) $(LIB_LDLIBS) $(SANITIZE_FLAGS)
	@$(CHECK_NO_CXX_RUNTIME)

$(B)/memtrack-report: $(TOOL_SRC) $(wildcard tools/*.h) $(wildcard src/*/*.h) \
		include/memtrack.h $(B)/.deps-build
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(OPT) $(WARN) -Iinclude -Isrc -Itools $(SANITIZE_FLAGS) \
	    $(TOOL_SRC) -o $@ -pthread -ldl

# pkg-config files: one for the build tree (tests, trying it out), one for installing.
$(B)/pkgconfig/memtrack.pc: tools/memtrack.pc.in Makefile
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(CURDIR)|' -e 's|@LIBDIR@|$(CURDIR)/$(B)|' \
	    -e 's|@INCLUDEDIR@|$(CURDIR)/include|' -e 's|@VERSION@|$(VERSION)|' $< > $@

# The CMake package (find_package(memtrack) with memtrack_DIR or CMAKE_PREFIX_PATH), the same
# two ways: build/cmake for the build tree, LIBDIR/cmake/memtrack when installed.
CMAKE_FILES := memtrackConfig.cmake memtrackConfigVersion.cmake
$(B)/cmake/%.cmake: tools/%.cmake.in Makefile
	@mkdir -p $(dir $@)
	sed -e 's|@LIBDIR@|$(CURDIR)/$(B)|' -e 's|@INCLUDEDIR@|$(CURDIR)/include|' \
	    -e 's|@VERSION@|$(VERSION)|' $< > $@

# The manual pages: memtrack(1), the command and every option, and memtrack(3), the C API.
# memtrack(1)'s OPTIONS list is written by the report tool from the one options table, in
# place of the @OPTIONS@ line, so a new option is documented with no edit to the page. The
# date is the last commit's (SOURCE_DATE_EPOCH when set), so a build is reproducible.
# make_man IN OUT: the page with this build's directories (make install makes it again with
# the installed ones).
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || date +%s)
MAN_DATE := $(shell LC_ALL=C date -u -d @$(SOURCE_DATE_EPOCH) '+%B %-d, %Y')
define make_man
	@mkdir -p $(dir $(2))
	$(B)/memtrack-report --options-man >$(2).options
	sed -e 's|@DATE@|$(MAN_DATE)|' -e 's|@VERSION@|$(VERSION)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@LIBEXECDIR@|$(LIBEXECDIR)|' -e '/^@OPTIONS@$$/{r $(2).options' -e 'd;}' \
	    $(1) >$(2).tmp
	rm -f $(2).options
	mv $(2).tmp $(2)
endef
# memtrack(3)'s NAME section names every function; make install links NAME.3 to the page
# for each, so that `man 3 memtrack_report` finds it.
MAN3_LINKS = $(shell sed -n '/^\.Sh NAME/,/^\.Sh /s/^\.Nm \([a-z0-9_]*\).*/\1/p' \
	tools/man/memtrack.3.in)

$(B)/man/%: tools/man/%.in $(B)/memtrack-report Makefile
	$(call make_man,$<,$@)

-include $(LIB_OBJ:.o=.d)

# ---- demo ---------------------------------------------------------------------------------

demo: all
	@mkdir -p $(B)/demo
	$(CC) -std=c11 -g -O0 -DMEMORY_CONTROL_ON -Iinclude test/demo/demo.c \
	    -o $(B)/demo/demo -L$(B) -lmemtrack -Wl,-rpath,$(CURDIR)/$(B)
	@echo "---- running build/demo/demo: its output, then memtrack's report ----"
	@$(B)/demo/demo || true
	$(CC) -std=c11 -g -O0 -DMEMORY_CONTROL_ON -Iinclude test/demo/engine/engine.c \
	    test/demo/engine/game.c -o $(B)/demo/engine -L$(B) -lmemtrack -Wl,-rpath,$(CURDIR)/$(B)
	@echo "---- running build/demo/engine: a pool and an arena (README, \"Pools and arenas\") ----"
	@$(B)/demo/engine || true

# ---- test ---------------------------------------------------------------------------------
# Every suite is described in test/README.md. FORMAT_CHECK=0 leaves out the format check
# (a machine whose clang-format is not Debian's version 14 formats differently).

FORMAT_CHECK ?= 1
test: $(if $(filter-out 0,$(FORMAT_CHECK)),format-check) layers unit unit-debug e2e fault model stress \
	test-command test-header test-report test-hostile browser test-platforms
	@# Last and alone, even under -j: it installs the package into /usr, where the other
	@# suites' builds must not find it.
	$(MAKE) test-package
test-quick: layers unit e2e-quick fault model stress test-command test-report test-hostile

$(B)/.deps-test:
	@tools/deps.sh test
	@mkdir -p $(B) && touch $@

UNIT_SRC = $(wildcard test/unit/*.c)
UNIT_BIN = $(B)/test/unit-tests

$(UNIT_BIN): $(UNIT_SRC) $(B)/libmemtrack.a $(B)/.deps-test
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $(UNIT_SRC) -o $@ $(B)/libmemtrack.a -lcriterion $(LIB_LDLIBS)

# The units are tested alone: the test runner's own blocks (Criterion's) are not tracked,
# and nothing is kept in the user's symbol cache (symbol_cache=).
unit: $(UNIT_BIN)
	MEMTRACK_OPTIONS=track_all=0:symbol_cache= $(UNIT_BIN) --jobs 1

e2e: all $(B)/.deps-test
	test/e2e/run.sh

e2e-quick: all $(B)/.deps-test
	QUICK=1 test/e2e/run.sh

fault: all $(B)/.deps-test
	BUILD=$(CURDIR)/$(B) test/fault/run.sh

test-command test-header test-report test-hostile: all $(B)/.deps-test
	test/lib/scripts.sh $(@:test-%=%)

# The Debian package of make deb: installed with dpkg, used, removed (as root; else skipped).
test-package: all $(B)/.deps-test
	test/lib/scripts.sh package

# The library and test/platforms' programs for every target of tools/platform.mk (musl,
# i686, aarch64, s390x), run natively or under qemu-user; native x86-64 glibc first.
test-platforms: all
	@tools/deps.sh platforms
	test/platforms/run.sh

# The model test: random operations against a reference model of what must be reported.
# `make model` runs a fixed number of steps (a few seeds and quarantine sizes); `make
# model-long STEPS=5000000` runs longer; `make fuzz FUZZ_SECONDS=60` runs libFuzzer.
MODEL_SRC = test/model/model.c
MODEL_BIN = $(B)/test/model
STEPS ?= 5000000

$(MODEL_BIN): $(MODEL_SRC) test/model/model_main.c test/model/model.h $(B)/libmemtrack.a
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $(MODEL_SRC) test/model/model_main.c -o $@ $(B)/libmemtrack.a \
	    $(LIB_LDLIBS)

# The model and the stress test predict every count of the blocks they make with the
# macros: the C library's own blocks (track_all) would count too. Nothing is kept in the
# user's symbol cache.
PREDICTED = MEMTRACK_OPTIONS=track_all=0:symbol_cache=

model: $(MODEL_BIN)
	$(PREDICTED) $(MODEL_BIN) 200000 1 16384
	$(PREDICTED) $(MODEL_BIN) 200000 2 2048
	$(PREDICTED) $(MODEL_BIN) 100000 3 262144

model-long: $(MODEL_BIN)
	$(PREDICTED) $(MODEL_BIN) $(STEPS) $$(date +%s) 16384
	$(PREDICTED) $(MODEL_BIN) $(STEPS) $$(( $$(date +%s) + 1 )) 2048

# Eight threads mixing every error at once; also run under ThreadSanitizer by `make sanitize`.
STRESS_BIN = $(B)/test/stress
STRESS_ITERATIONS ?= 20000

$(STRESS_BIN): test/stress/stress.c $(B)/libmemtrack.a
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) test/stress/stress.c -o $@ $(B)/libmemtrack.a $(LIB_LDLIBS)

stress: $(STRESS_BIN)
	$(PREDICTED) $(STRESS_BIN) $(STRESS_ITERATIONS)

# The HTML report in a real browser: Debian's chromium driven by playwright-core, installed
# from test/browser's lock file into build/browser (never committed).
BROWSER_DIR = $(B)/browser
PLAYWRIGHT = $(BROWSER_DIR)/node_modules/playwright-core/package.json

$(PLAYWRIGHT): test/browser/package.json test/browser/package-lock.json
	@tools/deps.sh browser
	@mkdir -p $(BROWSER_DIR)
	cp test/browser/package.json test/browser/package-lock.json $(BROWSER_DIR)/
	cd $(BROWSER_DIR) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

browser: all $(PLAYWRIGHT)
	test/browser/run.sh

# The house style (.clang-format) on the library, the tools and the test harnesses. The
# test programs whose reports name their own lines (e2e, fault, demo, browser, header,
# project) keep their layout: moving a line would change the report they must print.
FORMAT_FILES = $(wildcard include/*.h src/*/*.c src/*/*.h src/*/*.cpp tools/*.c tools/*.h \
	tools/bench/*.c tools/bench/*.h test/unit/*.c test/model/*.c test/model/*.h \
	test/stress/*.c)

format:
	clang-format -i $(FORMAT_FILES)

format-check:
	@clang-format --dry-run -Werror $(FORMAT_FILES) && echo "format: $(words $(FORMAT_FILES)) files as .clang-format has them"

# The layers as src/README.md gives them: no call up a layer, no knot, but those it lists.
layers: all
	@python3 tools/layers.py $(B)/obj

# ---- install ------------------------------------------------------------------------------
# The installed command finds the header, the library and the tool where they went.

install: all
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(BINDIR) \
	    $(DESTDIR)$(LIBEXECDIR)/memtrack
	install -m 644 include/memtrack.h $(DESTDIR)$(INCLUDEDIR)/memtrack.h
	install -m 644 $(B)/libmemtrack.a $(DESTDIR)$(LIBDIR)/libmemtrack.a
	install -m 755 $(B)/libmemtrack.so $(DESTDIR)$(LIBDIR)/libmemtrack.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' tools/memtrack.pc.in \
	    > $(DESTDIR)$(LIBDIR)/pkgconfig/memtrack.pc
	install -m 755 $(B)/memtrack-report $(DESTDIR)$(LIBEXECDIR)/memtrack/memtrack-report
	install -d $(DESTDIR)$(LIBDIR)/cmake/memtrack
	for f in $(CMAKE_FILES); do \
	    sed -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	        -e 's|@VERSION@|$(VERSION)|' tools/$$f.in > $(DESTDIR)$(LIBDIR)/cmake/memtrack/$$f || exit 1; \
	done
	sed -e 's|^MEMTRACK_INSTALLED=.*|MEMTRACK_INSTALLED="$(PREFIX)"|' \
	    -e 's|^MEMTRACK_INCLUDEDIR=.*|MEMTRACK_INCLUDEDIR="$(INCLUDEDIR)"|' \
	    -e 's|^MEMTRACK_LIBDIR=.*|MEMTRACK_LIBDIR="$(LIBDIR)"|' \
	    -e 's|^MEMTRACK_LIBEXECDIR=.*|MEMTRACK_LIBEXECDIR="$(LIBEXECDIR)/memtrack"|' \
	    memtrack > $(DESTDIR)$(BINDIR)/memtrack
	chmod 755 $(DESTDIR)$(BINDIR)/memtrack
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3
	$(call make_man,tools/man/memtrack.1.in,$(DESTDIR)$(MANDIR)/man1/memtrack.1)
	$(call make_man,tools/man/memtrack.3.in,$(DESTDIR)$(MANDIR)/man3/memtrack.3)
	chmod 644 $(DESTDIR)$(MANDIR)/man1/memtrack.1 $(DESTDIR)$(MANDIR)/man3/memtrack.3
	for n in $(MAN3_LINKS); do ln -sf memtrack.3 $(DESTDIR)$(MANDIR)/man3/$$n.3 || exit 1; done

install-command: install

# ---- deb ----------------------------------------------------------------------------------
# make deb: build/deb/memtrack_VERSION_ARCH.deb, from `make install` staged under /usr (the
# libraries in the multiarch directory), by tools/deb/build.sh with dpkg-deb: no debian/
# folder in the tree. DEB_MAINTAINER names who builds it.
DEB_MAINTAINER ?= memtrack developers <memtrack@localhost>
DEB_ROOT = $(B)/deb/pkg/debian/memtrack

deb: all
	@tools/deps.sh deb
	rm -rf $(B)/deb
	$(MAKE) -s install DESTDIR=$(CURDIR)/$(DEB_ROOT) PREFIX=/usr \
	    LIBDIR=/usr/lib/$$(dpkg-architecture -qDEB_HOST_MULTIARCH)
	tools/deb/build.sh $(DEB_ROOT) $(B)/deb $(VERSION) '$(DEB_MAINTAINER)'

uninstall:
	rm -f $(DESTDIR)$(INCLUDEDIR)/memtrack.h $(DESTDIR)$(LIBDIR)/libmemtrack.a \
	      $(DESTDIR)$(LIBDIR)/libmemtrack.so $(DESTDIR)$(LIBDIR)/pkgconfig/memtrack.pc \
	      $(DESTDIR)$(BINDIR)/memtrack $(DESTDIR)$(LIBEXECDIR)/memtrack/memtrack-report \
	      $(addprefix $(DESTDIR)$(LIBDIR)/cmake/memtrack/,$(CMAKE_FILES)) \
	      $(DESTDIR)$(MANDIR)/man1/memtrack.1 $(DESTDIR)$(MANDIR)/man3/memtrack.3 \
	      $(patsubst %,$(DESTDIR)$(MANDIR)/man3/%.3,$(MAN3_LINKS))

# ---- bench --------------------------------------------------------------------------------
# make bench (several minutes; up to 10 million live blocks), make bench QUICK=1 (under a
# minute): the churn, lookup, thread and memory tables (tools/bench/run.sh) and the pools
# and arenas (tools/bench/pools.c), as tools/bench/README.md records them. Run without -j.

$(B)/.deps-bench:
	@tools/deps.sh bench
	@mkdir -p $(B) && touch $@

bench: bench-core bench-pools bench-startup bench-exit bench-sweep bench-reach bench-libs

bench-core: all $(B)/.deps-bench
	tools/bench/run.sh $(if $(filter-out 0,$(QUICK)),--quick)

# The leak scan's time per live block and per megabyte of roots, beside Valgrind's leak check.
bench-reach: all $(B)/.deps-bench
	tools/bench/reach.sh $(if $(filter-out 0,$(QUICK)),--quick)

$(B)/bench/pools: tools/bench/pools.c $(B)/libmemtrack.a
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g $(WARN) -pthread -Iinclude $< -o $@ $(B)/libmemtrack.a $(LIB_LDLIBS)

bench-pools: $(B)/bench/pools $(B)/libmemtrack.a
	$(B)/bench/pools $(if $(filter-out 0,$(QUICK)),--quick)
	tools/bench/arena_work.sh $(if $(filter-out 0,$(QUICK)),--quick)

# A tracked pool's release+allocate and an arena's allocation in a loop, for
# tools/bench/instructions.sh (build/bench/owned-pair [--arena]).
$(B)/bench/owned-pair: tools/bench/owned_pair.c tools/bench/collect.h $(B)/libmemtrack.a
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g $(WARN) -pthread -Iinclude $< -o $@ $(B)/libmemtrack.a $(LIB_LDLIBS)

# Start-up cost: a one-malloc program plain, tracked, and plain under --preload.
$(B)/bench/startup: tools/bench/startup.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 $(WARN) $< -o $@

$(B)/bench/one-plain: tools/bench/one_malloc.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g $< -o $@

$(B)/bench/one-tracked: tools/bench/one_malloc.c $(B)/libmemtrack.so
	@mkdir -p $(dir $@)
	./memtrack cc -O2 -g $< -o $@

# The parts: a program that leaves at once, plain, linked with a one-function library, and
# linked with libmemtrack (--no-as-needed: it calls neither).
$(B)/bench/libempty.so: tools/bench/empty_lib.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -fPIC -shared -Wl,-soname,libempty.so $< -o $@

$(B)/bench/exit-plain: tools/bench/exit_at_once.c
	@mkdir -p $(dir $@)
	$(CC) -O2 $< -o $@

$(B)/bench/exit-empty: tools/bench/exit_at_once.c $(B)/bench/libempty.so
	$(CC) -O2 $< -o $@ -L$(B)/bench -Wl,-rpath,$(CURDIR)/$(B)/bench -Wl,--no-as-needed -lempty

$(B)/bench/exit-tracked: tools/bench/exit_at_once.c $(B)/libmemtrack.so
	@mkdir -p $(dir $@)
	$(CC) -O2 $< -o $@ -L$(B) -Wl,-rpath,$(CURDIR)/$(B) -Wl,--no-as-needed -lmemtrack

STARTUP_PROGS = $(addprefix $(B)/bench/,one-plain one-tracked exit-plain exit-empty exit-tracked)

# A fail sweep of a program of 2,000 allocations, every failure handled (tools/bench/README.md).
$(B)/bench/sweep-list: tools/bench/sweep_list.c $(B)/libmemtrack.so
	@mkdir -p $(dir $@)
	./memtrack cc -O2 -g $< -o $@

bench-sweep: all $(B)/bench/sweep-list
	time ./memtrack run --fail-sweep -- $(B)/bench/sweep-list </dev/null

bench-startup: all $(B)/bench/startup $(STARTUP_PROGS)
	$(B)/bench/startup $(if $(filter-out 0,$(QUICK)),--quick) $(B)/bench/one-plain \
	    $(B)/bench/one-tracked $(CURDIR)/$(B)/libmemtrack.so $(B)/bench/exit-plain \
	    $(B)/bench/exit-empty $(B)/bench/exit-tracked

# The exit report: programs that leak (tools/bench/exit_leaks.c) plain, with memtrack and
# with ASan, and a suite of 500 short leaking processes (tools/bench/exit_report.c), with the
# C library's debug information installed (tools/deps.sh bench: libc6-dbg), the worst case.
EXIT_CFLAGS = -O2 -g -fno-optimize-sibling-calls

$(B)/bench/exit_report: tools/bench/exit_report.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 $(WARN) $< -o $@

$(B)/bench/leaks-plain: tools/bench/exit_leaks.c
	@mkdir -p $(dir $@)
	$(CC) $(EXIT_CFLAGS) $< -o $@

$(B)/bench/leaks-memtrack: tools/bench/exit_leaks.c $(B)/libmemtrack.so
	@mkdir -p $(dir $@)
	./memtrack cc $(EXIT_CFLAGS) $< -o $@

# ASan's is skipped (the table says n/a) where clang's runtime is missing.
$(B)/bench/leaks-asan: tools/bench/exit_leaks.c
	@mkdir -p $(dir $@)
	clang $(EXIT_CFLAGS) -fsanitize=address $< -o $@ || rm -f $@

bench-exit: all $(B)/.deps-bench $(B)/bench/exit_report $(B)/bench/leaks-plain \
	    $(B)/bench/leaks-memtrack $(B)/bench/leaks-asan
	$(B)/bench/exit_report $(if $(filter-out 0,$(QUICK)),--quick) $(B)/bench/leaks-plain \
	    $(B)/bench/leaks-memtrack $(B)/bench/leaks-asan

# Real libraries (tools/bench/libs.c): hosts of Debian's Lua 5.4, SQLite and jansson built
# plain, with memtrack cc and with ASan (frame pointers, as memtrack cc builds; skipped, n/a,
# where clang's runtime is missing), and the floor as the process's allocator.
LIBS_CFLAGS = -O2 -g
LIBS_HOSTS = lua:lua5.4 sqlite:sqlite3 jansson:jansson
libs_pkg = $(patsubst $(1):%,%,$(filter $(1):%,$(LIBS_HOSTS)))
LIBS_PROGS = $(foreach h,$(LIBS_HOSTS),$(addprefix $(B)/bench/$(firstword $(subst :, ,$(h)))-,plain memtrack asan))

$(B)/bench/%-plain: tools/bench/libs_%.c
	@mkdir -p $(dir $@)
	$(CC) $(LIBS_CFLAGS) $$(pkg-config --cflags $(call libs_pkg,$*)) $< -o $@ $$(pkg-config --libs $(call libs_pkg,$*))

$(B)/bench/%-memtrack: tools/bench/libs_%.c $(B)/libmemtrack.so
	@mkdir -p $(dir $@)
	./memtrack cc $(LIBS_CFLAGS) $$(pkg-config --cflags $(call libs_pkg,$*)) $< -o $@ $$(pkg-config --libs $(call libs_pkg,$*))

$(B)/bench/%-asan: tools/bench/libs_%.c
	@mkdir -p $(dir $@)
	clang $(LIBS_CFLAGS) -fsanitize=address -fno-omit-frame-pointer $$(pkg-config --cflags $(call libs_pkg,$*)) $< -o $@ $$(pkg-config --libs $(call libs_pkg,$*)) || rm -f $@

$(B)/bench/libfloor.so: tools/bench/floor.c tools/bench/floor_preload.c tools/bench/floor.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -fPIC -shared -DFLOOR_PRELOAD tools/bench/floor.c tools/bench/floor_preload.c -o $@

$(B)/bench/libfloor-full.so: tools/bench/floor.c tools/bench/floor_preload.c tools/bench/floor.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -fPIC -shared -DFLOOR_PRELOAD -DFLOOR_FULL tools/bench/floor.c tools/bench/floor_preload.c -o $@

$(B)/bench/libs: tools/bench/libs.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 $(WARN) $< -o $@

bench-libs: all $(B)/.deps-bench $(B)/bench/libs $(LIBS_PROGS) $(B)/bench/libfloor.so \
	    $(B)/bench/libfloor-full.so
	$(B)/bench/libs $(if $(filter-out 0,$(QUICK)),--quick) $(B)/bench tools/bench/libs_lua.lua

# ---- sanitize, fuzz -----------------------------------------------------------------------
# Each sanitizer in its own build directory, with the internal invariants checked:
#   ASan+UBSan: the unit tests, the model and the stress test, with the sanitizer's
#     allocator under the tracker (it checks the tracker's own accesses);
#   TSan: the stress test and the model (Criterion cannot run under TSan);
#   UBSan alone: the fault programs, with the library still providing malloc and free
#     (the C++ operators are built without it: its checks there tie libmemtrack.so to
#     the C++ runtime, which C programs must not need; the fault programs are C).
SAN_ASAN = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
SAN_TSAN = -fsanitize=thread
SAN_UBSAN = -fsanitize=undefined -fno-sanitize-recover=undefined

# Part of make test (half a minute): the unit tests against a library with its internal
# invariants checked (DEBUG) under ASan+UBSan. An -O2 build can hide a bad access the code
# makes (a load the optimizer drops as dead: a free once read a page-guarded block's guard
# page that way), and the invariants' checks are code that only this build compiles.
unit-debug:
	$(MAKE) B=$(B)/asan DEBUG=1 SANITIZE_FLAGS="$(SAN_ASAN)" unit

sanitize:
	$(MAKE) B=$(B)/asan DEBUG=1 SANITIZE_FLAGS="$(SAN_ASAN)" unit model stress
	$(MAKE) B=$(B)/tsan DEBUG=1 SANITIZE_FLAGS="$(SAN_TSAN)" model stress
	$(MAKE) B=$(B)/ubsan DEBUG=1 SANITIZE_FLAGS="$(SAN_UBSAN)" \
	    EXTRA_CXXFLAGS=-fno-sanitize=undefined fault

FUZZ_SECONDS ?= 60
FUZZ_BIN = $(B)/fuzz/model-fuzz

# The library's own sources are compiled into the fuzzer, so libFuzzer sees their branches.
$(FUZZ_BIN): $(LIB_SRC) $(MODEL_SRC) test/model/fuzz.c test/model/model.h $(B)/.deps-test
	@mkdir -p $(dir $@)
	clang -std=gnu11 -g -O1 -fsanitize=fuzzer,undefined -DMT_DEBUG -Iinclude -Isrc -pthread \
	    -fno-builtin-malloc -fno-builtin-free -fno-builtin-calloc -fno-builtin-realloc \
	    $(LIB_SRC) $(MODEL_SRC) test/model/fuzz.c -o $@ $(LIB_LDLIBS)

fuzz: $(FUZZ_BIN)
	@mkdir -p $(B)/fuzz/corpus
	$(FUZZ_BIN) -max_total_time=$(FUZZ_SECONDS) -max_len=4096 $(B)/fuzz/corpus

# ---- clean --------------------------------------------------------------------------------

clean:
	rm -rf $(B)
