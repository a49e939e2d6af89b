# run_summary.sh - memtrack run over a program that starts other tracked processes (a test
# driver) ends with a line per process that leaked or erred: its program, pid, what it leaked
# and where its full report is (kept); the exit status says leaks were found.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir run_summary
cat >driver.c <<'C'
#include <stdlib.h>
int main(void)
{
    /* a clean driver running two tests, one of which leaks */
    return system("./unit clean") != 0 || system("./unit leaky") != 0;
}
C
cat >unit.c <<'C'
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "leaky") == 0)
        (void)malloc(77);
    return 0;
}
C
"$M" cc -g -O0 driver.c -o driver
"$M" cc -g -O0 unit.c -o unit
status=0
"$M" run ./driver 2>err.txt || status=$?
[ $status = 23 ] || { echo "status $status"; cat err.txt; exit 1; }
line=$(grep '^memtrack: run: ./unit (pid [0-9]*): 77 bytes leaked in 1 block, 0 errors; its report: ' err.txt) ||
    { cat err.txt; exit 1; }
[ "$(grep -c '^memtrack: run: .* (pid' err.txt)" = 1 ] # only the process with findings
report=${line##*its report: }
[ -f "$report" ] || { echo "its report is gone: $report"; exit 1; }
grep -q '"bytes": 77' "$report"
rm -rf "$(dirname "$report")"
