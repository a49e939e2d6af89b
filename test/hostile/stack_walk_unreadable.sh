# stack_walk_unreadable.sh - the frame-pointer walk never faults (issue 25, item 3): code
# built without frame pointers may leave the frame register pointing anywhere in the
# thread's stack, and the program may have made part of its stack unreadable (a coroutine
# stack carved from a thread's own, behind a guard page). Here main makes a page of its own
# stack inaccessible (after the walk learned its stack's bounds), then calls malloc with the
# frame register pointing into that page, once from the main thread and once from a thread
# with a 64 KiB stack doing the same: the program runs to its end (it died of SIGSEGV in the
# walk) and both leaks are reported.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir stack_walk_unreadable
[ "$(uname -m)" = x86_64 ] || { echo "skipped: x86-64 assembly"; exit 0; }
cat >prog.c <<'C'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "call_with_frame.h"

static void *kept[2];

static void *with_guarded_page(void *arg)
{
    (void)arg;
    free(malloc(8)); /* this thread's first walk: its stack's bounds */
    static __thread char unused;
    (void)unused;
    char area[3 * 4096];
    char *page = (char *)(((unsigned long)area + 4095) & ~4095ul);
    if (mprotect(page, 4096, PROT_NONE) != 0) {
        perror("mprotect");
        exit(1);
    }
    void *p = call_malloc_with_frame(24, page + 64);
    mprotect(page, 4096, PROT_READ | PROT_WRITE);
    return p;
}

int main(void)
{
    kept[0] = with_guarded_page(NULL);
    pthread_attr_t attr;
    pthread_t t;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 65536);
    if (pthread_create(&t, &attr, with_guarded_page, NULL) != 0)
        return 1;
    pthread_join(t, &kept[1]);
    puts("survived");
    return 0;
}
C
"$M" cc -g -O0 -pthread -I"$TOP/test/hostile" prog.c -o prog
status=0
./prog >out.txt 2>err.txt || status=$?
[ $status = 0 ] || { echo "status $status, expected 0"; cat err.txt; exit 1; }
grep -q survived out.txt
grep -q '48 bytes leaked in 2 blocks' err.txt || { cat err.txt; exit 1; }
echo "ok: the walks stopped before the unreadable page"
