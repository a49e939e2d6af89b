# preload_non_pie.sh - a program built without PIE that takes malloc's and free's addresses
# (Python's allocator table does: Debian's /usr/bin/python3) keeps undefined entries for
# them whose values are stubs in its own code, and dlsym(RTLD_DEFAULT) answers those. Under
# --preload libmemtrack is still its allocator, and must not say it is not (it did, at every
# start of python3); its blocks, made through the pointers, are tracked. The same program
# over a library built with memtrack, which loads libmemtrack after the C library, is still
# told once that libmemtrack is not its allocator.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir preload_non_pie
cat >table.c <<'C'
#include <stdlib.h>
#include <string.h>
/* An allocator table, as a program fills it: the functions' addresses, taken in code. */
static struct { void *(*alloc)(size_t); void (*release)(void *); } hooks;
char *keep(const char *s);
int main(void)
{
    hooks.alloc = malloc;
    hooks.release = free;
    char *kept = hooks.alloc(16);
    char *gone = hooks.alloc(32);
    hooks.release(gone);
    if (kept != NULL)
        strcpy(kept, "lost");
    return keep("late") == NULL;
}
C
cat >keep.c <<'C'
#include <stdlib.h>
#include <string.h>
char *keep(const char *s) { return strdup(s); }
C
cc -g -fPIC -shared keep.c -o libplain.so
"$M" cc -g -fPIC -shared keep.c -o libtracked.so
cc -g -fno-pic -no-pie table.c -o table -L. -lplain -Wl,-rpath,"$PWD"
# The program really has the undefined entry with a value (else this tests nothing).
readelf --dyn-syms -W table | grep -Eq ' [0-9a-f]*[1-9a-f][0-9a-f]* +0 FUNC +GLOBAL +DEFAULT +UND malloc' ||
    { echo "table has no canonical PLT entry for malloc:"; readelf --dyn-syms -W table; exit 1; }
status=0
"$M" run --preload ./table 2>err.txt || status=$?
[ $status = 23 ] || { echo "status $status"; cat err.txt; exit 1; }
! grep -q 'not the process.s allocator' err.txt ||
    { echo "libmemtrack preloaded is said not to be the allocator:"; cat err.txt; exit 1; }
grep -qxF 'memtrack: 21 bytes leaked in 2 blocks from 2 sites; 0 errors found' err.txt &&
    grep -qE '^memtrack: peak .* 3 allocations \(53 bytes\), 1 frees?,' err.txt ||
    { echo "the blocks made through the pointers are not tracked:"; cat err.txt; exit 1; }

# libmemtrack loaded after the C library (a library built with memtrack): told, once.
cc -g -fno-pic -no-pie table.c -o late -L. -ltracked -Wl,-rpath,"$PWD"
./late 2>late.err || true
grep -c 'is not the process.s allocator: malloc is libc.so.6.s' late.err | grep -qx 1 ||
    { echo "late: no single warning that libmemtrack is not the allocator:"; cat late.err; exit 1; }
echo "preload_non_pie: ok"
