# page_guard_rerun.sh - the loop closes itself: an overrun found by the guard check at free
# ends with the option to rerun with, and that rerun names the line of the write, in a
# program built in another directory (FILE matches the end of the recorded path).
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir page_guard_rerun
mkdir -p src
cat >src/names.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void copy_name(char *to, const char *from)
{
    memcpy(to, from, strlen(from) + 1);
}

int main(void)
{
    char *name = malloc(5);
    copy_name(name, "Quake");
    printf("%s\n", name);
    free(name);
    return 0;
}
C
"$M" cc -g -O0 src/names.c -o names
./names >/dev/null 2>first.txt
grep -q '^memtrack: ERROR: overrun after block #1 (5 bytes)' first.txt || { cat first.txt; exit 1; }
hint=$(sed -n 's/^memtrack:   rerun with MEMTRACK_OPTIONS=\([^ ]*\) to name the line that writes past its end$/\1/p' first.txt)
[ "$hint" = "page_guard_site=src/names.c:12" ] || { cat first.txt; exit 1; }
MEMTRACK_OPTIONS=$hint ./names >/dev/null 2>second.txt
grep -qx 'memtrack: ERROR: overrun (write) of block #1 (5 bytes) at offset 5, by copy_name() at src/names.c:7' \
    second.txt || { cat second.txt; exit 1; }
# told once: the guard check at free has nothing more to say
[ "$(grep -c '^memtrack: ERROR:' second.txt)" = 1 ] || { cat second.txt; exit 1; }
# the site given as its file's name alone matches too
MEMTRACK_OPTIONS=page_guard_site=names.c:12 ./names >/dev/null 2>third.txt
grep -q 'by copy_name() at src/names.c:7' third.txt || { cat third.txt; exit 1; }
