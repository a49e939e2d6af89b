# platform.mk - the library built for another target (tools/doc/platforms.md).
#
#   make PLATFORM=musl|i686|aarch64|s390x     build/platform/NAME/libmemtrack.a
#   make PLATFORM=armhf CROSS=arm-linux-gnueabihf-   another gcc toolchain by its prefix
#   make test-platforms                        every target's programs (test/platforms)
#
# Included by the Makefile before its rules. A target is a compiler and, for running what it
# builds here, an emulator; the Debian packages for all of them are `tools/deps.sh platforms`.
# Only the C library is built (no C++ operators: the cross toolchains have no g++), as a
# static archive.

PLATFORMS = musl i686 aarch64 s390x windows cortexm

PLATFORM_CROSS_i686 = i686-linux-gnu-
PLATFORM_CROSS_aarch64 = aarch64-linux-gnu-
PLATFORM_CROSS_s390x = s390x-linux-gnu-
PLATFORM_CROSS_windows = x86_64-w64-mingw32-
PLATFORM_CROSS_cortexm = arm-none-eabi-
# How a program of the target runs on this machine (empty: natively).
# The target's own libraries first: the loader would otherwise take the C library this
# machine's cache lists for 32-bit programs (/lib32, gcc-multilib's), another build than the
# loader's, and a dynamic program hangs at its first pthread_create or fork.
PLATFORM_RUN_i686 = qemu-i386 -L /usr/i686-linux-gnu -E LD_LIBRARY_PATH=/usr/i686-linux-gnu/lib
PLATFORM_RUN_aarch64 = qemu-aarch64 -L /usr/aarch64-linux-gnu
PLATFORM_RUN_s390x = qemu-s390x -L /usr/s390x-linux-gnu
PLATFORM_RUN_windows = $(CURDIR)/test/platforms/wine.sh
PLATFORM_RUN_cortexm = $(CURDIR)/test/platforms/cortexm/qemu.sh
# How a program is linked: musl statically (nothing to install to run it).
PLATFORM_LDFLAGS_musl = -static
# Programs of test/platforms and test/e2e also run linked dynamically: libmemtrack.a
# provides musl's malloc there too, over libc.so's found with dlsym (src/base/platform_musl.c).
PLATFORM_DYNAMIC_musl = crossing crossing_free clean
# Windows: statically too, so wine needs no DLL of mingw's (threads.c takes winpthreads).
PLATFORM_LDFLAGS_windows = -static
# The libraries a program is linked with after libmemtrack (Windows has no libdl).
PLATFORM_LIBS = -ldl -pthread
PLATFORM_LIBS_windows = -pthread
# Cortex-M: newlib with semihosting (rdimon), and what each program needs besides itself
# on qemu's mps2-an385: its vector table, start-up and the tracker's static memory.
PLATFORM_LDFLAGS_cortexm = -specs=rdimon.specs -T $(CURDIR)/test/platforms/cortexm/link.ld \
	$(CURDIR)/test/platforms/cortexm/startup.c
PLATFORM_LIBS_cortexm = -lc
# Targets whose reports have no call stacks (README, Platforms, says why): run.sh leaves the
# stack lines out of the reports it compares there.
PLATFORM_NO_STACKS_cortexm = no unwinder works on Thumb code
# Programs of test/platforms a target cannot run here, and why (run.sh prints it).
PLATFORM_SKIP_windows = fork_exit
PLATFORM_SKIP_WHY_windows = Windows has no fork
PLATFORM_SKIP_cortexm = threads fork_exit
PLATFORM_SKIP_WHY_cortexm = bare metal has one thread and no processes
# What a target's reports legitimately lack, as a sed script applied to the expected
# reports before they are compared: Windows has no page guards, so no guard error ends with
# the option to rerun with them (src/base/platform.h, MT_HAVE_PAGE_GUARDS).
PLATFORM_EXPECT_windows = /rerun with MEMTRACK_OPTIONS=page_guard_site=/d
# Bare metal has no page guards either, no process id to print and no working directory to
# name in JSON (the quotes escaped for platform-env's echo).
PLATFORM_EXPECT_cortexm = $(PLATFORM_EXPECT_windows); s/ (pid PID)//; s/\"cwd\": CWD/\"cwd\": null/
# The same for the programs' own stdout: newlib as Debian builds it has no C99 formats, and
# prints the programs' %zu as "zu".
PLATFORM_STDOUT_EXPECT_cortexm = s/[0-9][0-9]* blocks/zu blocks/g; s/[0-9][0-9]* bytes/zu bytes/g; \
	s/used [0-9][0-9]* of [0-9][0-9]*/used zu of zu/

ifneq ($(PLATFORM),)
CROSS ?= $(PLATFORM_CROSS_$(PLATFORM))
B = build/platform/$(PLATFORM)
ifeq ($(PLATFORM),s390x)
# s390x keeps no frame pointer chain: the back chain is the frame record the stack walk
# reads (base/unwind.h), in the library and in the programs alike (`memtrack cc` adds it).
CC = $(CROSS)gcc -mbackchain
else ifeq ($(PLATFORM),musl)
CC = musl-gcc
# musl 1.2.1 or later: libmemtrack provides the process's malloc (src/base/platform.h).
LIB_CFLAGS += -DMT_MUSL
else
CC = $(CROSS)gcc
endif
LD = $(CROSS)ld
AR = $(CROSS)ar
LIB_CXX_SRC =
DEPS_LIST = platforms
# uthash is one header, the same for every target; the target's compiler does not search
# the build machine's /usr/include, so the build directory offers it alone.
LIB_CFLAGS += -I$(B)/include
$(B)/.deps-build: $(B)/include/uthash.h
$(B)/include/uthash.h:
	@mkdir -p $(dir $@)
	ln -sf /usr/include/uthash.h $@
endif

# Windows (mingw-w64): the POSIX names the sources use come from src/base/win32 over Win32
# and from src/base/shim (win32/posix.h says how); -fPIC and -fno-plt mean nothing for PE.
ifeq ($(PLATFORM),windows)
LIB_CFLAGS := $(filter-out -fPIC -fno-plt -pthread,$(LIB_CFLAGS)) -Isrc/base/win32 -Isrc/base/shim \
	-include base/win32/posix.h
endif

# Cortex-M bare metal (arm-none-eabi with newlib): one thread, no operating system; the
# POSIX names come from src/base/bare and src/base/shim (bare/posix.h says how).
ifeq ($(PLATFORM),cortexm)
CC = $(CROSS)gcc -mcpu=cortex-m3 -mthumb
LIB_CFLAGS := $(filter-out -fPIC -fno-plt -pthread,$(LIB_CFLAGS)) -DMT_BARE_METAL \
	-Isrc/base/bare -Isrc/base/shim -include base/bare/posix.h
endif

DEPS_LIST ?= build

# What test/platforms/run.sh needs to know of a target: its compiler, how its programs are
# linked and how they run here.
platform-env:
	@echo "CC='$(CC)' LDFLAGS='$(PLATFORM_LDFLAGS_$(PLATFORM))' RUN='$(PLATFORM_RUN_$(PLATFORM))'" \
	    "LIBS='$(or $(PLATFORM_LIBS_$(PLATFORM)),$(PLATFORM_LIBS))'" \
	    "EXPECT='$(PLATFORM_EXPECT_$(PLATFORM))'" \
	    "STDOUT_EXPECT='$(PLATFORM_STDOUT_EXPECT_$(PLATFORM))'" \
	    "SKIP='$(PLATFORM_SKIP_$(PLATFORM))' WHY='$(PLATFORM_SKIP_WHY_$(PLATFORM))'" \
	    "DYNAMIC='$(PLATFORM_DYNAMIC_$(PLATFORM))'" \
	    "NO_STACKS='$(PLATFORM_NO_STACKS_$(PLATFORM))'"

print-platforms:
	@echo $(PLATFORMS)
