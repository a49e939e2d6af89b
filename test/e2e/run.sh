#!/bin/bash
# run.sh - end-to-end tests: each NAME.c is a small program built with memtrack; its
# stderr, with addresses and pids normalized, must match NAME.expected line for line.
#
# Directives in a test's first comment block (all optional):
#   e2e-options: k=v:k=v     MEMTRACK_OPTIONS for the run
#   e2e-exit: N              expected exit status (default 0)
#   e2e-cflags: ...          extra compiler flags (default: -include memtrack.h)
#   e2e-link: static         link build/libmemtrack.a instead of the shared library
#   e2e-untracked: FILE.c    also compile FILE.c WITHOUT the flag (a "library")
#   e2e-stdout               stdout must match NAME.stdout too
#   e2e-lang: c++            compile with $CXX
#   e2e-env: K=V             an extra environment variable for the run
#
#   test/e2e/run.sh [NAME...]   UPDATE=1 rewrites the expected files (review the diff!)
#   CXX=clang++ CXXSTD=-std=c++11 E2E_OUT=DIR test/e2e/run.sh ...   another C++ compiler
#   and standard (default -std=c++17), outputs in DIR (default build/e2e)
#   QUICK=1 leaves out the compiler matrix (cxx_matrix.sh: every C++ program with g++ and
#   clang++ at three standards), as make test-quick does
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/runner.sh
. "$here/../lib/runner.sh"
top=$TOP
out=${E2E_OUT:-"$top/build/e2e"}
mkdir -p "$out"
CXXSTD=${CXXSTD:--std=c++17}

tests=("$@")
[ ${#tests[@]} -eq 0 ] && tests=($(cd "$here" && ls *.c *.cpp *.sh 2>/dev/null | grep -v '^run.sh$' \
    | grep -v -- '-untracked\.c$' | sed 's/\.[^.]*$//' | sort -u))
[ "${QUICK:-0}" = 1 ] && [ $# -eq 0 ] && tests=($(printf '%s\n' "${tests[@]}" | grep -v '^cxx_matrix$'))

for name in "${tests[@]}"; do
    if [ -f "$here/$name.sh" ]; then # a script test checks itself
        if (cd "$here" && TOP="$top" OUT="$out" CC="$CC" CXX="$CXX" bash "$name.sh") >"$out/$name.log" 2>&1; then
            passed "$name"
        else
            failed "$name"; tail -40 "$out/$name.log"
        fi
        continue
    fi
    src="$name.c"
    [ -f "$here/$src" ] || src="$name.cpp"
    options=$(directive e2e options "$here/$src")
    want_exit=$(directive e2e exit "$here/$src"); want_exit=${want_exit:-0}
    cflags=$(directive e2e cflags "$here/$src"); cflags=${cflags:--include memtrack.h}
    link=$(directive e2e link "$here/$src")
    untracked=$(directive e2e untracked "$here/$src")
    lang=$(directive e2e lang "$here/$src")
    env_extra=$(directive e2e env "$here/$src")
    compiler=$CC; std=-std=gnu11
    if [ "$lang" = "c++" ] || [ "${src##*.}" = cpp ]; then compiler=$CXX; std=$CXXSTD; fi
    bin="$out/$name"
    objs=()
    if [ -n "$untracked" ]; then # a shared library built WITHOUT memtrack
        (cd "$here" && $CC -std=gnu11 -g -O0 -fPIC -shared "$untracked" -o "$out/lib$name-untracked.so") \
            2>"$out/$name.build" || { failed "$name" "$out/$name.build"; continue; }
        objs+=(-L"$out" -l"$name-untracked" -Wl,-rpath,"$out")
    fi
    if [ "$link" = static ]; then libs=("$top/build/libmemtrack.a" -ldl -pthread)
    else libs=(-L"$top/build" -lmemtrack -Wl,-rpath,"$top/build" -pthread); fi
    # shellcheck disable=SC2086
    if ! (cd "$here" && $compiler $std -g -O0 -Wall -DMEMORY_CONTROL_ON -I"$top/include" $cflags \
            "$src" "${objs[@]}" -o "$bin" "${libs[@]}") 2>"$out/$name.build"; then
        failed "$name" "$out/$name.build"; continue
    fi
    (cd "$here" && env MEMTRACK_OPTIONS="$options" $env_extra "$bin" >"$out/$name.out" 2>"$out/$name.err")
    status=$?
    normalize "$out" <"$out/$name.err" >"$out/$name.err.norm"
    ok=1
    if [ "${UPDATE:-0}" = 1 ]; then
        cp "$out/$name.err.norm" "$here/$name.expected"
        grep -q "e2e-stdout" "$here/$src" && cp "$out/$name.out" "$here/$name.stdout"
    fi
    if ! diff -u "$here/$name.expected" "$out/$name.err.norm" >"$out/$name.diff" 2>&1; then ok=0; fi
    if grep -q "e2e-stdout" "$here/$src" && ! diff -u "$here/$name.stdout" "$out/$name.out" >>"$out/$name.diff" 2>&1; then ok=0; fi
    if [ "$status" != "$want_exit" ]; then
        echo "exit status $status, expected $want_exit" >>"$out/$name.diff"; ok=0
    fi
    if [ $ok = 1 ]; then passed "$name"; else failed "$name" "$out/$name.diff"; fi
done
summary e2e
