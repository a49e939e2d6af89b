# preload_stacks.sh - under memtrack run --preload, a realloc of a block already made has the
# stack of its call (the entry point handed its own frame to a function that could jump and
# reuse it: the stack came out empty), and a double free names the stacks of both frees.
# The program is built without memtrack, with frame pointers and -g.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir preload_stacks
cat >prog.c <<'C'
#include <stdlib.h>
#include <string.h>
static char *kept;
__attribute__((noinline)) static void grow(size_t n)
{
    kept = realloc(kept, n);
    memset(kept, 0, n);
}
__attribute__((noinline)) static void drop(char *p)
{
    free(p);
    __asm__ volatile("" ::: "memory");
}
int main(void)
{
    grow(10);
    grow(100);
    char *twice = malloc(8);
    drop(twice);
    drop(twice);
    return 0;
}
C
cc -g -O0 -fno-omit-frame-pointer prog.c -o prog # built without memtrack
status=0
# (leaks=all: the realloc'd block is held by a global, which --preload leaves out)
"$M" run --preload --options leaks=all ./prog >/dev/null 2>err.txt || status=$?
[ $status = 23 ] || { echo "status $status"; cat err.txt; exit 1; }
grep -A1 -E '^memtrack:   100 bytes in 1 block at prog\.c:6 in grow\(\) by realloc: #' err.txt |
    grep -qE '^memtrack: +from prog\.c:17 in main\(\)$' || { cat err.txt; exit 1; }
# drop() only frees what it is given: seen through, both frees at main's lines
grep -A5 'ERROR: double free of block' err.txt >double.txt
grep -q '^memtrack:   freed at prog.c:19 in main() by free$' double.txt &&
    grep -q '^memtrack:   found by free at prog.c:20 in main()$' double.txt || { cat err.txt; exit 1; }
echo "ok: realloc's stack, and both frees"
