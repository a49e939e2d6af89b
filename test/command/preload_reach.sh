# preload_reach.sh - under `memtrack run --preload` only what the program lost is a leak
# (leaks=lost by default there): a program built without memtrack that still points at
# what it made when it exits (a cache in a global, a list through it) runs clean, exit 0,
# nothing printed; one that lost a block (and a block only that one held) is reported with
# exactly those two and exits 23, the blocks it still holds counted apart. The user's
# leaks=all, in --options or MEMTRACK_OPTIONS, lists them all again, with what holds them.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir preload_reach
cat >prog.c <<'C'
#include <stdlib.h>
#include <string.h>
struct node { struct node *next; char text[24]; };
static struct node *cache;
int main(int argc, char **argv)
{
    cache = malloc(sizeof *cache);
    cache->next = malloc(sizeof *cache->next);
    cache->next->next = NULL;
    if (argc > 1) {
        struct node *lost = malloc(sizeof *lost);
        lost->next = malloc(sizeof *lost->next);
        lost->next->next = NULL;
        strcpy(lost->text, argv[1]);
    }
    return 0;
}
C
cc -g -O0 prog.c -o prog

status=0
"$M" run --preload -- ./prog >out.txt 2>err.txt || status=$?
[ $status = 0 ] || { echo "holding only: status $status"; cat err.txt; exit 1; }
[ ! -s err.txt ] || { echo "a clean run printed:"; cat err.txt; exit 1; }

status=0
"$M" run --preload --json lost.json -- ./prog lose >out.txt 2>err.txt || status=$?
cat err.txt
[ $status = 23 ] || { echo "losing: status $status, expected 23"; exit 1; }
grep -qx 'memtrack: 64 bytes leaked in 2 blocks from 2 sites; 0 errors found' err.txt
grep -qx 'memtrack:   32 bytes in 1 block at prog.c:11 in main() by malloc: #3' err.txt
grep -qx 'memtrack:       held by lost block #3 -> #4' err.txt
grep -qx 'memtrack:   not listed: 64 bytes in 2 blocks from 2 sites the program still points at (option leaks=lost)' err.txt
! grep -q 'prog.c:7\b' err.txt
/usr/bin/python3 -c '
import json; l = json.load(open("lost.json"))["leaks"]
assert l["lost_only"] and [s["class"] for s in l["sites"]] == ["lost", "indirect"], l
assert l["held"]["blocks"] == 2, l'

for how in "--options leaks=all" "MEMTRACK_OPTIONS=leaks=all"; do
    status=0
    if [ "${how%%=*}" = MEMTRACK_OPTIONS ]; then
        env "$how" "$M" run --preload -- ./prog >out.txt 2>err.txt || status=$?
    else
        # shellcheck disable=SC2086
        "$M" run --preload $how -- ./prog >out.txt 2>err.txt || status=$?
    fi
    [ $status = 23 ] || { echo "$how: status $status, expected 23"; cat err.txt; exit 1; }
    grep -qx 'memtrack: still reachable: 64 bytes in 2 blocks (the program still points at them)' err.txt
    grep -qx 'memtrack:       held by cache at prog.c:4 -> #1 -> #2' err.txt
done
echo "preload_reach: ok"
