# suppressions_fifo.sh - a suppressions file that is a FIFO nobody writes to must not block the
# program at exit, and a directory is refused with a plain reason: only regular files are read.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir suppressions_fifo
cat >prog.c <<'C'
#include <stdlib.h>
int main(void)
{
    (void)malloc(24);
    return 0;
}
C
"$M" cc -g -O0 prog.c -o prog
mkfifo rules.fifo
mkdir rules.dir
status=0
MEMTRACK_OPTIONS=suppressions=rules.fifo timeout 20 ./prog 2>err.txt || status=$?
[ $status = 0 ] || { echo "status $status (124: it hung)"; cat err.txt; exit 1; }
grep -q "suppressions rules.fifo: cannot read it: it is not a regular file" err.txt ||
    { cat err.txt; exit 1; }
grep -q "24 bytes in 1 block" err.txt # the report is still there
MEMTRACK_OPTIONS=suppressions=rules.dir ./prog 2>err2.txt
grep -q "suppressions rules.dir: cannot read it: it is not a regular file" err2.txt ||
    { cat err2.txt; exit 1; }
