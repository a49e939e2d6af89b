# library_lost.sh - a block a library made and handed to the program, which lost it, is the
# program's leak (issue 33): libjansson's json_dumps returns a string the caller must free;
# forgotten, nothing points at it, and memtrack lists it, under --preload and with the header
# alike, exit 23, with the caller's line under unwind=exact (Debian's libraries keep no
# frame pointers), which the report suggests. What a library still holds stays counted apart (the C library's stdout
# buffer), and a string the program keeps in a global is no leak under --preload. Needs
# libjansson-dev (tools/deps.sh test).
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir library_lost
[ -f /usr/include/jansson.h ] || { echo "no libjansson-dev here (tools/deps.sh test)"; exit 77; }
cat >host.c <<'C'
#include <jansson.h>
#include <stdio.h>
static char *kept;
int main(int argc, char **argv)
{
    json_t *o = json_pack("{s:i}", "level", 3);
    char *text = json_dumps(o, 0);
    json_decref(o);
    printf("%s\n", text);
    if (argc > 1)
        kept = text; /* held: no leak under --preload */
    return 0;        /* else forgotten: the program's leak, made inside libjansson */
}
C
cc -g -O0 host.c -o host -ljansson
status=0
"$M" run --preload -- ./host >out.txt 2>lost.txt || status=$?
[ $status = 23 ] || { cat lost.txt; echo "status $status, expected 23"; exit 1; }
grep -q '^memtrack: 13 bytes leaked in 1 block from 1 site; 0 errors found$' lost.txt
grep -q '^memtrack:   13 bytes in 1 block at 0x[0-9a-f]* .*(libjansson.so.4) by malloc' lost.txt
grep -q 'not listed: .* made inside system libraries' lost.txt
# its stack stops inside the library (no frame pointers there): the report says how to see
# the caller's line
grep -q '^memtrack:   stacks: .* run with MEMTRACK_OPTIONS=unwind=exact$' lost.txt ||
    { echo "no word on the stack cut short:"; cat lost.txt; exit 1; }
"$M" run --preload --options unwind=exact -- ./host >out.txt 2>exact.txt || true
grep -A3 '(libjansson.so.4) by malloc' exact.txt | grep -q '^memtrack:       from host.c:7 in main()$'
status=0
"$M" run --preload -- ./host keep >out.txt 2>kept.txt || status=$?
[ $status = 0 ] && [ ! -s kept.txt ] || { cat kept.txt; echo "status $status, expected a clean run"; exit 1; }
# With the header (memtrack cc): the same leak, in the same words.
"$M" cc -g -O0 host.c -o host-tracked -ljansson
status=0
"$M" run -- ./host-tracked >out.txt 2>header.txt || status=$?
[ $status = 23 ] || { cat header.txt; echo "status $status, expected 23"; exit 1; }
grep -q '^memtrack:   13 bytes in 1 block at 0x[0-9a-f]* .*(libjansson.so.4) by malloc' header.txt
echo ok
