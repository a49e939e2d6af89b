# file_size_limit.sh - a file size limit (`ulimit -f`) that the report outgrows must not kill
# the program with SIGXFSZ at exit (status 153): the write stops short, as a full disk's
# does, a warning names the file and the reason, and the program ends as it would.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir file_size_limit
cat >prog.c <<'C'
#include <stdlib.h>
static void *leak_at(int n)
{
    switch (n % 8) { /* eight sites: a report of more than a kilobyte */
    case 0: return malloc(10);
    case 1: return malloc(11);
    case 2: return malloc(12);
    case 3: return malloc(13);
    case 4: return malloc(14);
    case 5: return malloc(15);
    case 6: return malloc(16);
    default: return malloc(17);
    }
}
int main(void)
{
    for (int i = 0; i < 64; i++)
        (void)leak_at(i);
    return 0;
}
C
"$M" cc -g -O0 prog.c -o prog
status=0
# One 1024-byte block: the text report and the JSON report are both bigger.
(ulimit -f 1 && MEMTRACK_OPTIONS=report=report.txt:json=r.json:exitcode=0 exec ./prog) 2>err.txt ||
    status=$?
[ $status = 0 ] || { echo "status $status (153 is SIGXFSZ)"; cat err.txt; exit 1; }
grep -q "warning: cannot write the JSON report to 'r.json': File too large" err.txt ||
    { cat err.txt; exit 1; }
grep -q "warning: cannot write the text report to 'report.txt': File too large" err.txt ||
    { cat err.txt; exit 1; }
[ ! -e r.json ] || { echo "a cut JSON report was left in place"; exit 1; }
grep -q "leaks by site" report.txt # what fitted is there
