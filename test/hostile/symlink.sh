# symlink.sh - report paths are never followed through a symbolic link: a link planted where a
# JSON, SARIF or HTML report goes (the classic /tmp clobber) leaves its target alone, a dangling
# one creates nothing, and the warning says why; a report= link is not written through either.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir symlink
cat >prog.c <<'C'
#include <stdlib.h>
int main(void)
{
    (void)malloc(24);
    return 0;
}
C
"$M" cc -g -O0 prog.c -o prog
echo precious >victim
ln -s victim json.link
ln -s missing-target sarif.link
ln -s victim report.link
MEMTRACK_OPTIONS=json=json.link:sarif=sarif.link:html=ok.html ./prog 2>err.txt
[ "$(cat victim)" = precious ] || { echo "the link's target was overwritten"; exit 1; }
[ ! -e missing-target ] || { echo "a dangling link's target was created"; exit 1; }
grep -q "cannot write the JSON report to 'json.link': it is a symbolic link" err.txt ||
    { cat err.txt; exit 1; }
grep -q "cannot write the SARIF report to 'sarif.link': it is a symbolic link" err.txt ||
    { cat err.txt; exit 1; }
grep -q "<html" ok.html # a plain path is written as before
! ls ./*.tmp.* 2>/dev/null # no temporary file left behind
MEMTRACK_OPTIONS=report=report.link ./prog 2>err2.txt
[ "$(cat victim)" = precious ] || { echo "report= wrote through the link"; exit 1; }
grep -q "cannot open report file 'report.link'" err2.txt || { cat err2.txt; exit 1; }
grep -q "24 bytes in 1 block" err2.txt # the report went to stderr instead
