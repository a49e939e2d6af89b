# report_heap_errors.sh - the heap errors of issue 3 in the report model: double free,
# write after free and invalid free keep their structured fields in the JSON (pointer,
# offset, what), valid against tools/report.schema.json; the messages max_messages kept
# quiet and the unwritten bytes by site are in it too; and the text rendered again from
# the JSON is the exit report the program printed, line for line.
set -eu
PY=/usr/bin/python3
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir report_heap_errors
cat >prog.c <<'C'
#include <stdlib.h>
#include <string.h>
static char table[16];
int main(void)
{
    for (int i = 0; i < 3; i++) {
        char *a = malloc(10);
        free(a);
        free(a);                /* 3 double frees at line 9: 1 printed, 2 counted */
    }
    char *b = malloc(64);
    strcpy(b, "hello");         /* 6 of 64 bytes written */
    free(b);
    b[8] = 1;                   /* a write after free at offset 8 */
    memtrack_check();
    char *c = malloc(100);
    free(c + 16);               /* inside a block */
    free(table);                /* a static address */
    free(c);
    return 0;
}
C
"$M" cc -g -O0 prog.c -o prog
MEMTRACK_OPTIONS=json=lib.json:max_messages=1:unwritten=1 ./prog 2>lib.txt || true

$PY - "$TOP/tools/report.schema.json" <<'PY'
import json, sys, jsonschema
r = json.load(open("lib.json"))
jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(r)
E = r["errors"]
assert E["by_kind"] == {"double free": 3, "write after free": 1, "invalid free": 2}, E
kinds = [(e["kind"], e["what"]) for e in E["list"]]
assert kinds == [("double free", None)] * 3 + [("write after free", None),
    ("invalid free", "a pointer inside a block"), ("invalid free", "a static address")], kinds
waf = E["list"][3]
assert (waf["changed"], waf["offset"], waf["extent"]) == (1, 8, 9), waf
assert waf["released_at"]["line"] == 13 and waf["found_at"]["kind"] == "check", waf
inside = E["list"][4]
assert inside["offset"] == 16 and inside["pointer"] != inside["address"], inside
assert inside["sequence"] == 5 and inside["allocated_at"]["line"] == 16, inside
static = E["list"][5]
assert static["sequence"] == 0 and static["pointer"] == static["address"], static
assert E["max_messages"] == 1
assert [(n["kind"], n["count"], n["found_at"]["line"]) for n in E["not_printed"]] == [
    ("double free", 2, 9)], E["not_printed"]
U = r["unwritten"]
assert U["checked"], U
rows = [(u["line"], u["blocks"], u["bytes"], u["unwritten"]) for u in U["sites"]]
assert rows == [(16, 1, 100, 100), (11, 1, 64, 58), (7, 3, 30, 30)], rows  # most unwritten first
PY

# The exit report as printed, and the same rendered again from the JSON.
sed -n '/^memtrack: report for/,$p' lib.txt >lib.report
"$M" report lib.json >again.txt
grep -v '^memtrack:   \(double free\|write after free\|invalid free\): ' again.txt >again.report
diff -u lib.report again.report
grep -qx 'memtrack:   invalid free: a pointer inside block #5 (100 bytes) allocated at prog.c:16 in main(), 16 bytes past its start, found by free at prog.c:17 in main()' again.txt
grep -qx 'memtrack:   write after free: block #4 (64 bytes) allocated at prog.c:11 in main(), released at prog.c:13 in main(), found by memtrack_check() at prog.c:15 in main(): 1 byte changed at offset 8' again.txt
grep -qx 'memtrack:   2 more double free errors found by free at prog.c:9 in main() were not printed (max_messages=1)' lib.report
echo "report_heap_errors: ok"
