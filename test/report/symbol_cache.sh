# symbol_cache.sh - what a process symbolized is kept for the next process of the same
# program (option symbol_cache, by build id): the second run of a leaking program names
# every frame without loading libdw, in a report equal to the first's, text and JSON; a
# damaged cache file (lines cut short, garbage, too many fields) changes nothing in the
# report; a cache file that is a symbolic link is not followed; symbol_cache= keeps none.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir symbol_cache
cat >leak.c <<'C'
#include <stdlib.h>
static inline void *make(size_t n)
{
    return malloc(n);
}
static void *volatile last;
static __attribute__((noinline)) void *build(int k)
{
    last = k ? make(24) : calloc(2, 8);
    return last;
}
int main(void)
{
    void *a = build(1), *b = build(0);
    last = NULL; /* lost, not held by a global: a holder's name is not the cache's */
    return a == NULL || b == NULL;
}
C
"$M" cc -g -O2 leak.c -o leak
id=$(readelf -n leak | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
[ -n "$id" ] || { echo "leak has no build id"; exit 1; }

run() { # run NAME OPTIONS: the report in NAME.txt (normalized), NAME.json, libdw's loading in NAME.ld
    MEMTRACK_OPTIONS="json=$PWD/$1.json${2:+:$2}" LD_DEBUG=files ./leak 2>"$1.all" || true
    grep -v '^ *[0-9]*:' "$1.all" | normalize "$PWD" >"$1.txt"
    grep -c 'file=libdw' "$1.all" >"$1.ld" || true
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))
for s in r["leaks"]["sites"]:
    for f in s.get("stack", []): f.pop("address", None)
print(json.dumps(r["leaks"], sort_keys=True))' "$1.json" >"$1.leaks"
}
cache="$PWD/cache"
run first "symbol_cache=$cache"
grep -q 'bytes in 1 block at leak.c:4 in make() by malloc' first.txt || { cat first.txt; exit 1; }
grep -q 'inlined into leak.c:9 in build()' first.txt || { echo "no inlined frame"; cat first.txt; exit 1; }
[ "$(cat first.ld)" != 0 ] || { echo "the first run did not load libdw"; exit 1; }
[ -f "$cache/$id" ] || { echo "no cache file named by the build id $id"; ls -la "$cache"; exit 1; }
[ "$(stat -c %a "$cache/$id")" = 600 ] || { echo "cache file mode $(stat -c %a "$cache/$id")"; exit 1; }

run second "symbol_cache=$cache"
[ "$(cat second.ld)" = 0 ] || { echo "the second run loaded libdw"; exit 1; }
diff first.txt second.txt || { echo "the report from the cache differs"; exit 1; }
diff first.leaks second.leaks || { echo "the JSON from the cache differs"; exit 1; }

# A damaged file: each of its lines cut short, garbage, a field too many: all ignored.
good=$(cat "$cache/$id")
{
    printf '%s\n' "$good" | cut -c1-20
    printf 'M1\tzz\t2\nnot a line at all\n\\\\\t\t\t\n'
    printf '%s\n' "$good" | sed 's/$/\textra/'
    printf 'M1\t10'
} >"$cache/$id"
run damaged "symbol_cache=$cache"
diff first.txt damaged.txt || { echo "a damaged cache changed the report"; exit 1; }
[ "$(cat damaged.ld)" != 0 ] || { echo "a damaged cache was believed"; exit 1; }

# The cache file is a symbolic link: not followed, not written through.
rm -rf "$cache"
mkdir "$cache"
printf 'keep me\n' >target
ln -s "$PWD/target" "$cache/$id"
run linked "symbol_cache=$cache"
diff first.txt linked.txt
[ "$(cat target)" = "keep me" ] || { echo "the cache wrote through a symbolic link"; exit 1; }

# symbol_cache= keeps nothing.
rm -rf "$cache"
mkdir "$cache"
run off "symbol_cache="
diff first.txt off.txt
[ -z "$(ls -A "$cache")" ] || { echo "symbol_cache= wrote"; ls -la "$cache"; exit 1; }
echo "symbol_cache: ok"
