#!/bin/bash
# wine.sh PROGRAM [ARGS...] - runs a Windows program built by test/platforms/run.sh under
# wine64, as the other targets' programs run under qemu-user: its exit status, its stdout
# and its stderr.
#
# Headless: console programs need no display, and with DISPLAY unset wine never looks for
# one. The prefix (wine's C: drive and registry) lives in build/wine; the first run makes
# it (wineboot, about ten seconds, with notes on stderr that are not the program's), once,
# under a lock. The CRT writes stdout and stderr in text mode, CR LF: the CRs are taken out,
# so the reports compare line for line with the other targets' (tools/doc/platforms.md), and so
# is wine's own note when a program crashes.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
export WINEPREFIX=${WINEPREFIX:-$top/build/wine} WINEDEBUG=-all
unset DISPLAY WAYLAND_DISPLAY
wine=$(command -v wine64 || echo /usr/lib/wine/wine64)
wineserver=$(command -v wineserver || echo /usr/lib/wine/wineserver)
prog=$1
shift
[ -f "$prog" ] || prog=$prog.exe

mkdir -p "$WINEPREFIX"
(
    flock 9
    if [ ! -f "$WINEPREFIX/.memtrack-booted" ]; then
        "$wine" wineboot --init >"$WINEPREFIX/boot.log" 2>&1 && touch "$WINEPREFIX/.memtrack-booted"
    fi
    # No debugger for a program that crashes (AeDebug): Windows would end it, and wine's
    # debugger would print its registers and threads on stdout. A step of its own, so a
    # prefix booted before it is not booted again.
    if [ ! -f "$WINEPREFIX/.memtrack-no-debugger" ]; then
        "$wine" reg add 'HKLM\Software\Microsoft\Windows NT\CurrentVersion\AeDebug' \
            /v Debugger /t REG_SZ /d false /f >>"$WINEPREFIX/boot.log" 2>&1 &&
            touch "$WINEPREFIX/.memtrack-no-debugger"
    fi
) 9>"$WINEPREFIX.lock"

# A wine server that stays 20 s after its last program (it starts in about a second, and
# run.sh builds the next program in less): it ends by itself.
"$wineserver" -p 20 >/dev/null 2>&1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$wine" "$prog" "$@" >"$tmp/out" 2>"$tmp/err"
status=$?
tr -d '\r' <"$tmp/out"
# wine's own note on a crash ("wine: Unhandled page fault on read access to ...") is not
# the program's: Windows prints none.
tr -d '\r' <"$tmp/err" | grep -v '^wine: Unhandled ' >&2
exit $status
