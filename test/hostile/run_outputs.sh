# run_outputs.sh - memtrack run's own outputs: a TMPDIR holding ':' or ',' (which separate
# MEMTRACK_OPTIONS) does not cut the report's path; --json never writes through a symbolic
# link; --sarif to a full disk, and memtrack report --html to one, say so and exit 2.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir run_outputs
cat >prog.c <<'C'
#include <stdlib.h>
int main(void)
{
    return malloc(8) == NULL;
}
C
"$M" cc -g -O0 prog.c -o prog
mkdir -p "tmp:with,marks"
status=0
TMPDIR="$PWD/tmp:with,marks" "$M" run --json r.json ./prog 2>err.txt || status=$?
[ $status = 23 ] || { echo "status $status"; cat err.txt; exit 1; }
grep -q '"format": "memtrack-report"' r.json
echo precious >victim
ln -s victim link.json
status=0
"$M" run --json link.json ./prog 2>err2.txt || status=$?
[ "$(cat victim)" = precious ] || { echo "--json wrote through the link"; exit 1; }
grep -q "is a symbolic link" err2.txt || { cat err2.txt; exit 1; }
status=0
"$M" run --sarif /dev/full ./prog 2>err3.txt || status=$?
[ $status = 2 ] || { echo "--sarif /dev/full: status $status"; cat err3.txt; exit 1; }
grep -q "cannot write /dev/full: No space left on device" err3.txt || { cat err3.txt; exit 1; }
status=0
"$M" report r.json --html /dev/full 2>err4.txt || status=$?
[ $status = 2 ] || { echo "report --html /dev/full: status $status"; exit 1; }
grep -q "cannot write /dev/full: No space left on device" err4.txt || { cat err4.txt; exit 1; }
