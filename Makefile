# memtrack - drop-in debug memory tracker for C and C++.
#
#   make            build/libmemtrack.a, build/libmemtrack.so, build/pkgconfig/memtrack.pc
#   make demo       build and run a small program with real leaks and an overrun
#   make test       unit tests (Criterion) and end-to-end programs
#   make install    PREFIX=/usr/local DESTDIR=
#   make sanitize   the library's own tests under ASan+UBSan and ThreadSanitizer
#   make bench      the benchmark tables of BENCHMARKS.md (QUICK=1: under a minute)
#   make model-long  the model test for STEPS steps; make fuzz: libFuzzer (clang)
#
# Missing Debian packages are installed with apt-get when run as root; otherwise the
# build stops with the exact command to run (tools/deps.sh).

PREFIX ?= /usr/local
DESTDIR ?=
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec

CC ?= cc
CXX ?= c++
OPT ?= -O2 -g
WARN = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
# The library defines malloc, free...: the compiler must not assume what they do.
LIB_CFLAGS = -std=gnu11 $(OPT) $(WARN) -fPIC -fvisibility=hidden -pthread \
	-fno-builtin-malloc -fno-builtin-free -fno-builtin-calloc -fno-builtin-realloc \
	-Iinclude -Isrc -MMD -MP $(SANITIZE_FLAGS) $(EXTRA_CFLAGS)
LIB_LDLIBS = -ldl -pthread

B = build
LIB_SRC = $(wildcard src/*/*.c)
LIB_CXX_SRC = $(wildcard src/*/*.cpp)
LIB_OBJ = $(LIB_SRC:src/%.c=$(B)/obj/%.o) $(LIB_CXX_SRC:src/%.cpp=$(B)/obj/%.o)

.PHONY: all deps demo test unit e2e install uninstall clean sanitize bench fault model model-long fuzz stress
.DEFAULT_GOAL := all

all: $(B)/libmemtrack.a $(B)/libmemtrack.so $(B)/pkgconfig/memtrack.pc

deps:
	@tools/deps.sh build

$(B)/.deps-build:
	@tools/deps.sh build
	@mkdir -p $(B) && touch $@

$(B)/obj/%.o: src/%.c $(B)/.deps-build
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) -c $< -o $@

# The C objects go into the archive as one relocatable object, so a static link takes the
# whole tracker (the process allocator with the entry points, the exit report with the
# lifecycle), as the shared library does; the C++ operators stay apart (see below).
LIB_C_OBJ = $(LIB_SRC:src/%.c=$(B)/obj/%.o)
LIB_CXX_OBJ = $(LIB_CXX_SRC:src/%.cpp=$(B)/obj/%.o)

$(B)/libmemtrack.a: $(LIB_OBJ)
	rm -f $@
	$(LD) -r -o $(B)/memtrack-c.o $(LIB_C_OBJ)
	ar rcs $@ $(B)/memtrack-c.o $(LIB_CXX_OBJ)

$(B)/libmemtrack.so: $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,libmemtrack.so -o $@ $^ $(LIB_LDLIBS) $(SANITIZE_FLAGS)
	@$(CHECK_NO_CXX_RUNTIME)

# ---- C++ operators (src/*.cpp) ---------------------------------------------------------
# The operators live in both libraries, for C and C++ programs alike: the C++ runtime is
# referenced weakly (see src/cxx.cpp), so libmemtrack.so does not need libstdc++ and a C
# program links and starts without it. From libmemtrack.a, a C program never pulls the
# operators' object in. The check below fails the build if a strong reference slips in.
LIB_CXXFLAGS = -std=c++17 $(OPT) -Wall -Wextra -Wshadow -fPIC -fvisibility=hidden \
	-fno-threadsafe-statics -Isrc -MMD -MP $(SANITIZE_FLAGS) $(EXTRA_CXXFLAGS)
CHECK_NO_CXX_RUNTIME = if nm -D --undefined-only $@ | grep -E ' U (_Z|__cxa_|__gxx_)'; then \
	echo "$@: strong references to the C++ runtime (above): C programs could not use it" >&2; \
	rm -f $@; exit 1; fi

$(B)/obj/%.o: src/%.cpp $(B)/.deps-build
	@mkdir -p $(dir $@)
	$(CXX) $(LIB_CXXFLAGS) -c $< -o $@

# pkg-config files: one for the build tree (tests, trying it out), one for installing.
$(B)/pkgconfig/memtrack.pc: tools/memtrack.pc.in Makefile
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(CURDIR)|' -e 's|@LIBDIR@|$(CURDIR)/$(B)|' \
	    -e 's|@INCLUDEDIR@|$(CURDIR)/include|' -e 's|@VERSION@|$(VERSION)|' $< > $@

VERSION := $(shell sed -n 's/^\#define MEMTRACK_VERSION "\(.*\)"/\1/p' include/memtrack.h)

install: all
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(BINDIR)
	install -m 644 include/memtrack.h $(DESTDIR)$(INCLUDEDIR)/memtrack.h
	install -m 644 $(B)/libmemtrack.a $(DESTDIR)$(LIBDIR)/libmemtrack.a
	install -m 755 $(B)/libmemtrack.so $(DESTDIR)$(LIBDIR)/libmemtrack.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' tools/memtrack.pc.in \
	    > $(DESTDIR)$(LIBDIR)/pkgconfig/memtrack.pc

uninstall:
	rm -f $(DESTDIR)$(INCLUDEDIR)/memtrack.h $(DESTDIR)$(LIBDIR)/libmemtrack.a \
	      $(DESTDIR)$(LIBDIR)/libmemtrack.so $(DESTDIR)$(LIBDIR)/pkgconfig/memtrack.pc \
	      $(DESTDIR)$(BINDIR)/memtrack $(DESTDIR)$(LIBEXECDIR)/memtrack/memtrack-report

# ---- the memtrack command and its report tool -------------------------------------
# build/memtrack-report reads a JSON report back into the library's report model and
# renders it with the library's own renderers (src/buf.c, src/render_*.c).
TOOL_SRC = tools/memtrack-report.c tools/json.c tools/report_read.c src/base/buf.c \
	src/base/options.c 	src/errors/format.c src/report/model.c $(wildcard src/report/render_*.c)

all: $(B)/memtrack-report

$(B)/memtrack-report: $(TOOL_SRC) $(wildcard tools/*.h) $(wildcard src/*/*.h) \
		include/memtrack.h $(B)/.deps-build
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(OPT) $(WARN) -Iinclude -Isrc -Itools $(SANITIZE_FLAGS) \
	    $(TOOL_SRC) -o $@

# The installed command finds the header, the library and the tool where they went.
install: install-command
install-command: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR)/memtrack
	install -m 755 $(B)/memtrack-report $(DESTDIR)$(LIBEXECDIR)/memtrack/memtrack-report
	sed -e 's|^MEMTRACK_INSTALLED=.*|MEMTRACK_INSTALLED="$(PREFIX)"|' \
	    -e 's|^MEMTRACK_INCLUDEDIR=.*|MEMTRACK_INCLUDEDIR="$(INCLUDEDIR)"|' \
	    -e 's|^MEMTRACK_LIBDIR=.*|MEMTRACK_LIBDIR="$(LIBDIR)"|' \
	    -e 's|^MEMTRACK_LIBEXECDIR=.*|MEMTRACK_LIBEXECDIR="$(LIBEXECDIR)/memtrack"|' \
	    memtrack > $(DESTDIR)$(BINDIR)/memtrack
	chmod 755 $(DESTDIR)$(BINDIR)/memtrack

.PHONY: install-command

# ---- the HTML report in a real browser ---------------------------------------------
# Debian's chromium driven by playwright-core, installed from test/browser's lock file
# into build/browser (never committed). Part of make test; tools/deps.sh browser installs
# chromium (and node/npm if missing).
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

test: browser
.PHONY: browser

# ---- demo --------------------------------------------------------------------------

demo: all
	@mkdir -p $(B)/demo
	$(CC) -std=c11 -g -O0 -DMEMORY_CONTROL_ON -Iinclude test/demo/demo.c \
	    -o $(B)/demo/demo -L$(B) -lmemtrack -Wl,-rpath,$(CURDIR)/$(B)
	@echo "---- running build/demo/demo: its output, then memtrack's report ----"
	@$(B)/demo/demo || true

# ---- tests -------------------------------------------------------------------------

$(B)/.deps-test:
	@tools/deps.sh test
	@mkdir -p $(B) && touch $@

UNIT_SRC = $(wildcard test/unit/*.c)
UNIT_BIN = $(B)/test/unit-tests

$(UNIT_BIN): $(UNIT_SRC) $(B)/libmemtrack.a $(B)/.deps-test
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O1 -g $(WARN) -pthread -Iinclude -Isrc $(SANITIZE_FLAGS) \
	    $(UNIT_SRC) -o $@ $(B)/libmemtrack.a -lcriterion $(LIB_LDLIBS)

unit: $(UNIT_BIN)
	$(UNIT_BIN) --jobs 1

e2e: all $(B)/.deps-test
	test/e2e/run.sh

test: unit e2e fault model stress

# ---- issue 3: heap corruption (fault programs, model test, stress, sanitizers) -------

fault: all $(B)/.deps-test
	BUILD=$(CURDIR)/$(B) test/fault/run.sh

# The model test: random operations against a reference model of what must be reported.
# `make model` runs a fixed number of steps (a few seeds and quarantine sizes); `make
# model-long STEPS=5000000` runs longer; `make fuzz FUZZ_SECONDS=60` runs libFuzzer.
MODEL_SRC = test/model/model.c
MODEL_BIN = $(B)/test/model
STEPS ?= 5000000

$(MODEL_BIN): $(MODEL_SRC) test/model/model_main.c test/model/model.h $(B)/libmemtrack.a
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O1 -g $(WARN) -pthread -Iinclude -Isrc $(SANITIZE_FLAGS) \
	    $(MODEL_SRC) test/model/model_main.c -o $@ $(B)/libmemtrack.a $(LIB_LDLIBS)

model: $(MODEL_BIN)
	$(MODEL_BIN) 200000 1 16384
	$(MODEL_BIN) 200000 2 2048
	$(MODEL_BIN) 100000 3 262144

model-long: $(MODEL_BIN)
	$(MODEL_BIN) $(STEPS) $$(date +%s) 16384
	$(MODEL_BIN) $(STEPS) $$(( $$(date +%s) + 1 )) 2048

# Eight threads mixing every error at once; also run under ThreadSanitizer by `make sanitize`.
STRESS_BIN = $(B)/test/stress
STRESS_ITERATIONS ?= 20000

$(STRESS_BIN): test/stress/stress.c $(B)/libmemtrack.a
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O1 -g $(WARN) -pthread -Iinclude -Isrc $(SANITIZE_FLAGS) \
	    test/stress/stress.c -o $@ $(B)/libmemtrack.a $(LIB_LDLIBS)

stress: $(STRESS_BIN)
	$(STRESS_BIN) $(STRESS_ITERATIONS)

# Sanitizers, each in its own build directory (README, "Sanitizers"):
#   ASan+UBSan: the library's unit tests, the model and the stress test, with the
#     sanitizer's allocator under the tracker (it checks the tracker's own accesses);
#   TSan: the stress test and the model (Criterion cannot run under TSan);
#   UBSan alone: the fault programs, with the library still providing malloc and free
#     (the C++ operators are built without it: its checks there tie libmemtrack.so to
#     the C++ runtime, which C programs must not need; the fault programs are C).
SAN_ASAN = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
SAN_TSAN = -fsanitize=thread
SAN_UBSAN = -fsanitize=undefined -fno-sanitize-recover=undefined

sanitize:
	$(MAKE) B=$(B)/asan SANITIZE_FLAGS="$(SAN_ASAN)" unit model stress
	$(MAKE) B=$(B)/tsan SANITIZE_FLAGS="$(SAN_TSAN)" model stress
	$(MAKE) B=$(B)/ubsan SANITIZE_FLAGS="$(SAN_UBSAN)" EXTRA_CXXFLAGS=-fno-sanitize=undefined fault

FUZZ_SECONDS ?= 60
FUZZ_BIN = $(B)/fuzz/model-fuzz

# The library's own sources are compiled into the fuzzer, so libFuzzer sees their branches.
$(FUZZ_BIN): $(LIB_SRC) $(MODEL_SRC) test/model/fuzz.c test/model/model.h $(B)/.deps-test
	@mkdir -p $(dir $@)
	clang -std=gnu11 -g -O1 -fsanitize=fuzzer,undefined -Iinclude -Isrc -pthread \
	    -fno-builtin-malloc -fno-builtin-free -fno-builtin-calloc -fno-builtin-realloc \
	    $(LIB_SRC) $(MODEL_SRC) test/model/fuzz.c -o $@ $(LIB_LDLIBS)

fuzz: $(FUZZ_BIN)
	@mkdir -p $(B)/fuzz/corpus
	$(FUZZ_BIN) -max_total_time=$(FUZZ_SECONDS) -max_len=4096 $(B)/fuzz/corpus

# ---- pools and arenas (issue 4) --------------------------------------------------------
# make bench-pools           tools/bench/pools.c: pools and arenas against glibc's malloc,
#                            the seeds' ways of finding a free slot, what tracking costs
# make bench-pools QUICK=1   the same tables from shorter runs (a few seconds)
# Their unit tests (test/unit/pool_*) and end-to-end tests (test/e2e/pool_*, arena_*) run
# with the others in `make test`.

.PHONY: bench-pools
bench: bench-pools

$(B)/bench/pools: tools/bench/pools.c $(B)/libmemtrack.a
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g $(WARN) -pthread -Iinclude $< -o $@ $(B)/libmemtrack.a $(LIB_LDLIBS)

bench-pools: $(B)/bench/pools
	$(B)/bench/pools $(if $(filter-out 0,$(QUICK)),--quick)

# ---- bench (issue 7) -----------------------------------------------------------------
# make bench            the full benchmark (several minutes; up to 10 million live blocks)
# make bench QUICK=1    the same tables at smaller sizes, under a minute
# tools/bench/run.sh builds its programs in build/bench and prints the tables recorded in
# BENCHMARKS.md. Other benchmarks hook in from their own section with one line,
#   bench: bench-NAME
# and run before or after this one; run `make bench` without -j (timings).

$(B)/.deps-bench:
	@tools/deps.sh bench
	@mkdir -p $(B) && touch $@

.PHONY: bench-core
bench: bench-core

bench-core: all $(B)/.deps-bench
	tools/bench/run.sh $(if $(filter-out 0,$(QUICK)),--quick)

clean:
	rm -rf $(B)

-include $(LIB_OBJ:.o=.d)
