# symbol_cache.sh - what a process symbolized is kept for the next process of the same
# program (option symbol_cache, by build id): the second run of a leaking program names
# every frame (and judges every allocation wrapper) without loading libdw, in a report equal
# to the first's, text and JSON, its places' compilation directories included; a
# damaged cache file (lines cut short, garbage, too many fields) changes nothing in the
# report; a cache file that is a symbolic link is not followed; symbol_cache= keeps none.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir symbol_cache
cat >leak.c <<'C'
#include <stdlib.h>
static void *volatile last;
static inline void *make(size_t n) /* an allocation wrapper: seen through */
{
    return malloc(n);
}
static inline void note(size_t n) /* inlined, no wrapper: it returns nothing */
{
    last = malloc(n);
}
static __attribute__((noinline)) int build(int k)
{
    if (k)
        last = make(24);
    else
        note(16);
    return last != NULL;
}
int main(void)
{
    int a = build(1), b = build(0);
    last = NULL; /* lost, not held by a global: a holder's name is not the cache's */
    return !a || !b;
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
    s.pop("address", None)  # a place moved to its caller has the (randomized) return address
    for f in s.get("stack", []): f.pop("address", None)
print(json.dumps(r["leaks"], sort_keys=True))' "$1.json" >"$1.leaks"
}
cache="$PWD/cache"
run first "symbol_cache=$cache"
grep -q 'bytes in 1 block at leak.c:14 in build() by malloc' first.txt || { cat first.txt; exit 1; }
grep -q 'shown at their callers: make() (leak.c:5, an allocation wrapper' first.txt ||
    { echo "make() not judged a wrapper"; cat first.txt; exit 1; }
grep -q 'inlined into leak.c:16 in build()' first.txt || { echo "no inlined frame"; cat first.txt; exit 1; }
[ "$(cat first.ld)" != 0 ] || { echo "the first run did not load libdw"; exit 1; }
[ -f "$cache/$id" ] || { echo "no cache file named by the build id $id"; ls -la "$cache"; exit 1; }
[ "$(stat -c %a "$cache/$id")" = 600 ] || { echo "cache file mode $(stat -c %a "$cache/$id")"; exit 1; }

run second "symbol_cache=$cache"
[ "$(cat second.ld)" = 0 ] || { echo "the second run loaded libdw"; exit 1; }
diff first.txt second.txt || { echo "the report from the cache differs"; exit 1; }
diff first.leaks second.leaks || { echo "the JSON from the cache differs"; exit 1; }
# The allocation-wrapper rule's answers are kept too (the second run judged make() without
# libdw), and so is each place's compilation directory: run from elsewhere, the JSON names it.
grep -q "^W1" "$cache/$id" || { echo "no wrapper answers kept"; cat "$cache/$id"; exit 1; }
mkdir elsewhere
(cd elsewhere && MEMTRACK_OPTIONS="json=$PWD/elsewhere.json:symbol_cache=$cache" LD_DEBUG=files ../leak 2>elsewhere.all) || true
[ "$(grep -c 'file=libdw' elsewhere/elsewhere.all)" = 0 ] || { echo "the run elsewhere loaded libdw"; exit 1; }
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))
dirs={s.get("directory") for s in r["leaks"]["sites"]}
sys.exit(0 if dirs == {sys.argv[2]} else "directories: %s" % dirs)' elsewhere/elsewhere.json "$PWD"

# A damaged file: each of its lines cut short, garbage, a field too many: all ignored.
good=$(cat "$cache/$id")
{
    printf '%s\n' "$good" | cut -c1-20
    printf 'M2\tzz\t2\nnot a line at all\n\\\\\t\t\t\n'
    printf '%s\n' "$good" | sed 's/$/\textra/'
    printf 'M2\t10'
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
