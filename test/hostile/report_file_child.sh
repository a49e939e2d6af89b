# report_file_child.sh - a tracked program that starts a tracked child with the same options
# (report=FILE) keeps its own messages: the child appends to the file instead of emptying it.
# A later run of its own still starts the file afresh.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir report_file_child
cat >prog.c <<'C'
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
    if (argc > 1) { /* the child: one leak */
        (void)malloc(11);
        return 0;
    }
    char *p = malloc(4);
    memcpy(p, "12345", 5); /* the parent's error, written to the file at once */
    free(p);
    if (system("./prog child") != 0)
        return 1;
    (void)malloc(22);
    return 0;
}
C
"$M" cc -g -O0 prog.c -o prog
MEMTRACK_OPTIONS=report=report.txt ./prog
grep -q "ERROR: overrun after block #1" report.txt || { echo "the parent's message is gone"; cat report.txt; exit 1; }
grep -q "11 bytes in 1 block" report.txt || { cat report.txt; exit 1; }
grep -q "22 bytes in 1 block" report.txt || { cat report.txt; exit 1; }
# (a later run: one that starts after the file was last written, by more than the tick of a
# process's start time; base/report_file.c)
touch -d '1 minute ago' report.txt
MEMTRACK_OPTIONS=report=report.txt ./prog child
[ "$(grep -c 'report for' report.txt)" = 1 ] || { echo "a new run did not start afresh"; cat report.txt; exit 1; }
