# cmd_project.sh - `make CC="memtrack cc"` builds an ordinary multi-file project (a program,
# a static archive and a shared library, test/project/) tracked, with no change to its
# sources or its Makefile, and the report names the project's own files and lines.
set -eu
proj="$OUT/project"
rm -rf "$proj"
cp -r "$TOP/test/project" "$proj"
cd "$proj"
make -s CC="$TOP/memtrack cc" >build.log 2>&1 || { cat build.log; exit 1; }

# Every object was compiled with tracking on, the shared library too.
for o in inventory.o words.o; do
    nm "$o" | grep -q ' U memtrack_' || { echo "$o was not compiled with tracking"; exit 1; }
done
nm -D libnames.so | grep -q ' U memtrack_malloc_at' || { echo "libnames.so not tracked"; exit 1; }
readelf -d game | grep -q 'NEEDED.*libmemtrack.so' || { echo "game does not link libmemtrack"; exit 1; }

status=0
./game >out.txt 2>err.txt || status=$?
[ $status = 0 ] || { echo "game exited $status"; cat err.txt; exit 1; }
grep -qx 'dungeon master, hero' out.txt
cat err.txt
# The three item names (6 + 7 + 7 bytes) and the joined title (15 bytes) leak; the
# shared library's names are freed by names_clear and the array and inventory by
# inventory_free.
# Leaks are grouped by site and stack: the names, by the line of main that added each.
grep -qx 'memtrack: 35 bytes leaked in 4 blocks from 4 sites; 0 errors found' err.txt
grep -A1 -x 'memtrack:    6 bytes in 1 block at inventory.c:19 in inventory_add() by strdup: #3' err.txt |
    grep -qx 'memtrack:       from main.c:12 in main()'
grep -A1 -x 'memtrack:    7 bytes in 1 block at inventory.c:19 in inventory_add() by strdup: #6' err.txt |
    grep -qx 'memtrack:       from main.c:14 in main()'
# (words_join() only returns the string it makes: an allocation wrapper, seen through)
grep -qx 'memtrack:   15 bytes in 1 block at main.c:17 in main() by malloc: #7' err.txt
grep -q '^memtrack:   shown at their callers: words_join() (words.c:10, ' err.txt
[ "$(grep -c '^memtrack:   *[0-9]* bytes* in' err.txt)" = 4 ]

# A clean rebuild of the same tree without memtrack reports nothing.
make -s clean
make -s >build.log 2>&1
./game >/dev/null 2>err.txt
[ ! -s err.txt ] || { echo "untracked build printed:"; cat err.txt; exit 1; }
echo "cmd_project: ok"
