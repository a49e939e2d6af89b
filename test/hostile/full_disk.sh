# full_disk.sh - a report file that cannot be written (a full disk: /dev/full) gets a warning
# naming the file and the reason; the program still ends as it would.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir full_disk
cat >prog.c <<'C'
#include <stdlib.h>
int main(void)
{
    (void)malloc(24);
    return 0;
}
C
"$M" cc -g -O0 prog.c -o prog
MEMTRACK_OPTIONS=json=/dev/full:html=/dev/full ./prog 2>err.txt
grep -q "warning: cannot write the JSON report to '/dev/full': No space left on device" err.txt ||
    { cat err.txt; exit 1; }
grep -q "warning: cannot write the HTML report to '/dev/full': No space left on device" err.txt ||
    { cat err.txt; exit 1; }
[ -c /dev/full ] # still the device
