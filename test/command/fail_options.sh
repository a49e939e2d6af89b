# fail_options.sh - the options that make allocations fail on purpose fail exactly what
# they name: fail_site a line (every allocation there, none elsewhere), fail_fn a function
# in the stack, fail_owner a pool or arena by name, fail_from every allocation from the
# Nth; fail_rate with a fixed seed fails the same allocations in every run (and about one in
# N); the window (fail_window=1, memtrack_fail_begin/end) spares start-up; each failure is
# NULL with ENOMEM and is listed in the report (text and JSON, against the schema). A bad
# value stops the program with status 2 and says why; so do --preload and header mode.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir fail_options
PY=/usr/bin/python3 # Debian's, with python3-jsonschema (tools/deps.sh test)
cat >prog.c <<'C'
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Prints one letter per allocation: '.' made, 'N' NULL with ENOMEM, '?' NULL otherwise. */
static void said(void *p)
{
    putchar(p != NULL ? '.' : errno == ENOMEM ? 'N' : '?');
    free(p);
}

static void *parse_token(size_t n)
{
    return malloc(n);
}

static void *load_table(size_t n)
{
    return calloc(n, 4);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 3;
    said(malloc(8)); /* start-up */
    said(strdup("config"));
    memtrack_fail_begin();
    for (int i = 0; i < rounds; i++) {
        said(parse_token(16));
        said(load_table(4));
        said(malloc(32));
    }
    memtrack_fail_end();
#ifndef MEMORY_CONTROL_ON /* (built plain, for --preload: no pool or arena to track) */
    puts("..");
    return 0;
#endif
    memtrack_pool_t *bullets = memtrack_pool_create("bullets", 16, 4);
    memtrack_arena_t *level = memtrack_arena_create("level", 4096);
    void *b = memtrack_pool_alloc(bullets);
    putchar(b != NULL ? '.' : 'N');
    void *a = memtrack_arena_alloc(level, 64);
    putchar(a != NULL ? '.' : 'N');
    if (b != NULL)
        memtrack_pool_free(bullets, b);
    memtrack_pool_destroy(bullets);
    memtrack_arena_destroy(level);
    putchar('\n');
    return 0;
}
C
"$M" cc -g -O0 prog.c -o prog

out() { # out OPTIONS [ARGS]: the program's letters
    MEMTRACK_OPTIONS=$1 ./prog "${@:2}" 2>err.txt
}
# start-up 2, then 3 rounds of parse_token, load_table, malloc(32), then a pool, an arena
[ "$(out '')" = "............." ] || { echo "without options: $(out '')"; exit 1; }
# fail_site: every allocation at that line (one in each round), nothing else
got=$(out fail_site=prog.c:15)
[ "$got" = "..N..N..N...." ] || { echo "fail_site=prog.c:15: $got"; exit 1; }
grep -qx 'memtrack: 3 allocations failed on purpose, of 3 counted (3 inside memtrack_fail_begin() windows):' err.txt
# (parse_token() and load_table() are allocation wrappers: failures are told at main's calls)
grep -qx 'memtrack:   3 failures at prog.c:30 in main() by malloc: allocations 1, 2, 3 (48 bytes)' err.txt
# fail_site with fail_nth: the 2nd allocation of that line only
[ "$(out fail_site=prog.c:15:fail_nth=2)" = ".....N......." ]
# fail_fn: a function in the stack (load_table's calloc), by glob
[ "$(out 'fail_fn=load_*')" = "...N..N..N..." ]
[ "$(out 'fail_fn=main:fail_nth=3')" = "..N.........." ] # main is in every stack
# fail_owner: the pool named, not the arena
[ "$(out fail_owner=bull*)" = "...........N." ]
[ "$(out fail_owner=level)" = "............N" ]
# fail_nth and fail_from number the program's allocations from 1
[ "$(out fail_nth=1)" = "N............" ]
[ "$(out fail_from=10)" = ".........NNNN" ]
# the window spares start-up: with fail_window, only the allocations between
# memtrack_fail_begin() and memtrack_fail_end() are counted and failed
[ "$(out fail_window=1:fail_nth=1)" = "..N.........." ]
[ "$(out fail_window=1)" = "..NNNNNNNNN.." ]
grep -qx 'memtrack: 9 allocations failed on purpose, of 9 counted (9 inside memtrack_fail_begin() windows):' err.txt

# fail_rate: with a fixed seed the same allocations fail in every run; about one in N
a=$(out fail_rate=3:fail_seed=42 300)
b=$(out fail_rate=3:fail_seed=42 300)
c=$(out fail_rate=3:fail_seed=43 300)
[ "$a" = "$b" ] || { echo "fail_rate with one seed differs: $a / $b"; exit 1; }
[ "$a" != "$c" ] || { echo "fail_rate: seeds 42 and 43 fail the same allocations"; exit 1; }
n=$(printf '%s' "$a" | tr -cd N | wc -c)
[ "$n" -ge 200 ] && [ "$n" -le 400 ] || { echo "fail_rate=3 failed $n of 904"; exit 1; }
# without a seed, the report gives the one it took, which fails the same again
out fail_rate=3 300 >first.txt
seed=$(sed -n 's/.*; fail_seed=\([0-9]*\):$/\1/p' err.txt)
[ -n "$seed" ] || { echo "no seed said:"; cat err.txt; exit 1; }
[ "$(out "fail_rate=3:fail_seed=$seed" 300)" = "$(cat first.txt)" ]

# JSON: the failures by the call that got NULL, with their stacks, against the schema
MEMTRACK_OPTIONS=fail_fn=load_table:json=r.json ./prog >/dev/null 2>&1
$PY - "$TOP/tools/report.schema.json" r.json <<'PY'
import json, sys, jsonschema
schema, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
jsonschema.Draft202012Validator(schema).validate(r)
i = r["injected"]
assert (i["counted"], i["failed"], i["windows"]) == (3, 3, 1), i
[s] = i["sites"]
assert (s["kind"], s["file"], s["line"], s["function"]) == ("calloc", "prog.c", 31, "main"), s
assert s["allocations"] == [1, 2, 3] and s["failures"] == 3 and s["bytes"] == 48, s
assert s.get("stack", []) == [], s["stack"]
assert [(w["function"], w["line"]) for w in r["wrappers"]] == [("load_table", 20)], r["wrappers"]
PY
"$M" report r.json | grep -qx 'memtrack:   3 failures at prog.c:31 in main() by calloc: allocations 1, 2, 3 (48 bytes)'
# no fail_ option, no injected section: reports read as before
MEMTRACK_OPTIONS=json=plain.json ./prog >/dev/null 2>&1
if grep -q '"injected"' plain.json; then echo "an injected section without fail_ options"; exit 1; fi

# Bad values: a message naming the option, and the program does not run (status 2)
bad() { # bad OPTIONS EXPECTED-TEXT
    status=0
    MEMTRACK_OPTIONS=$1 ./prog >bad.out 2>bad.err || status=$?
    [ $status = 2 ] || { echo "$1: status $status"; cat bad.err; exit 1; }
    [ ! -s bad.out ] || { echo "$1: the program ran"; exit 1; }
    grep -qF "$2" bad.err || { echo "$1:"; cat bad.err; exit 1; }
    grep -qF 'does not run without the failures it asked for: exit status 2' bad.err
}
bad fail_nth=-1 "bad value '-1' for fail_nth (expected a whole number, 0 or more)"
bad fail_from=ten "bad value 'ten' for fail_from"
bad fail_fn= "bad value '' for fail_fn (expected a glob without spaces, not empty)"
bad fail_site=prog.c "bad value 'prog.c' for fail_site (expected FILE:LINE)"
status=0
"$M" run --options fail_nth=x -- ./prog >/dev/null 2>bad.err || status=$?
[ $status = 2 ] || { echo "memtrack run --options fail_nth=x: status $status"; exit 1; }
grep -qF "bad value 'x' for fail_nth" bad.err

# --preload: the same on the program built without memtrack (its window calls are no-ops
# there: they come from the header, off without the flag)
cc -g -O0 -fno-omit-frame-pointer -I"$TOP/include" -include memtrack.h prog.c -o plain
got=$(MEMTRACK_OPTIONS=fail_site=prog.c:15 LD_PRELOAD="$TOP/build/libmemtrack.so" ./plain 2>/dev/null)
[ "$got" = "..N..N..N...." ] || { echo "--preload fail_site: $got"; exit 1; }
got=$(MEMTRACK_OPTIONS='fail_fn=load_*' LD_PRELOAD="$TOP/build/libmemtrack.so" ./plain 2>/dev/null)
[ "$got" = "...N..N..N..." ] || { echo "--preload fail_fn: $got"; exit 1; }
echo "fail options: ok"
