# fill_large.sh - a new block is filled with 0xCD up to its first 64 KiB only: a large
# buffer a program never touches whole stays out of memory, as without memtrack. xz -T2
# allocates about 100 MB of dictionaries for any input; filled whole, a small file took
# 132 MB of memory instead of 4 MB, and ten times the time. The first bytes still read
# 0xCD; with option unwritten=1 (which counts the bytes never written) the whole block is
# filled, the control that shows the measure sees a filled block.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir fill_large
cat >big.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
static long resident_pages(void)
{
    long size = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f == NULL || fscanf(f, "%ld %ld", &size, &resident) != 2)
        exit(2);
    fclose(f);
    return resident;
}
int main(void)
{
    size_t n = (size_t)64 << 20;
    long before = resident_pages();
    unsigned char *p = malloc(n);
    if (p == NULL)
        return 1;
    long grown_kib = (resident_pages() - before) * (sysconf(_SC_PAGESIZE) / 1024);
    printf("first %02x, at 64 KiB %02x, grown %s\n", p[0], p[65536],
           grown_kib < 8192 ? "little" : "by the block");
    free(p);
    return 0;
}
C
cc -g -O0 big.c -o big # built without memtrack, as --preload runs it
"$M" run --preload -- ./big >out.txt 2>err.txt || { cat err.txt; exit 1; }
grep -qx 'first cd, at 64 KiB 00, grown little' out.txt ||
    { echo "a large new block was filled whole:"; cat out.txt err.txt; exit 1; }
"$M" run --preload --options unwritten=1 -- ./big >out.txt 2>err.txt || true
grep -qx 'first cd, at 64 KiB cd, grown by the block' out.txt ||
    { echo "unwritten=1 does not fill the whole block:"; cat out.txt err.txt; exit 1; }
echo "fill_large: ok"
