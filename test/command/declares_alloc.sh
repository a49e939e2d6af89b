# declares_alloc.sh - a source that declares the allocation functions itself (old code, a
# copy of a configure probe) compiles under memtrack cc and is tracked: its blocks are
# sited by the caller's return address, function pointers to malloc and free included,
# and its bad frees are reported as in header mode. A source that defines its own free
# compiles with the macros off. memtrack cc also works as a compiler launcher.
set -eu
mt="$TOP/memtrack"
cd "$OUT"
cat >declares.c <<'C'
#include <stdio.h>
extern void *malloc (size_t);
extern void free (void *);
char *strdup (const char *);

struct hooks { void *(*alloc) (size_t); void (*release) (void *); };

int main (void)
{
    struct hooks hooks = { malloc, free };
    char *kept = malloc (10);
    void *through_hook = hooks.alloc (100);
    char *copy = strdup ("declared");
    int on_stack = 0;
    hooks.release (copy);
    free (&on_stack);
    puts ("still running");
    (void) kept;
    (void) through_hook;
    return 0;
}
C
"$mt" cc -g -O0 -Wall declares.c -o declares 2>build.log || { cat build.log; exit 1; }
nm declares | grep -q ' U memtrack_malloc_caller' || { echo "declares.c is not tracked"; exit 1; }
./declares >out.txt 2>err.txt
cat err.txt
grep -qx 'still running' out.txt
grep -q '^memtrack: ERROR: free of a stack address' err.txt
grep -q '^memtrack:   found by free at declares.c:16 in main()' err.txt
grep -qx 'memtrack: 110 bytes leaked in 2 blocks from 2 sites; 1 error found' err.txt
grep -qx 'memtrack:   100 bytes in 1 block at declares.c:12 in main() by malloc: #2' err.txt
grep -qx 'memtrack:    10 bytes in 1 block at declares.c:11 in main() by malloc: #1' err.txt

# A file that defines free itself keeps its definition (the macros are off there).
cat >defines.c <<'C'
#include <stddef.h>
void free (void *p) { (void) p; }
C
"$mt" cc -c defines.c -o defines.o
nm defines.o | grep -q ' T free$' || { echo "defines.c lost its free"; exit 1; }

# As a launcher: memtrack cc /usr/bin/cc ARGS... uses that compiler.
printf '#include <stdlib.h>\nint main(void) { return malloc(7) == NULL; }\n' >launched.c
"$mt" cc "$(command -v cc)" -g launched.c -o launched
./launched 2>err.txt || true
grep -q '7 bytes in 1 block at launched.c:2 in main() by malloc' err.txt ||
    { echo "launcher form not tracked"; cat err.txt; exit 1; }
echo "declares_alloc: ok"
