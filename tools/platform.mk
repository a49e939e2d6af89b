# platform.mk - the library built for another target (README, "Platforms").
#
#   make PLATFORM=musl|i686|aarch64|s390x     build/platform/NAME/libmemtrack.a
#   make PLATFORM=armhf CROSS=arm-linux-gnueabihf-   another gcc toolchain by its prefix
#   make test-platforms                        every target's programs (test/platforms)
#
# Included by the Makefile before its rules. A target is a compiler and, for running what it
# builds here, an emulator; the Debian packages for all of them are `tools/deps.sh platforms`.
# Only the C library is built (no C++ operators: the cross toolchains have no g++), as a
# static archive.

PLATFORMS = musl i686 aarch64 s390x

PLATFORM_CROSS_i686 = i686-linux-gnu-
PLATFORM_CROSS_aarch64 = aarch64-linux-gnu-
PLATFORM_CROSS_s390x = s390x-linux-gnu-
# How a program of the target runs on this machine (empty: natively).
PLATFORM_RUN_i686 = qemu-i386 -L /usr/i686-linux-gnu
PLATFORM_RUN_aarch64 = qemu-aarch64 -L /usr/aarch64-linux-gnu
PLATFORM_RUN_s390x = qemu-s390x -L /usr/s390x-linux-gnu
# How a program is linked: musl statically (nothing to install to run it).
PLATFORM_LDFLAGS_musl = -static
# Programs of test/platforms a target cannot run here, and why (run.sh prints it). This
# machine's kernel runs no 32-bit code, and qemu-i386 (7.2) hangs in pthread_create and in
# fork (clone) of any dynamically linked i686 glibc program, with or without memtrack; a
# static one cannot take libmemtrack's malloc (glibc's libc.a defines it too).
PLATFORM_SKIP_i686 = threads fork_exit
PLATFORM_SKIP_WHY_i686 = qemu-i386 hangs in pthread_create and fork of a dynamic i686 glibc program

ifneq ($(PLATFORM),)
CROSS ?= $(PLATFORM_CROSS_$(PLATFORM))
B = build/platform/$(PLATFORM)
ifeq ($(PLATFORM),musl)
CC = musl-gcc
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

DEPS_LIST ?= build

# What test/platforms/run.sh needs to know of a target: its compiler, how its programs are
# linked and how they run here.
platform-env:
	@echo "CC='$(CC)' LDFLAGS='$(PLATFORM_LDFLAGS_$(PLATFORM))' RUN='$(PLATFORM_RUN_$(PLATFORM))'" \
	    "SKIP='$(PLATFORM_SKIP_$(PLATFORM))' WHY='$(PLATFORM_SKIP_WHY_$(PLATFORM))'"

print-platforms:
	@echo $(PLATFORMS)
