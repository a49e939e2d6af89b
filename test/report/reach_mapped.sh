# reach_mapped.sh - the memory a program maps for itself (anonymous, writable: its own
# allocator's arenas) is a root of the leak scan, as Valgrind's memcheck has it. Python
# keeps its objects in arenas it maps, and a list's items or a dictionary's table are
# malloc'd blocks only those objects hold: `python3 -c` under memtrack run --preload was
# reported leaking (status 23) where Valgrind finds nothing lost. Here a program's arena
# holds two strings: through mmap, mmap64 (_FILE_OFFSET_BITS=64), an arena moved by mremap
# and a 256 MiB mapping (read only where its pages are in memory) they are held, not
# leaked; once the arena is unmapped they are lost.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir reach_mapped
cat >arena.c <<'C'
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
int main(int argc, char **argv)
{
    size_t size = 1 << 16;
    char **arena = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (arena == MAP_FAILED)
        return 1;
    arena[100] = strdup("held by the arena");
    arena[200] = malloc(24);
    if (argc > 1 && strcmp(argv[1], "move") == 0) {
        /* a mapping in the way, so that the arena must move to grow */
        void *after = mmap((char *)arena + size, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        char **moved = mremap(arena, size, 2 * size, MREMAP_MAYMOVE);
        if (moved == MAP_FAILED || (after != MAP_FAILED && moved == arena))
            return 2;
        arena = moved;
    }
    if (argc > 1 && strcmp(argv[1], "big") == 0) {
        /* a large mapping, read where its pages are in memory: one page, far in */
        size_t big = (size_t)256 << 20;
        char **far = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (far == MAP_FAILED)
            return 3;
        far[(200 << 20) / sizeof *far] = arena[100];
        arena[100] = NULL;
    }
    if (argc > 1 && strcmp(argv[1], "unmap") == 0)
        munmap(arena, size); /* the strings are lost now */
    arena = NULL;
    return 0;
}
C
cc -g -O0 arena.c -o arena # built without memtrack, as --preload runs it
cc -g -O0 -D_FILE_OFFSET_BITS=64 arena.c -o arena64
readelf --dyn-syms -W arena64 | grep -q ' mmap64@' || { echo "arena64 does not call mmap64"; exit 1; }
for run in "./arena" "./arena64" "./arena move" "./arena big"; do
    status=0
    # shellcheck disable=SC2086
    "$M" run --preload -- $run >out.txt 2>err.txt || status=$?
    [ $status = 0 ] && [ ! -s err.txt ] ||
        { echo "$run: what the arena holds is reported (status $status):"; cat err.txt; exit 1; }
done
status=0
"$M" run --preload --options leaks=all -- ./arena >out.txt 2>err.txt || status=$?
[ "$(grep -c '^memtrack:       held by memory the program mapped$' err.txt)" = 2 ] ||
    { echo "leaks=all does not name the arena as holder (status $status):"; cat err.txt; exit 1; }
status=0
"$M" run --preload -- ./arena unmap >out.txt 2>err.txt || status=$?
[ $status = 23 ] && grep -qxF 'memtrack: 42 bytes leaked in 2 blocks from 2 sites; 0 errors found' err.txt ||
    { echo "unmapped: the strings are not reported lost (status $status):"; cat err.txt; exit 1; }
echo "reach_mapped: ok"
