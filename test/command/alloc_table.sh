# alloc_table.sh - a library whose allocator is a table of members named calloc, realloc and
# free (test/alloc_table/: `mem->calloc(1, n)` in its sources, `(m)->free(p)` in a header's
# macro) builds unchanged with `make CC="memtrack cc"`: each unit that calls through such a
# member is compiled in the caller-sites mode (found by the pattern in its source, or by
# compiling again when the macros made it fail), which memtrack cc says once per unit; the
# library's own tests pass, and a leak made through the table is reported at the caller.
set -eu
proj="$OUT/alloc_table"
rm -rf "$proj"
cp -r "$TOP/test/alloc_table" "$proj"
cd "$proj"
make -s CC="$TOP/memtrack cc" all test >build.log 2>&1 || { cat build.log; exit 1; }
cat build.log
grep -qx 'all tests passed' build.log || { echo "the library's own tests did not pass"; exit 1; }

# One note for each unit that calls through a member (strlist.c in its source, counter.c
# through mem.h's macros), none for the others.
note() { grep -c "^memtrack: $1 calls an allocation function through a struct member" build.log || true; }
[ "$(note strlist.c)" = 1 ] || { echo "strlist.c: expected one note"; exit 1; }
[ "$(note counter.c)" = 1 ] || { echo "counter.c: expected one note"; exit 1; }
[ "$(grep -c '^memtrack: ' build.log)" = 2 ] || { echo "expected two notes in all"; exit 1; }
grep -q 'error' build.log && { echo "an error was shown"; exit 1; }
# Every unit is built with the flag: the two without the macros, the others with them.
for o in strlist.o counter.o; do
    nm "$o" | grep -q ' U memtrack_stats' || { echo "$o was not built with the flag"; exit 1; }
    nm "$o" | grep -q 'memtrack_.*_at' && { echo "$o has the macros"; exit 1; }
done
nm test_strlist.o | grep -q ' U memtrack_calloc_at' || { echo "test_strlist.o lost its macros"; exit 1; }

./leaky >out.txt 2>err.txt
cat err.txt
grep -qx '1 0' out.txt
# The blocks made through the table, at the library's lines, with main below them; those of
# its constructors, which are allocation wrappers (issue 26), at main's calls of them, the
# constructors named as seen through.
grep -qx 'memtrack: 90 bytes leaked in 4 blocks from 4 sites; 0 errors found' err.txt
grep -qx 'memtrack:   32 bytes in 1 block at leaky.c:8 in main() by calloc: #1' err.txt
grep -qx 'memtrack:   16 bytes in 1 block at leaky.c:10 in main() by calloc: #4' err.txt
grep -q '^memtrack:   shown at their callers: strlist_new() (strlist.c:7, an allocation wrapper' err.txt
grep -q '^memtrack:     and counter_new() (counter.c:5, an allocation wrapper' err.txt
grep -A1 -x 'memtrack:   32 bytes in 1 block at strlist.c:17 in strlist_push() by realloc: #2' err.txt |
    grep -qx 'memtrack:       from leaky.c:9 in main()'
grep -A1 -x 'memtrack:   10 bytes in 1 block at strlist.c:24 in strlist_push() by calloc: #3' err.txt |
    grep -qx 'memtrack:       from leaky.c:9 in main()'

# The same switch in header mode: the unit that does not compile with the macros does with
# -DMEMTRACK_CALLER_SITES on its command line.
header_mode="-g -DMEMORY_CONTROL_ON -I$TOP/include -include memtrack.h"
# shellcheck disable=SC2086
if cc $header_mode -c strlist.c -o strlist-header.o 2>/dev/null; then
    echo "header mode: strlist.c compiles with the macros (the test shows nothing)"; exit 1
fi
# shellcheck disable=SC2086
cc $header_mode -DMEMTRACK_CALLER_SITES -c strlist.c -o strlist-header.o
nm strlist-header.o | grep -q ' U memtrack_stats' || { echo "header mode: not built with the flag"; exit 1; }
echo "alloc_table: ok"
