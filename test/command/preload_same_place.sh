# preload_same_place.sh - sites known by return address that print the same are one line of
# the report, as sites the macros named are; and a site in a function inlined into others
# shows the function it was inlined into (issue 15: eight lines all reading "api.c:33 in
# yaml_malloc()" named no caller). grab() is inlined four times into three functions, two
# of them on one line of d(): four return addresses, three texts, three groups.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir preload_same_place
cat >inl.c <<'C'
#include <stdlib.h>
static inline __attribute__((always_inline)) void *grab(size_t n) { return malloc(n); }
void *a(void);
void *b(void);
void *d(void);
void *a(void) { return grab(10); }
void *b(void) { return grab(20); }
void *d(void) { void *p = grab(30); return p != NULL ? grab(40) : p; }
int main(void) { return !(a() && b() && d()); }
C
cc -O1 -g -fno-optimize-sibling-calls inl.c -o inl # built without memtrack
# grab() does nothing but allocate, for three callers: the rule shows its blocks at them.
status=0
"$M" run --preload ./inl 2>err.txt || status=$?
[ $status = 23 ]
grep -qxF "memtrack: 100 bytes leaked in 4 blocks from 3 sites; 0 errors found" err.txt &&
    grep -qxF "memtrack:   70 bytes in 2 blocks at inl.c:8 in d() by malloc: #3, #4" err.txt &&
    grep -qxF "memtrack:   20 bytes in 1 block at inl.c:7 in b() by malloc: #2" err.txt &&
    grep -qxF "memtrack:   10 bytes in 1 block at inl.c:6 in a() by malloc: #1" err.txt &&
    grep -qF "memtrack:   shown at their callers: grab() (inl.c:2, an allocation wrapper" err.txt ||
    { cat err.txt; exit 1; }
# Without the rule, grab()'s line, with the line that inlined it under it.
status=0
MEMTRACK_OPTIONS=wrappers=0 "$M" run --preload ./inl 2>err.txt || status=$?
[ $status = 23 ]
sed -n '/leaks by site/,$p' err.txt >got.txt
cat >want.txt <<'T'
memtrack: leaks by site, largest first:
memtrack:   70 bytes in 2 blocks at inl.c:2 in grab() by malloc: #3, #4
memtrack:       inlined into inl.c:8 in d()
memtrack:   20 bytes in 1 block at inl.c:2 in grab() by malloc: #2
memtrack:       inlined into inl.c:7 in b()
memtrack:   10 bytes in 1 block at inl.c:2 in grab() by malloc: #1
memtrack:       inlined into inl.c:6 in a()
memtrack:   stacks: most call stacks stop before main: code built without frame pointers cuts them short; build it with -fno-omit-frame-pointer (as memtrack cc does) or run with MEMTRACK_OPTIONS=unwind=exact
T
diff -u want.txt got.txt
