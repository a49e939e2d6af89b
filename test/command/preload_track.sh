# preload_track.sh - memtrack run --preload over a test driver tracks and judges the
# programs under test only: by default the program named and the processes running the
# same executable, with --track GLOB the processes it names (not the driver), and with
# --follow-all every process, as before (a shell tool the driver runs that leaks too).
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir preload_track
cat >driver.c <<'C'
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "again") == 0) { /* the same binary, run by itself */
        (void)malloc(11);
        return 0;
    }
    (void)malloc(13); /* the driver's own */
    return system("./tool") != 0 || system("./unit_leaky") != 0 ||
           system("./driver again") != 0;
}
C
cat >leaky.c <<'C'
#include <stdlib.h>
int main(void) { return malloc(LEAK) == NULL; }
C
cc -g -O0 -w driver.c -o driver
cc -g -O0 -w -DLEAK=77 leaky.c -o unit_leaky
cc -g -O0 -w -DLEAK=5 leaky.c -o tool
leakers() { # the processes the summary names, one program a line, sorted
    grep '^memtrack: run: .* (pid' "$1" | sed 's/^memtrack: run: \([^ ]*\) (pid [0-9]*): \([0-9]*\) bytes.*/\1 \2/' | sort
}

# Default: the driver (13 bytes) and its second run of itself (11), not ./tool nor the test.
status=0
"$M" run --preload -- ./driver >out.txt 2>err.txt || status=$?
[ $status = 23 ] || { echo "status $status"; cat err.txt; exit 1; }
[ "$(leakers err.txt)" = "$(printf './driver 11\n./driver 13')" ] || { echo "default:"; cat err.txt; exit 1; }
! grep -q '77 bytes\|  5 bytes' err.txt || { echo "untracked processes reported:"; cat err.txt; exit 1; }

# --track: the tests only; the driver's own 13 bytes are not judged.
status=0
"$M" run --preload --track 'unit_*' -- ./driver >out.txt 2>err.txt || status=$?
[ $status = 23 ] || { echo "status $status"; cat err.txt; exit 1; }
grep -q '77 bytes in 1 block at leaky.c:2 in main() by malloc' err.txt || { cat err.txt; exit 1; }
! grep -q '13 bytes\|11 bytes\|  5 bytes' err.txt || { echo "--track reported others:"; cat err.txt; exit 1; }

# A --track that matches nothing and a clean run: nothing to judge, said plainly.
cat >clean.c <<'C'
int main(void) { return 0; }
C
cc clean.c -o clean
status=0
"$M" run --preload --track 'nothing_*' -- ./clean 2>err.txt || status=$?
[ $status = 2 ] && grep -q "no process matched --track" err.txt || { echo "status $status"; cat err.txt; exit 1; }

# --follow-all: every process, the tool's 5 bytes included.
status=0
"$M" run --preload --follow-all -- ./driver >out.txt 2>err.txt || status=$?
[ $status = 23 ] || { echo "status $status"; cat err.txt; exit 1; }
[ "$(leakers err.txt | grep -c .)" = 4 ] || { echo "--follow-all:"; cat err.txt; exit 1; }
grep -q '^memtrack: run: ./tool (pid [0-9]*): 5 bytes' err.txt || { cat err.txt; exit 1; }
rm -rf "${TMPDIR:-/tmp}"/memtrack.* 2>/dev/null || true
echo "preload_track: ok"
