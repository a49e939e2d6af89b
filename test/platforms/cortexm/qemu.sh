#!/bin/bash
# qemu.sh PROGRAM - runs a cortexm program built by test/platforms/run.sh on qemu's
# mps2-an385 (Cortex-M3), as the other targets' programs run under qemu-user: its exit
# status and its output, which comes through semihosting (newlib's rdimon) on stdout and
# stderr. Bare metal has no environment: MEMTRACK_OPTIONS rides on the semihosting command
# line after the program's name, and startup.c puts it in newlib's environment before the
# library starts. No display, no serial port, no monitor: nothing but semihosting.
set -u
prog=$1
line="$prog"
[ -n "${MEMTRACK_OPTIONS:-}" ] && line="$prog ${MEMTRACK_OPTIONS}"
exec qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none \
    -semihosting-config "enable=on,target=native,arg=${line//,/,,}" -kernel "$prog"
