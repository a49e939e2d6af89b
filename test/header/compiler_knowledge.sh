# compiler_knowledge.sh - with the header, the compiler still knows what the C library's
# declarations tell it: the entry points carry malloc, alloc_size and alloc_align, so gcc
# still warns about an overflow of a block it can see the size of (at the same line as
# without memtrack), and _FORTIFY_SOURCE still aborts at the copy that overflows, with gcc
# and clang (it used to go unseen until the free).
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir compiler_knowledge
cat >warn.c <<'C'
#include <stdlib.h>
#include <string.h>
char *make(void);
char *make(void)
{
    char *p = malloc(4);
    if (p != NULL)
        memset(p, 0, 8); /* 8 bytes into 4 */
    return p;
}
C
cat >fortify.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void)
{
    char *p = malloc(4);
    strcpy(p, "hello"); /* 6 bytes into 4 */
    puts(p);
    free(p);
    return 0;
}
C
tracked="-DMEMORY_CONTROL_ON -include memtrack.h -I$TOP/include"
libs="-L$TOP/build -lmemtrack -Wl,-rpath,$TOP/build"
warned() { # the lines gcc warns at
    gcc -O2 -Wall "$@" -c warn.c -o /dev/null 2>&1 | sed -n 's/^warn.c:\([0-9]*\):[0-9]*: warning:.*/\1/p' | sort -u
}
plain_lines=$(warned)
# shellcheck disable=SC2086
tracked_lines=$(warned $tracked)
[ -n "$plain_lines" ] || { echo "gcc gave no warning without memtrack: the test proves nothing"; exit 1; }
[ "$plain_lines" = "$tracked_lines" ] ||
    { echo "warnings at '$plain_lines' without memtrack, '$tracked_lines' with it"; exit 1; }
for cc in gcc clang; do
    for mode in plain tracked; do
        flags=""
        [ $mode = tracked ] && flags=$tracked
        # shellcheck disable=SC2086
        $cc -O2 -D_FORTIFY_SOURCE=2 $flags fortify.c -o "fortify-$cc-$mode" $libs 2>/dev/null
        status=0
        { MEMTRACK_OPTIONS=crash_report=0 "./fortify-$cc-$mode" >/dev/null 2>&1; } 2>/dev/null || status=$?
        [ $status = 134 ] || { echo "$cc $mode: status $status, expected the fortified abort (134)"; exit 1; }
    done
done
