# out_of_memory_report.sh - a program that leaks, then allocates until malloc returns NULL
# (its address space capped), still gets an exit report, at least its totals, and exitcode
# still applies: the report is never lost to the program's own exhaustion.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir out_of_memory_report
cat >prog.c <<'C'
#include <stdlib.h>
#include <sys/resource.h>
int main(void)
{
    (void)malloc(100); /* a leak for the report */
    struct rlimit cap = {256u << 20, 256u << 20};
    if (setrlimit(RLIMIT_AS, &cap) != 0)
        return 3;
    /* until the address space is used up, to the last small piece the tracker could use */
    for (size_t size = 1u << 20; size >= 256; size /= 4)
        while (malloc(size) != NULL)
            ;
    return 0;
}
C
"$M" cc -g -O0 prog.c -o prog
status=0
MEMTRACK_OPTIONS=exitcode=42 ./prog 2>err.txt || status=$?
[ $status = 42 ] || { echo "status $status, expected 42 (exitcode)"; cat err.txt; exit 1; }
grep -q "memtrack: report for" err.txt || { echo "no report"; cat err.txt; exit 1; }
grep -q "leaked in" err.txt || { cat err.txt; exit 1; }
grep -q "100 bytes at prog.c:5 in main() by malloc: #1" err.txt || { cat err.txt; exit 1; }
# The JSON report holds the same totals, so memtrack run judges the run and says so.
status=0
"$M" run --exitcode 7 --json r.json ./prog 2>err2.txt || status=$?
[ $status = 7 ] || { echo "memtrack run: status $status, expected 7"; cat err2.txt; exit 1; }
/usr/bin/python3 - "$TOP/tools/report.schema.json" <<'PY'
import json, sys, jsonschema
r = json.load(open("r.json"))
errors = [f"{list(e.path)}: {e.message}" for e in
          jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).iter_errors(r)]
assert not errors, errors
assert r["leaks"]["bytes"] >= 100 and r["leaks"]["sites"] == [], r["leaks"]
PY
