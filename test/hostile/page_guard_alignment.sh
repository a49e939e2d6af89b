# page_guard_alignment.sh - page_guard=all runs whole programs, so every block keeps what
# the C standard promises for its size: room for any object that fits (aligned to the
# largest power of two not above the size, up to 16 bytes). Aligned only as the largest
# power of two dividing its size, a 13-byte block (a header, then text: a flexible array
# member) lay on any byte, and Debian's python3 died at start ("Fatal Python error: error
# reading frozen getpath.py"). A listed site's blocks still end at the page to the byte
# (page_guard_site, what the guard check's rerun hint asks): a one-byte overrun of a
# 13-byte block faults there, named at its line. An alignment the program asks for
# (aligned_alloc, posix_memalign) is kept everywhere, even at a listed site.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir page_guard_alignment
cat >sizes.c <<'C'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
    int bad = 0;
    for (size_t size = 1; size <= 64; size++) {
        size_t promise = 1;
        while (promise < 16 && promise * 2 <= size)
            promise *= 2;
        void *p = malloc(size);
        if (p == NULL || (uintptr_t)p % promise != 0) {
            printf("malloc(%zu) = %p, not aligned to %zu\n", size, p, promise);
            bad = 1;
        }
        free(p);
    }
    /* an alignment asked for is kept whatever the size (and at a listed site: sizes.c:21) */
    for (size_t align = 8; align <= 16; align *= 2)
        for (size_t size = 1; size <= 32; size++) {
            void *q = NULL, *r = aligned_alloc(align, size); int rc = posix_memalign(&q, align, size);
            if (rc != 0 || (uintptr_t)q % align != 0 || r == NULL || (uintptr_t)r % align != 0) {
                printf("%zu bytes aligned to %zu: %p %p\n", size, align, q, r);
                bad = 1;
            }
            free(q);
            free(r);
        }
    return bad;
}
C
cat >over.c <<'C'
#include <stdlib.h>
#include <string.h>
int main(void)
{
    char *p = malloc(13);
    if (p == NULL)
        return 1;
    memset(p, 'x', 14); /* one byte past its end */
    free(p);
    return 0;
}
C
cc -g -O0 sizes.c -o sizes # built without memtrack, as --preload runs it
cc -g -O0 -fno-builtin over.c -o over
status=0
"$M" run --preload --options page_guard=all -- ./sizes >sizes.out 2>sizes.err || status=$?
[ $status = 0 ] && [ ! -s sizes.out ] && [ ! -s sizes.err ] ||
    { echo "page_guard=all breaks malloc's promise (status $status):"; cat sizes.out sizes.err; exit 1; }
status=0
"$M" run --preload --options page_guard_site=sizes.c:21 -- ./sizes >sizes.out 2>sizes.err || status=$?
[ $status = 0 ] && [ ! -s sizes.out ] && [ ! -s sizes.err ] ||
    { echo "page_guard_site breaks an asked alignment (status $status):"; cat sizes.out sizes.err; exit 1; }
status=0
"$M" run --preload --options page_guard=all -- /usr/bin/python3 -c 'print(6 * 7)' >py.out 2>py.err || status=$?
[ $status = 0 ] && [ "$(cat py.out)" = 42 ] ||
    { echo "python3 under page_guard=all (status $status):"; cat py.out py.err; exit 1; }
# The listed site: the overrun faults, at the line that made it.
status=0
"$M" run --preload --options page_guard_site=over.c:5 -- ./over >over.out 2>over.err || status=$?
grep -qxF 'memtrack: ERROR: overrun (write) of block #1 (13 bytes) at offset 13, by main() at over.c:8' over.err &&
    grep -qF 'memtrack:   found by its page guard' over.err ||
    { echo "page_guard_site: the one-byte overrun is not caught at its line (status $status):"; cat over.err; exit 1; }
echo "page_guard_alignment: ok"
