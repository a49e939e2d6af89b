# preload.sh - `memtrack run --preload` on programs built WITHOUT memtrack (plain cc -g):
# the program's own leaks are found and sited in the program, by kind and size; what the
# C library and the loader keep for themselves (stdio buffers, locale, NSS, thread
# stacks' bookkeeping) is counted apart and never blamed on the program, so a clean
# program that leans on libc runs clean; system_leaks=1 lists those too.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir preload
cat >leaky.c <<'C'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static char *copy_name(const char *s)
{
    return strdup(s);
}
static void *worker(void *arg)
{
    (void)arg;
    return malloc(33);
}
int main(void)
{
    char *keep = malloc(100);
    char *name = copy_name("preloaded");
    void *r;
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, &r);
    free(r);
    char *grown = realloc(NULL, 10);
    grown = realloc(grown, 200);
    printf("%s %d\n", name, keep != NULL && grown != NULL);
    return 0;
}
C
cc -g -O0 -pthread leaky.c -o leaky
cc -g -O0 -pthread "$TOP/test/e2e/preload-untracked.c" -o clean
if nm leaky | grep -q memtrack; then echo "leaky was built with memtrack"; exit 1; fi

# Without --preload there is nothing to report from
status=0
"$M" run ./leaky >/dev/null 2>err.txt || status=$?
[ $status = 2 ]
grep -q 'wrote no report' err.txt

status=0
"$M" run --preload --json leaky.json ./leaky >out.txt 2>err.txt || status=$?
cat err.txt
[ $status = 23 ] || { echo "status $status, expected 23"; exit 1; }
grep -qx 'preloaded 1' out.txt
grep -qx 'memtrack: 310 bytes leaked in 3 blocks from 3 sites; 0 errors found' err.txt
# Each site is an address in the program itself, with the call's kind and size, shown as
# the file and line the debug information gives for it (src/base/symbolize.c).
grep -Eq '^memtrack:   200 bytes in 1 block at leaky\.c:24 in main\(\) by realloc: #' err.txt
grep -Eq '^memtrack:   100 bytes in 1 block at leaky\.c:16 in main\(\) by malloc: #1$' err.txt
# (copy_name() only returns what strdup made: an allocation wrapper, seen through to main)
grep -Eq '^memtrack:    10 bytes in 1 block at leaky\.c:17 in main\(\) by strdup: #2$' err.txt
grep -q '^memtrack:   shown at their callers: copy_name() (leaky.c:7, ' err.txt
grep -Eq '^memtrack:   not listed: [0-9]+ bytes in [0-9]+ blocks? from [0-9]+ sites? made inside system libraries' err.txt
/usr/bin/python3 - <<'PY'
import json
r = json.load(open("leaky.json"))
sites = r["leaks"]["sites"]
assert [(s["kind"], s["bytes"], s["blocks"]) for s in sites] == [
    ("realloc", 200, 1), ("malloc", 100, 1), ("strdup", 10, 1)], sites
for s in sites:
    assert s["module"].endswith("leaky") and s["address"].startswith("0x"), s
assert r["leaks"]["system"]["blocks"] >= 1  # at least stdout's buffer
assert r["options"]["track_all"] is True
PY
# Without the debug information (option symbolize=0): the address and module (main and
# copy_name are in no dynamic symbol table).
status=0
"$M" run --preload --options symbolize=0 ./leaky >/dev/null 2>err.txt || status=$?
[ $status = 23 ]
grep -Eq '^memtrack:   200 bytes in 1 block at 0x[0-9a-f]+.* \(leaky\) by realloc: #' err.txt
grep -Eq '^memtrack:    10 bytes in 1 block at 0x[0-9a-f]+.* \(leaky\) by strdup: #2$' err.txt

# A clean program leaning on libc (locale, stdio, getline, qsort, localtime, getpwuid,
# threads): nothing reported, exit 0, though libc keeps blocks of its own.
status=0
"$M" run --preload --json clean.json ./clean >out.txt 2>err.txt || status=$?
[ $status = 0 ] || { echo "clean: status $status"; cat err.txt; exit 1; }
[ ! -s err.txt ] || { echo "clean run printed:"; cat err.txt; exit 1; }
/usr/bin/python3 -c '
import json; r = json.load(open("clean.json"))
assert r["leaks"]["blocks"] == 0 and r["leaks"]["system"]["blocks"] > 0, r["leaks"]
# what libc made is counted apart: the program made few blocks of its own
st = r["statistics"]
assert st["system"]["total_blocks"] > 50 and st["total_blocks"] < st["system"]["total_blocks"], st'
# ...and system_leaks=1 shows what the C library kept, sited in it (leaks=all: what it
# still points at too, which --preload leaves out by default)
status=0
"$M" run --preload --options system_leaks=1:leaks=all ./clean >/dev/null 2>err.txt || status=$?
[ $status = 23 ]
grep -Eq '^memtrack: .* \(libc\.so\.6\) by ' err.txt
echo "preload: ok"
