# cmd_cc.sh - `memtrack cc` and `memtrack c++` in every way a build calls a compiler:
# compile only (-c, -S, -E, -M), link only, compile and link at once, -o, -shared,
# response files, preprocessed assembler, queries (--version), the real compiler from
# MEMTRACK_CC, and a clear refusal of -static.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir cmd_cc
cat >leak.c <<'C'
#include <stdlib.h>
void *keep(int n);
void *keep(int n) { return malloc((size_t)n); }
C
cat >main.c <<'C'
void *keep(int n);
int main(void) { return keep(12) == 0; }
C
leak_line='memtrack:   12 bytes in 1 block at leak.c:3 in keep() by malloc: #1'
expect_report() { # expect_report PROGRAM
    "./$1" 2>"$1.err" || { echo "$1 failed"; cat "$1.err"; exit 1; }
    grep -qxF "$leak_line" "$1.err" || { echo "$1: no leak at leak.c:3"; cat "$1.err"; exit 1; }
}

# compile only: an object that calls the tracker, and nothing linked
"$M" cc -c leak.c -o leak.o
nm leak.o | grep -q ' U memtrack_malloc_at'
"$M" cc -c main.c # -o left out: main.o
[ -f main.o ]
# -S, -E, -M: assembler text, preprocessed text, dependencies (the header is one)
"$M" cc -S leak.c -o leak.s
grep -q memtrack_malloc_at leak.s
"$M" cc -E leak.c | grep -q 'memtrack_malloc_at'
"$M" cc -M leak.c | grep -q 'memtrack.h'
# link only, from objects
"$M" cc leak.o main.o -o linked
expect_report linked
# compile and link at once, and mixed sources and objects
"$M" cc leak.c main.c -o together
expect_report together
"$M" cc leak.c main.o -o mixed
expect_report mixed
# a shared library that needs libmemtrack and finds it
"$M" cc -shared -fPIC leak.c -o libleak.so
readelf -d libleak.so | grep -q 'NEEDED.*libmemtrack.so'
readelf -d libleak.so | grep -Eq 'R(UN)?PATH'
cc main.c -L. -lleak -Wl,-rpath,"$d" -o viaso
expect_report viaso
# response files, as the compiler reads them: the mode is found inside
printf -- '-c leak.c\n-o rsp.o\n' >compile.rsp
"$M" cc @compile.rsp
nm rsp.o | grep -q ' U memtrack_malloc_at'
printf -- 'rsp.o main.o -o rsplinked\n' >link.rsp
"$M" cc @link.rsp
expect_report rsplinked
# preprocessed assembler gets the header too, and must still assemble
printf '.globl asm_entry\nasm_entry:\n    ret\n' >entry.S
"$M" cc -c entry.S -o entry.o
# queries pass through untouched
[ "$("$M" cc --version)" = "$(cc --version)" ]
[ "$("$M" cc -dumpmachine)" = "$(cc -dumpmachine)" ]
# the real compiler comes from MEMTRACK_CC
MEMTRACK_CC=clang "$M" cc -c leak.c -o clang.o
readelf -p .comment clang.o | grep -qi clang
# C++ through memtrack c++ (the real one from MEMTRACK_CXX)
cat >prog.cpp <<'C'
#include <cstdlib>
#include <string>
int main() { std::string s("x"); return std::malloc(s.size() + 20) == nullptr; }
C
"$M" c++ -std=c++17 prog.cpp -o cxx
./cxx 2>cxx.err || true
grep -qxF 'memtrack:   21 bytes in 1 block at prog.cpp:3 in main() by malloc: #1' cxx.err ||
    { cat cxx.err; exit 1; }
# -static cannot work (the C library's malloc would be linked twice): said plainly
status=0
"$M" cc -static leak.c main.c -o static 2>static.err || status=$?
[ $status = 2 ]
grep -q -- '-static is not supported' static.err
echo "cmd_cc: ok"
