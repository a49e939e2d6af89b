#!/bin/bash
# Untracked pools and arenas make no tracker calls: pool.o and arena.o are linked into a
# program built without MEMORY_CONTROL_ON with NO tracker at all; every tracker function
# they refer to (every undefined mt_* symbol) is replaced by a stub that prints its name
# and aborts. The program runs every call of the API on untracked pools and arenas,
# through the plain and the _at entry points, and checks the results. A control run then
# creates a tracked pool and must hit a stub: the proof can fail.
set -eu
out="$OUT/pool_nocalls"
mkdir -p "$out"
# (arena_tracked.o is left out: arena.o reaches it through functions, which are stubbed like
# the rest, and its hot path reads the tracker's variables inline, api/owned_log.h)
objs="$TOP/build/obj/api/pool.o $TOP/build/obj/api/pool_tracked.o $TOP/build/obj/api/arena.o"

# What the allocators need from the rest of libmemtrack: functions only, or the stubs
# would not catch every use.
# (the pool's own files call each other: only what lies outside them is stubbed)
own=$(nm --defined-only $objs | awk 'NF >= 3 { print $NF }' | sort -u)
syms=$(nm -u $objs | awk 'NF >= 2 { print $NF }' | grep -E '^(mt_|memtrack_)' | sort -u |
    comm -23 - <(echo "$own"))
[ -n "$syms" ] || { echo "no tracker symbols found: the test would prove nothing"; exit 1; }
for s in $syms; do
    if ! nm "$TOP/build/libmemtrack.a" | grep -qE " T $s\$"; then
        echo "pool.o/arena.o use $s, which is not a function of libmemtrack"; exit 1
    fi
done
{
    echo '#include <stdlib.h>'
    echo '#include <unistd.h>'
    for s in $syms; do
        echo "void $s(void);"
        echo "void $s(void) { static const char m[] = \"tracker called: $s\\n\";"
        echo "    (void)!write(2, m, sizeof m - 1); abort(); }"
    done
} >"$out/stubs.c"
echo "stubbed: $(echo $syms | wc -w) functions: $(echo $syms)"

cat >"$out/main.c" <<'PROGRAM'
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "memtrack.h"

#define CHECK(c) do { if (!(c)) { printf("FAILED: %s (line %d)\n", #c, __LINE__); return 1; } } while (0)
#define AT __FILE__, __LINE__, __func__

static void count(void *o, void *ctx) { (void)o; ++*(int *)ctx; }

int main(int argc, char **argv)
{
    (void)argv;
    if (argc > 1) { /* the control: a tracked pool must reach the tracker */
        memtrack_pool_create_at("tracked", 8, 8, AT);
        return 0;
    }
    memtrack_pool_t *p = memtrack_pool_create("plain", 24, 4);
    memtrack_pool_t *q = memtrack_pool_create_aligned("aligned", 40, 64, 2);
    CHECK(p && q);
    void *a = memtrack_pool_alloc(p), *b = memtrack_pool_alloc_at(p, AT);
    void *c = memtrack_pool_alloc(q);
    CHECK(a && b && c && ((uintptr_t)c & 63) == 0);
    memtrack_pool_free(p, a);
    memtrack_pool_free(p, a);                  /* double: ignored */
    memtrack_pool_free_at(p, (char *)b + 1, AT); /* interior: ignored */
    memtrack_pool_free(p, c);                  /* another pool's: ignored */
    CHECK(memtrack_pool_live(p) == 1 && memtrack_pool_owns(p, b) && !memtrack_pool_owns(p, a));
    int n = 0;
    memtrack_pool_foreach(p, count, &n);
    CHECK(n == 1);
    CHECK(memtrack_pool_check(p) == 0 && memtrack_pool_check_at(p, AT) == 0);
    memtrack_pool_set_growth(p, 4, 12);
    while (memtrack_pool_alloc(p) != NULL)
        ;
    CHECK(memtrack_pool_capacity(p) == 12 && memtrack_pool_live(p) == 12);
    memtrack_pool_clear(p);
    memtrack_pool_clear_at(p, AT);
    CHECK(memtrack_pool_live(p) == 0 && memtrack_pool_object_size(p) == 24);
    memtrack_pool_destroy(p);
    memtrack_pool_destroy_at(q, AT);

    memtrack_arena_t *r = memtrack_arena_create("plain", 256);
    char *x = memtrack_arena_alloc(r, 10), *y = memtrack_arena_alloc_at(r, 10, AT);
    CHECK(x && y && y - x == 16);
    size_t mark = memtrack_arena_mark(r);
    char *z = memtrack_arena_alloc_aligned(r, 8, 64);
    CHECK(z && ((uintptr_t)z & 63) == 0 && memtrack_arena_alloc_aligned_at(r, 8, 64, AT));
    memtrack_arena_rewind(r, mark);
    CHECK(memtrack_arena_used(r) == mark);
    memtrack_arena_rewind_at(r, mark + 1000, AT); /* beyond: ignored */
    CHECK(memtrack_arena_used(r) == mark);
    CHECK(memtrack_arena_alloc(r, 1000) == NULL);
    memtrack_arena_reset(r);
    CHECK(memtrack_arena_used(r) == 0 && memtrack_arena_alloc(r, 256) == x);
    memtrack_arena_reset_at(r, AT);
    CHECK(memtrack_arena_capacity(r) == 256);
    memtrack_arena_destroy(r);
    r = memtrack_arena_create("again", 64);
    memtrack_arena_destroy_at(r, AT);

    memtrack_register_alloc(x, 10, "mine"); /* no-ops without MEMORY_CONTROL_ON */
    memtrack_register_free(x, "mine");
    printf("ok\n");
    return 0;
}
PROGRAM

cd "$out"
$CC -std=c99 -O1 -g -Wall -Wextra -I"$TOP/include" -c main.c -o main.o
$CC -std=c99 -O1 -c stubs.c -o stubs.o
$CC main.o stubs.o $objs -o nocalls
./nocalls >run.out 2>run.err || { echo "the untracked run failed:"; cat run.out run.err; exit 1; }
cat run.out
[ "$(cat run.out)" = ok ] || exit 1
[ ! -s run.err ] || { echo "unexpected stderr:"; cat run.err; exit 1; }

# The control: a tracked pool must call the tracker, so a stub aborts.
if ./nocalls tracked >control.out 2>control.err; then
    echo "the control run did not reach the tracker: the stubs catch nothing"; exit 1
fi
grep -q '^tracker called: mt_' control.err || { echo "control: no stub hit"; cat control.err; exit 1; }
echo "control: $(head -1 control.err)"
