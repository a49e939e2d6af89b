# preload_bad_free.sh - under memtrack run --preload every free of the program is checked as in
# header mode: a stack address, an interior pointer and a double free of a block gone back to
# the C library are reported and left alone, and the program runs on (it used to reach glibc,
# which aborts, or crash reading memtrack's fill as a chunk header).
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir preload_bad_free
cat >prog.c <<'C'
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
    int local = 0;
    char *p = malloc(100);
    char *big = malloc(2u << 20);
    free(&local);   /* a stack address */
    free(p + 16);   /* inside a block */
    free(big);
    free(big);      /* its memory is back with the C library */
    free(p);
    puts("still running");
    return 0;
}
C
cc -g -O0 -Wno-free-nonheap-object prog.c -o prog # built without memtrack
status=0
"$M" run --preload ./prog >out.txt 2>err.txt || status=$?
[ $status = 23 ] || { echo "status $status, expected 23 (errors found)"; cat err.txt; exit 1; }
grep -q "still running" out.txt
grep -q "ERROR: free of a stack address" err.txt || { cat err.txt; exit 1; }
grep -q "ERROR: free of a pointer inside block #1 (100 bytes), 16 bytes past its start" err.txt ||
    { cat err.txt; exit 1; }
grep -q "ERROR: double free of block #2 (2097152 bytes)" err.txt || { cat err.txt; exit 1; }
