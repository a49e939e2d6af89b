# cmd_run.sh - `memtrack run`: exit status 0 for a clean run and 23 (or --exitcode) when
# leaks or errors were found; the program's own failure status wins; the text report is
# shown and --json/--sarif/--html are written; options reach the library; stdin and
# arguments reach the program; the program's report is told apart from its children's;
# bad usage gets a clear message and status 2.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir cmd_run
cat >prog.c <<'C'
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "clean";
    if (strcmp(what, "clean") == 0) {
        free(malloc(10));
    } else if (strcmp(what, "leak") == 0) {
        (void)malloc(40);
        (void)malloc(2);
    } else if (strcmp(what, "fail") == 0) {
        (void)malloc(40);
        return 3;
    } else if (strcmp(what, "abort") == 0) {
        (void)malloc(40);
        /* a shell that starts jobs in the background leaves SIGINT ignored: die of it
         * whatever the test was started from */
        signal(SIGINT, SIG_DFL);
        raise(SIGINT);
    } else if (strcmp(what, "overrun") == 0) {
        char *p = malloc(4);
        memcpy(p, "12345", 5);
        free(p);
    } else if (strcmp(what, "echo") == 0) {
        char line[100];
        for (int i = 2; i < argc; i++)
            printf("[%s]", argv[i]);
        if (fgets(line, sizeof line, stdin) != NULL)
            printf("%s", line);
    } else if (strcmp(what, "fork") == 0) {
        (void)malloc(100);
        if (fork() == 0) {
            (void)malloc(7);
            exit(0);
        }
        wait(NULL);
    }
    return 0;
}
C
"$M" cc -g prog.c -o prog
cc -g prog.c -o plain

run() { # run EXPECTED_STATUS ARGS... ; stderr in run.err, stdout in run.out
    want=$1
    shift
    got=0
    "$M" run "$@" >run.out 2>run.err </dev/null || got=$?
    [ "$got" = "$want" ] || { echo "memtrack run $*: status $got, expected $want"; cat run.err; exit 1; }
}

run 0 -- ./prog clean
[ ! -s run.err ] || { echo "a clean run printed:"; cat run.err; exit 1; }
run 23 -- ./prog leak
grep -qx 'memtrack: 42 bytes leaked in 2 blocks from 2 sites; 0 errors found' run.err
run 23 ./prog overrun # errors count as much as leaks; -- is optional
grep -q '^memtrack: ERROR: overrun after block #1 (4 bytes)' run.err
run 7 --exitcode 7 ./prog leak
run 0 --exitcode=0 ./prog leak
grep -q 'bytes leaked' run.err # still reported
run 3 ./prog fail             # the program's failure wins over the leak
grep -q '40 bytes leaked' run.err
run 130 ./prog abort          # killed by SIGINT: 128 + 2, no report possible
# A program built without memtrack is not silently passed
run 2 ./plain clean
grep -q 'wrote no report: it is not built with memtrack (build it with memtrack cc' run.err
# One that loads libmemtrack and leaves by exec (of a program without it) is told apart
printf '#include <unistd.h>\nint main(void) { execl("/bin/true", "true", (char *)0); return 1; }\n' >by_exec.c
"$M" cc by_exec.c -o by_exec
run 2 ./by_exec
grep -q 'by_exec (pid [0-9]*) is tracked but wrote no report: it ended by _exit or exec' run.err
# One that leaves by _exit writes its report (preload_quick_exit.sh)
printf '#include <unistd.h>\nint main(void) { _exit(0); }\n' >quick_exit.c
"$M" cc quick_exit.c -o quick_exit
run 0 ./quick_exit
[ ! -s run.err ] || { echo "a clean run ending by _exit printed:"; cat run.err; exit 1; }

# The report files
run 23 --json r.json --sarif r.sarif --html r.html ./prog leak
python3 -c 'import json,sys; r=json.load(open("r.json")); assert r["leaks"]["bytes"] == 42, r["leaks"]'
python3 -c 'import json; s=json.load(open("r.sarif")); assert s["version"] == "2.1.0"; assert len(s["runs"][0]["results"]) == 2'
head -1 r.html | grep -qx '<!DOCTYPE html>'
grep -q 'id="leak-table"' r.html
# --json=FILE form too, and a clean run writes a clean report
run 0 --json=clean.json ./prog clean
python3 -c 'import json; r=json.load(open("clean.json")); assert r["leaks"]["blocks"] == 0 and r["errors"]["total"] == 0'

# Options reach the library: --options and the user's own MEMTRACK_OPTIONS
run 23 --options report_sites=1 ./prog leak
grep -qx 'memtrack:   ... and 1 more site: 2 bytes in 1 block (option report_sites)' run.err
MEMTRACK_OPTIONS=verbose=1 run 0 ./prog clean
grep -q '^memtrack: no leaks, no errors' run.err

# stdin and arguments reach the program untouched
got=0
printf 'from stdin\n' | "$M" run ./prog echo 'two words' '*' '' >run.out 2>run.err || got=$?
[ $got = 0 ] || { cat run.err; exit 1; }
[ "$(cat run.out)" = '[two words][*][]from stdin' ] || { echo "got: $(cat run.out)"; exit 1; }

# After fork, parent and child each report; --json is the program's own report
run 23 --json fork.json ./prog fork
[ "$(grep -c '^memtrack: report for' run.err)" = 2 ]
python3 -c 'import json; r=json.load(open("fork.json")); assert r["leaks"]["bytes"] == 100, r["leaks"]'

# Bad usage
run 2 --frobnicate ./prog
grep -q "unknown option '--frobnicate'" run.err
run 2 --exitcode lots ./prog
grep -q 'exitcode takes a number from 0 to 255' run.err
run 2 --exitcode 256 ./prog
run 2 --json
grep -q 'json needs a value' run.err
run 2
grep -q 'which program?' run.err
run 127 ./no-such-program
grep -q 'no-such-program: command not found' run.err
echo "cmd_run: ok"
