# preload_quick_exit.sh - a program that ends by _exit (dash always does: every
# `memtrack run --preload -- sh -c ...` failed with status 2, "tracked but wrote no report")
# writes its report there: its leak at its line, its live frames read as roots, the stdio
# buffer _exit skips left unwritten. Not a vfork or fork child's _exit (its memory is the
# parent's, or a copy of it: no report of its own), nor an _exit in a signal handler, which
# may have interrupted what holds a lock the report takes: that one ends at once, as before.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir preload_quick_exit
cat >quick.c <<'C'
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
static void leave(int sig) { _exit(sig); }
int main(int argc, char **argv)
{
    char *held = malloc(24); /* on main's frame only: read as a root */
    (void)malloc(10);        /* lost */
    if (vfork() == 0)
        _exit(0); /* the vfork child: no report */
    if (fork() == 0)
        _exit(0); /* the fork child: no report */
    int status;
    while (wait(&status) > 0)
        ;
    printf("skipped"); /* buffered in a pipe, and _exit skips it */
    if (argc > 1) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = leave;
        sigaction(SIGUSR1, &sa, NULL);
        raise(SIGUSR1); /* _exit(10) in the handler */
    }
    _exit(held == NULL);
}
C
cc -g -O0 -Wno-unused-result quick.c -o quick # built without memtrack, as --preload runs it
status=0
"$M" run --preload -- ./quick >out.txt 2>err.txt || status=$?
[ $status = 23 ] || { echo "status $status"; cat err.txt; exit 1; }
[ "$(grep -c '^memtrack: report for' err.txt)" = 1 ] ||
    { echo "not one report (vfork or fork children reported?):"; cat err.txt; exit 1; }
grep -qxF 'memtrack: 10 bytes leaked in 1 block from 1 site; 0 errors found' err.txt &&
    grep -qxF 'memtrack:   10 bytes in 1 block at quick.c:11 in main() by malloc: #2' err.txt ||
    { echo "the leak is not reported at its line:"; cat err.txt; exit 1; }
[ ! -s out.txt ] || { echo "the output _exit skips was written:"; cat out.txt; exit 1; }
# without the tracker's own signal handlers the C library's trampoline is known all the same
status=0
"$M" run --preload --options crash_report=0:page_guard_rate=0 -- ./quick >out.txt 2>err.txt ||
    status=$?
[ $status = 23 ] && grep -qxF 'memtrack: 10 bytes leaked in 1 block from 1 site; 0 errors found' err.txt ||
    { echo "crash_report=0:page_guard_rate=0: status $status"; cat err.txt; exit 1; }
# dash ends by _exit
status=0
"$M" run --preload -- sh -c 'echo hi' >out.txt 2>err.txt || status=$?
[ $status = 0 ] && [ "$(cat out.txt)" = hi ] && [ ! -s err.txt ] ||
    { echo "sh -c: status $status"; cat err.txt; exit 1; }
# _exit in a signal handler: no report, the program's status
status=0
"$M" run --preload -- ./quick handler >out.txt 2>err.txt || status=$?
[ $status = 10 ] && ! grep -q '^memtrack: report for' err.txt ||
    { echo "_exit in a handler: status $status"; cat err.txt; exit 1; }
echo "preload_quick_exit: ok"
