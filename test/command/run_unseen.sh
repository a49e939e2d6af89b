# run_unseen.sh - memtrack run tells the user of every leak and error the program's own
# output could not: a program that closes its standard error before it exits (every
# coreutils program does, from atexit) or sends it elsewhere gets its report shown from its
# JSON, errors listed; a leaking child of a script whose stderr went to /dev/null is named
# with its pid and kept report; and a program that wrote no report is told apart: tracked
# but out of descriptors at exit (its warning says so) is not "not built with memtrack".
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir run_unseen
cat >prog.c <<'C'
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static void close_stderr(void)
{
    close(STDERR_FILENO); /* as gnulib's close_stdout does */
}
int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    char *p = malloc(4);
    if (strcmp(what, "closes") == 0) {
        atexit(close_stderr);
        close(STDERR_FILENO); /* the overrun's message is lost too */
    } else if (strcmp(what, "redirects") == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, STDERR_FILENO);
    } else if (strcmp(what, "no-descriptors") == 0) {
        while (open("/dev/null", O_RDONLY) >= 0) /* every descriptor taken, and kept */
            ;
    }
    memcpy(p, "12345", 5); /* an overrun, found at free */
    free(p);
    (void)malloc(11); /* a leak */
    return 0;
}
C
"$M" cc -g -O0 prog.c -o prog
cc -g -O0 prog.c -o plain
run() { # run STATUS ARGS...: memtrack run, its stderr in run.err
    local want=$1 got=0
    shift
    "$M" run "$@" >/dev/null 2>run.err || got=$?
    [ "$got" = "$want" ] || { echo "memtrack run $*: status $got, expected $want"; cat run.err; exit 1; }
}

run 23 ./prog closes
grep -qx 'memtrack: run: ./prog (pid [0-9]*) could not print its report: it had closed its standard error before it exited; here it is, from its JSON report:' run.err
grep -qx 'memtrack: report for ./prog (pid [0-9]*)' run.err
grep -qx 'memtrack:   11 bytes in 1 block at prog.c:25 in main() by malloc: #2' run.err
grep -q '^memtrack:   overrun: block #1 (4 bytes) allocated at prog.c:12 in main(), found by free at prog.c:24 in main()' run.err

# A file the program put on descriptor 2 gets none of memtrack's words (issue 25, item 10).
run 23 ./prog redirects
grep -qx "memtrack: run: ./prog (pid [0-9]*) could not print its report: it had put a file of its own in place of its standard error, which memtrack never writes into; here it is, from its JSON report:" run.err
grep -qx 'memtrack:   11 bytes in 1 block at prog.c:25 in main() by malloc: #2' run.err
# A program started with its standard error elsewhere prints its report there.
run 23 sh -c 'exec ./prog 2>/dev/null'
grep -qx "memtrack: run: ./prog (pid [0-9]*) printed its report where memtrack run's standard error is not (its own was redirected); here it is, from its JSON report:" run.err
grep -qx 'memtrack:   11 bytes in 1 block at prog.c:25 in main() by malloc: #2' run.err

# Seen reports are not shown twice.
run 23 ./prog
[ "$(grep -c '^memtrack: report for' run.err)" = 1 ] || { cat run.err; exit 1; }
! grep -q 'here it is' run.err

# A script's one leaking child, its stderr thrown away: named, its report kept.
run 23 sh -c './prog 2>/dev/null; exit 0'
line=$(grep '^memtrack: run: ./prog (pid [0-9]*): 11 bytes leaked in 1 block, 1 error; its report: ' run.err) ||
    { cat run.err; exit 1; }
report=${line##*its report: }
[ -f "$report" ] || { echo "its report is gone: $report"; exit 1; }
rm -rf "$(dirname "$report")"

# No report: tracked but out of descriptors, against not built with memtrack at all.
run 2 ./prog no-descriptors
grep -q "^memtrack: warning: cannot write the JSON report to '.*': Too many open files" run.err
grep -q '^memtrack: run: ./prog (pid [0-9]*) is tracked but wrote no report: it ended by _exit or exec, or could not write it (no file descriptor left' run.err
! grep -q 'not built with memtrack' run.err
run 2 ./plain
grep -q '^memtrack: run: ./plain wrote no report: it is not built with memtrack' run.err
