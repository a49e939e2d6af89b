#!/bin/bash
# run.sh - fault programs: each NAME.c commits heap errors on purpose; its stderr (addresses
# and pids normalized) must equal NAME.expected, and its exit status the expected one.
# Then the same program runs again with abort_on_error=1: it must die of SIGABRT (status
# 134) right after the first error, its stderr being exactly the lines of NAME.expected up
# to the end of the first error message, then the line saying it aborts.
#
# Directives in the first comment block (all optional):
#   fault-options: k=v:k=v    MEMTRACK_OPTIONS for both runs
#   fault-exit: N             expected exit status of the normal run (default 0)
#   fault-abort: no           no abort_on_error run (the program finds no error, or its
#                             first "error" is a crash report, which never aborts)
#   fault-untracked: FILE.c   also build FILE.c WITHOUT memtrack, as a shared library
#   fault-cflags: ...         extra compiler flags
#
#   test/fault/run.sh [NAME...]    UPDATE=1 rewrites the expected files (review them!)
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/runner.sh
. "$here/../lib/runner.sh"
top=$TOP
build=${BUILD:-$top/build}
out="$build/fault"
mkdir -p "$out"

# The expected output of the abort run: everything up to the end of the first error
# message (its "ERROR:" line and the indented lines after it).
first_error() {
    awk '
        /^memtrack: ERROR: / { if (seen) exit; seen = 1; print; next }
        seen && !/^memtrack:   / { exit }
        { print }
        END { }' "$1"
}

tests=("$@")
[ ${#tests[@]} -eq 0 ] && tests=($(cd "$here" && ls *.c | grep -v -- '-untracked\.c$' | sed 's/\.c$//'))

for name in "${tests[@]}"; do
    src="$here/$name.c"
    options=$(directive fault options "$src")
    want_exit=$(directive fault exit "$src"); want_exit=${want_exit:-0}
    abort=$(directive fault abort "$src")
    untracked=$(directive fault untracked "$src")
    cflags=$(directive fault cflags "$src")
    bin="$out/$name"
    libs=()
    if [ -n "$untracked" ]; then
        (cd "$here" && $CC -std=gnu11 -g -O0 -fPIC -shared "$untracked" -o "$out/lib$name-untracked.so") \
            2>"$out/$name.build" || { failed "$name" "$out/$name.build"; continue; }
        libs+=(-L"$out" -l"$name-untracked" -Wl,-rpath,"$out")
    fi
    # shellcheck disable=SC2086
    if ! (cd "$here" && $CC -std=gnu11 -g -O0 -Wall -DMEMORY_CONTROL_ON -I"$top/include" \
            -include memtrack.h $cflags "$name.c" "${libs[@]}" -o "$bin" \
            -L"$build" -lmemtrack -Wl,-rpath,"$build" -pthread) 2>"$out/$name.build"; then
        failed "$name" "$out/$name.build"; continue
    fi
    ok=1
    : >"$out/$name.diff"
    # (the braces keep bash's own "Aborted" notice about a program killed by a signal away)
    { (cd "$here" && MEMTRACK_OPTIONS="$options" "$bin" >"$out/$name.out" 2>"$out/$name.err"); } 2>/dev/null
    status=$?
    normalize "$out" <"$out/$name.err" >"$out/$name.err.norm"
    [ "${UPDATE:-0}" = 1 ] && cp "$out/$name.err.norm" "$here/$name.expected"
    diff -u "$here/$name.expected" "$out/$name.err.norm" >>"$out/$name.diff" 2>&1 || ok=0
    if [ "$status" != "$want_exit" ]; then
        echo "exit status $status, expected $want_exit" >>"$out/$name.diff"; ok=0
    fi
    if [ "$abort" != no ]; then
        { (cd "$here" && MEMTRACK_OPTIONS="$options:abort_on_error=1" "$bin" \
            >"$out/$name.abort.out" 2>"$out/$name.abort.err"); } 2>/dev/null
        status=$?
        { first_error "$here/$name.expected"
          echo "memtrack: abort_on_error=1: aborting at the first error"; } >"$out/$name.abort.want"
        normalize "$out" <"$out/$name.abort.err" >"$out/$name.abort.norm"
        if ! grep -q '^memtrack: ERROR: ' "$here/$name.expected"; then
            echo "abort run: $name.expected has no error message (use fault-abort: no)" >>"$out/$name.diff"; ok=0
        fi
        diff -u "$out/$name.abort.want" "$out/$name.abort.norm" >>"$out/$name.diff" 2>&1 || ok=0
        if [ "$status" != 134 ]; then
            echo "abort run: exit status $status, expected 134 (SIGABRT)" >>"$out/$name.diff"; ok=0
        fi
    fi
    if [ $ok = 1 ]; then passed "$name"; else failed "$name" "$out/$name.diff"; fi
done
summary fault
