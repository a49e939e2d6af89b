# page_guard_map_limit.sh - page_guard=all with more live blocks than the kernel allows a
# process mappings for (vm.max_map_count: each page-guarded block splits the region's
# mapping in three): every allocation still succeeds. Page guards stop at half of the limit,
# one warning names it, and later blocks get guard bytes: an overrun of one is still found.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir page_guard_map_limit
cat >prog.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
    size_t n = strtoul(argv[1], NULL, 10);
    char **blocks = calloc(n, sizeof *blocks);
    for (size_t i = 0; i < n; i++) {
        blocks[i] = malloc(24);
        if (blocks[i] == NULL) {
            printf("malloc failed at block %zu\n", i);
            return 1;
        }
    }
    blocks[n - 1][24] = 1; /* past the page guards' share: found by its guard bytes */
    for (size_t i = 0; i < n; i++)
        free(blocks[i]);
    free(blocks);
    FILE *f = fopen("/proc/self/maps", "r"); /* the program can still map memory */
    if (f == NULL)
        return 2;
    fclose(f);
    puts("all blocks made");
    return 0;
}
C
"$M" cc -g -O0 prog.c -o prog
limit=$(cat /proc/sys/vm/max_map_count)
n=$((limit * 3 / 4)) # more than the limit allows, at two mappings a block
status=0
MEMTRACK_OPTIONS=page_guard=all:exitcode=0 ./prog $n >out.txt 2>err.txt || status=$?
[ $status = 0 ] || { echo "status $status"; cat out.txt; head -20 err.txt; exit 1; }
grep -q "all blocks made" out.txt || { cat out.txt; exit 1; }
[ "$(grep -c "warning: page guards" err.txt)" = 1 ] || { head -20 err.txt; exit 1; }
grep -q "warning: page guards: $((limit / 4)) page-guarded blocks at once take half of the kernel's limit on mappings (vm.max_map_count = $limit): more blocks get guard bytes instead until some are freed" err.txt ||
    { head -20 err.txt; exit 1; }
grep -q "ERROR: overrun after block #[0-9]* (24 bytes)" err.txt || { head -20 err.txt; exit 1; }
