# record_overwritten.sh - a wild write into memtrack's own record of a block makes the next
# free of that block crash inside memtrack, holding its shard's lock. The crash report must
# say so truthfully: the crashing thread held the lock (not "another thread", in a program
# with one thread), and the crash is inside memtrack with its records likely overwritten.
# A write of bytes no record link can hold (0x41...) is found by the lookup's cheap check
# instead: told once, and the program goes on. (The program reaches the record through the
# tracker's own lookup, as only a wild pointer would otherwise.)
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir record_overwritten
cat >prog.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include "records/table.h"
int main(int argc, char **argv)
{
    char *keep = malloc(40); /* live at the crash */
    char *p = malloc(24);
    mt_shard_t *s = mt_shard_of((uintptr_t)p);
    mt_lock(&s->lock);
    mt_block_t *b = mt_table_lookup_locked(s, (uintptr_t)p);
    mt_unlock(&s->lock);
    /* the wild write: the record's key and its bucket chain's next, as data a stray
     * pointer could leave (an aligned address, nothing mapped there) */
    uintptr_t bad = argc > 1 ? 0x4141414141414141 : 0x1000;
    b->hh.key = (const void *)(bad + 8);
    b->hh.hh_next = (void *)bad;
    free(p); /* its lookup follows the chain into nothing */
    puts("went on");
    (void)argv;
    return keep[0] != 0;
}
C
# internal headers: linked with the static library, whose internals a program can reach
"$CC" -g -O0 -I"$TOP/include" -I"$TOP/src" prog.c "$TOP/build/libmemtrack.a" \
    -ldl -pthread -o prog
status=0
./prog 2>err.txt || status=$?
[ $status = 139 ] || { echo "status $status, expected 139 (SIGSEGV)"; cat err.txt; exit 1; }
grep -q "CRASH: SIGSEGV at address 0x10[0-9a-f]* " err.txt || { cat err.txt; exit 1; }
! grep -q "another thread held" err.txt || { echo "a false message:"; cat err.txt; exit 1; }
grep -q "table shard walks* w[a-z]* skipped: the crashing thread held" err.txt ||
    { cat err.txt; exit 1; }
grep -q "the crash happened inside memtrack, holding one of its locks: its own records were most likely overwritten" err.txt ||
    { cat err.txt; exit 1; }

# bytes no link can hold: found, told once, and the program goes on
status=0
MEMTRACK_OPTIONS=exitcode=0 ./prog wild >out.txt 2>err.txt || status=$?
[ $status = 0 ] || { echo "status $status"; cat err.txt; exit 1; }
grep -q "went on" out.txt
grep -Eq "ERROR: memtrack's own records are damaged: a link in its table holds 0x41414141414141(41|49), not a record" err.txt ||
    { cat err.txt; exit 1; }
