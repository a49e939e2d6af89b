# reused_stderr.sh - a program that closes stderr and opens a data file, which gets
# descriptor 2, must not find memtrack's messages or report in that file: descriptor 2 is
# written only while it is the stderr the process started with, or a terminal or a file
# opened for appending (a log) that the program put there. The errors are still in the
# JSON report. A program that keeps its stderr gets the messages there as usual.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir reused_stderr
cat >prog.c <<'C'
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "log") == 0) { /* stderr sent to a log on purpose */
        if (freopen("log.txt", "a", stderr) == NULL)
            return 1;
    } else if (argc > 1) { /* a tool that writes its data to whatever descriptor it gets */
        close(2);
        int db = open("data.db", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (db != 2 || write(db, "rows\n", 5) != 5)
            return 1;
    }
    char *p = malloc(4);
    memcpy(p, "12345", 5); /* an overrun, found by the free: a message */
    free(p);
    (void)malloc(16); /* a leak for the exit report */
    return 0;
}
C
"$M" cc -g -O0 prog.c -o prog
MEMTRACK_OPTIONS=json=r.json:exitcode=0 ./prog reuse 2>err.txt
[ "$(cat data.db)" = rows ] || { echo "memtrack wrote into the program's file:"; cat data.db; exit 1; }
[ ! -s err.txt ] || { cat err.txt; exit 1; } # nothing went to the old stderr either
grep -q '"kind": "overrun"' r.json || { cat r.json; exit 1; }
grep -q '"bytes": 16' r.json
# a log the program appends its stderr to (freopen(..., "a", stderr)) is a place for
# messages: they go there, and not to the old stderr
MEMTRACK_OPTIONS=exitcode=0 ./prog log 2>err.txt
[ ! -s err.txt ] || { cat err.txt; exit 1; }
grep -q "ERROR: overrun" log.txt || { cat log.txt; exit 1; }
grep -q "16 bytes in 1 block" log.txt || { cat log.txt; exit 1; }
# the control: the same program keeping its stderr gets the message and the report there
MEMTRACK_OPTIONS=exitcode=0 ./prog 2>err.txt
grep -q "ERROR: overrun" err.txt || { cat err.txt; exit 1; }
grep -q "16 bytes in 1 block" err.txt || { cat err.txt; exit 1; }
