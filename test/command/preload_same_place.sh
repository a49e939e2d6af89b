# preload_same_place.sh - sites known by return address that print the same place are one
# line of the report, as sites the macros named are: an allocator wrapper inlined into three
# functions gives three return addresses but one "inl.c:2 in grab()".
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir preload_same_place
cat >inl.c <<'C'
#include <stdlib.h>
static inline __attribute__((always_inline)) void *grab(size_t n) { return malloc(n); }
void *a(void);
void *b(void);
void *c(void);
void *a(void) { return grab(10); }
void *b(void) { return grab(20); }
void *c(void) { return grab(30); }
int main(void) { return !(a() && b() && c()); }
C
cc -O1 -g -fno-optimize-sibling-calls inl.c -o inl # built without memtrack
status=0
"$M" run --preload ./inl 2>err.txt || status=$?
[ $status = 23 ]
grep -q "60 bytes in 3 blocks at inl.c:2 in grab() by malloc: #1, #2, #3" err.txt ||
    { cat err.txt; exit 1; }
[ "$(grep -c 'in grab()' err.txt)" = 1 ] || { cat err.txt; exit 1; }
