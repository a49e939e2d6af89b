# report_diff.sh - `memtrack report --diff OLD.json NEW.json` on two runs: which sites leak
# more (new sites included), which leak less (fixed sites included), the totals; exit 1
# when something leaks more or more errors were found, 0 otherwise. Leaks of one site from
# two callers are matched caller by caller.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir report_diff
cat >prog.c <<'C'
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
    int version = argc > 1 ? atoi(argv[1]) : 1;
    for (int i = 0; i < version + 1; i++)
        (void)malloc(50);             /* version + 1 blocks */
    if (version < 2)
        (void)strdup("nineteen characters");
    else
        (void)calloc(2, 4);
    return 0;
}
C
"$M" cc -g prog.c -o prog
"$M" run --json old.json ./prog 1 2>/dev/null || true
"$M" run --json new.json ./prog 2 2>/dev/null || true
"$M" run --json fixed.json ./prog 0 2>/dev/null || true

status=0
"$M" report --diff old.json new.json >diff.txt || status=$?
cat diff.txt
[ $status = 1 ] || { echo "diff status $status, expected 1"; exit 1; }
cat >expected.txt <<'TXT'
memtrack: leaks: 120 bytes in 3 blocks -> 158 bytes in 4 blocks; errors: 0 -> 0
memtrack: sites that leak more:
memtrack:   +50 bytes, +1 block at prog.c:7 in main() by malloc (100 -> 150 bytes)
memtrack:   +8 bytes, +1 block at prog.c:11 in main() by calloc (0 -> 8 bytes, new site)
memtrack: sites that leak less:
memtrack:   -20 bytes, -1 block at prog.c:9 in main() by strdup (20 -> 0 bytes, gone)
TXT
diff -u expected.txt diff.txt

# Back to a run that leaks less at one site and the same at the other: status 0
status=0
"$M" report --diff old.json fixed.json >fixed.txt || status=$?
cat fixed.txt
[ $status = 0 ] || { echo "diff status $status, expected 0"; exit 1; }
grep -qx 'memtrack: sites that leak less:' fixed.txt
grep -qx 'memtrack:   -50 bytes, -1 block at prog.c:7 in main() by malloc (100 -> 50 bytes)' fixed.txt
[ "$(grep -c '^memtrack:   ' fixed.txt)" = 1 ] # the unchanged strdup site is not listed
# The other way round a site is new: status 1
status=0
"$M" report --diff new.json old.json >back.txt || status=$?
[ $status = 1 ]
grep -qx 'memtrack:   +20 bytes, +1 block at prog.c:9 in main() by strdup (0 -> 20 bytes, new site)' back.txt
# A run against itself
"$M" report --diff old.json old.json >same.txt
grep -qx 'memtrack: every site leaks as before' same.txt
# One site leaking from two callers is two groups, each matched with its own in the other
# report by its call stack (test/report/stacks.json with a second caller of load_image).
/usr/bin/python3 - "$TOP/test/report/stacks.json" <<'PY'
import copy, json, sys
r = json.load(open(sys.argv[1]))
def runs(name, from30, from40):  # (bytes, blocks) leaked from main at lines 30 and 40
    x = copy.deepcopy(r)
    a = x["leaks"]["sites"][0]
    b = copy.deepcopy(a)
    b["stack"][0].update(line=40, address="0x55d0c0a01299")
    a["bytes"], a["blocks"] = from30
    b["bytes"], b["blocks"] = from40
    x["leaks"]["sites"][0:1] = sorted([a, b], key=lambda s: -s["bytes"])
    json.dump(x, open(name, "w"))
runs("callers-old.json", (300, 3), (100, 1))
runs("callers-new.json", (50, 1), (400, 4))
PY
status=0
"$M" report --diff callers-old.json callers-new.json >callers.txt || status=$?
[ $status = 1 ] || { cat callers.txt; exit 1; }
grep -A1 -x 'memtrack: sites that leak more:' callers.txt | tail -1 | grep -qxF \
    'memtrack:   +300 bytes, +3 blocks at shapes.c:12 in load_image() by malloc, called from shapes.c:40 in main() (100 -> 400 bytes)' ||
    { cat callers.txt; exit 1; }
grep -A1 -x 'memtrack: sites that leak less:' callers.txt | tail -1 | grep -qxF \
    'memtrack:   -250 bytes, -2 blocks at shapes.c:12 in load_image() by malloc, called from shapes.c:30 in main() (300 -> 50 bytes)' ||
    { cat callers.txt; exit 1; }
# Usage
status=0
"$M" report --diff old.json 2>usage.txt || status=$?
[ $status = 2 ]
grep -q 'takes two reports' usage.txt
echo "report_diff: ok"
