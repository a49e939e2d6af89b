# preload_crash.sh - the crash report under --preload tells the program's live blocks from the
# system's without asking the loader (which it may not, in a signal handler): a block the
# program made is listed as its own, not "made inside system libraries".
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir preload_crash
cat >prog.c <<'C'
#include <stdlib.h>
int main(void)
{
    char *keep = malloc(40); /* live when the program crashes */
    keep[0] = 1;
    volatile int *nowhere = NULL;
    *nowhere = 1; /* SIGSEGV */
    return keep[0];
}
C
cc -g -O0 prog.c -o prog # built without memtrack
status=0
"$M" run --preload ./prog >/dev/null 2>err.txt || status=$?
[ $status = 139 ] || { echo "status $status, expected 139 (SIGSEGV)"; cat err.txt; exit 1; }
grep -q "CRASH: SIGSEGV" err.txt || { cat err.txt; exit 1; }
grep -q "40 bytes in 1 block at 0x[0-9a-f]* (prog+0x[0-9a-f]*) by malloc" err.txt ||
    { cat err.txt; exit 1; }
offset=$(sed -n 's/.*40 bytes in 1 block at 0x[0-9a-f]* (prog+\(0x[0-9a-f]*\)).*/\1/p' err.txt)
# a return address: the call is the byte before it
line=$(addr2line -e prog "$(printf '0x%x' $((offset - 1)))")
[ "${line##*/}" = "prog.c:4" ] || { echo "prog+$offset is $line, not prog.c:4"; exit 1; }
