# small_stacks.sh - errors found in a thread with a small stack (32 KiB, as job threads of
# engines and servers have) are reported as in any thread: an overrun found by free, a
# double free and a fault at a page guard, each with file and line (the symbols are looked
# up on a stack of the tracker's own). A thread that overflows its 64 KiB stack after its
# first tracked block gets the crash report (an alternate signal stack of its own).
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir small_stacks
cat >prog.c <<'C'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int deeper(volatile char *above)
{
    volatile char frame[512];
    frame[0] = above[0];
    return deeper(frame) + frame[1]; /* never ends: the stack overflows */
}
static void *job(void *arg)
{
    const char *what = arg;
    char *p = malloc(8);
    p[0] = 0;
    if (strcmp(what, "overrun") == 0 || strcmp(what, "guard") == 0) {
        p[8] = 1; /* found by free, or at once by the page guard */
        free(p);
    } else if (strcmp(what, "double") == 0) {
        free(p);
        free(p);
    } else {
        return (void *)(long)deeper(p);
    }
    return NULL;
}
int main(int argc, char **argv)
{
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, strcmp(argv[1], "overflow") == 0 ? 65536 : 32768);
    pthread_t t;
    if (argc < 2 || pthread_create(&t, &a, job, argv[1]) != 0)
        return 2;
    pthread_join(t, NULL);
    puts("done");
    return 0;
}
C
"$M" cc -g -O0 prog.c -o prog
check() { # NAME STATUS PATTERN [OPTIONS]
    local status=0
    MEMTRACK_OPTIONS="exitcode=0${4:+:$4}" ./prog "$1" >out.txt 2>err.txt || status=$?
    [ $status = "$2" ] || { echo "$1: status $status, expected $2"; cat err.txt; exit 1; }
    grep -q "$3" err.txt || { echo "$1: no '$3' in:"; cat err.txt; exit 1; }
}
check overrun 0 "ERROR: overrun after block #[0-9]* (8 bytes)"
grep -q "found by free at prog.c:18 in job()" err.txt || { cat err.txt; exit 1; }
check double 0 "ERROR: double free of block #[0-9]* (8 bytes)"
grep -q "found by free at prog.c:21 in job()" err.txt || { cat err.txt; exit 1; }
check guard 0 "ERROR: overrun (write) of block #[0-9]* (8 bytes) at offset 8, by job() at prog.c:17" \
    page_guard_site=prog.c:14
check overflow 139 "CRASH: SIGSEGV at address"
grep -q "8 bytes in 1 block at prog.c:14 in job() by malloc" err.txt || { cat err.txt; exit 1; }
