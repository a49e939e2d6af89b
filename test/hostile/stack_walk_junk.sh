# stack_walk_junk.sh - data on the stack shaped like frame records gives no frames (issue 25,
# item 15): only a return address is one, a word that follows a call in loaded code, and a
# function's address kept on the stack is none. The frame register of code built without
# frame pointers points here at records on the stack whose "return addresses" are the
# addresses of functions, a different one each time: the one leak site is one group, its
# stack names none of those functions, and the report has one site (junk made a new stack,
# and a new site, for each).
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir stack_walk_junk
[ "$(uname -m)" = x86_64 ] || { echo "skipped: x86-64 assembly"; exit 0; }
cat >prog.c <<'C'
#include <stdio.h>
#include <stdlib.h>

#include "call_with_frame.h"

void decoy_one(void) { puts("one"); }
void decoy_two(void) { puts("two"); }
void decoy_three(void) { puts("three"); }

static void *kept[3];

static __attribute__((noinline)) void make(int i)
{
    void (*decoys[3])(void) = {decoy_one, decoy_two, decoy_three};
    /* two records, the second ending the chain: each "return address" a function's */
    void *records[4] = {&records[2], (void *)decoys[i], NULL, (void *)decoys[(i + 1) % 3]};
    kept[i] = call_malloc_with_frame(16, records);
}

int main(void)
{
    for (int i = 0; i < 3; i++)
        make(i);
    return 0;
}
C
"$M" cc -g -O0 -I"$TOP/test/hostile" prog.c -o prog
status=0
./prog >out.txt 2>err.txt || status=$?
[ $status = 0 ] || { echo "status $status"; cat err.txt; exit 1; }
grep -q '48 bytes leaked in 3 blocks from 1 site' err.txt || { cat err.txt; exit 1; }
if grep -q 'decoy' err.txt; then echo "junk frames:"; cat err.txt; exit 1; fi
echo "ok: one site, no junk frames"
