# no_descriptors.sh - a program that uses up every descriptor before it exits still gets its
# suppressions: the rules are read at start, not at exit, so a suppressed leak stays out of
# the report and exitcode does not fire for it.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir no_descriptors
cat >prog.c <<'C'
#include <fcntl.h>
#include <stdlib.h>
static void *cache_fill(void)
{
    return malloc(64); /* kept on purpose: suppressed */
}
int main(void)
{
    (void)cache_fill();
    while (open("/dev/null", O_RDONLY) >= 0) /* every descriptor taken, and kept */
        ;
    return 0;
}
C
"$M" cc -g -O0 prog.c -o prog
echo 'function:cache_*' >rules.supp
status=0
MEMTRACK_OPTIONS=suppressions=rules.supp:exitcode=9 ./prog 2>err.txt || status=$?
[ $status = 0 ] || { echo "status $status: the suppressed leak was judged"; cat err.txt; exit 1; }
! grep -q "64 bytes" err.txt || { cat err.txt; exit 1; }
