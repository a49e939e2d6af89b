# out_of_memory_partial.sh - the exit report made without memory (the program used up its
# address space) blames only the program's blocks: the C library's (stdout's buffer) are
# left out as in a full report, so a program that freed everything exits 0 with nothing
# printed, and one that leaks 100 bytes is told of those 100 bytes alone; its JSON says it
# is partial (no sites: not "from 0 sites"), and memtrack report renders it so.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir out_of_memory_partial
cat >prog.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
int main(int argc, char **argv)
{
    int leak = argc > 1 && strcmp(argv[1], "leak") == 0;
    printf("stdout's buffer is the C library's\n");
    fflush(stdout);
    if (leak)
        (void)malloc(100);
    struct rlimit cap = {256u << 20, 256u << 20};
    if (setrlimit(RLIMIT_AS, &cap) != 0)
        return 3;
    /* every last piece of the address space, blocks freed, mappings kept: nothing of the
     * program's left but the leak */
    static void *blocks[1 << 16];
    size_t n = 0;
    for (size_t size = 1u << 20; size >= 256; size /= 4)
        while (n < sizeof blocks / sizeof blocks[0] && (blocks[n] = malloc(size)) != NULL)
            n++;
    while (n > 0)
        free(blocks[--n]);
    for (size_t size = 1u << 20; size >= 4096; size /= 2)
        while (mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) != MAP_FAILED)
            ;
    return 0;
}
C
"$M" cc -g -O0 prog.c -o prog
status=0
MEMTRACK_OPTIONS=exitcode=42:json=clean.json ./prog >/dev/null 2>err.txt || status=$?
[ $status = 0 ] || { echo "clean: status $status, expected 0"; cat err.txt; exit 1; }
[ ! -s err.txt ] || { echo "clean: printed"; cat err.txt; exit 1; }
status=0
MEMTRACK_OPTIONS=exitcode=42:json=leak.json ./prog leak >/dev/null 2>err.txt || status=$?
[ $status = 42 ] || { echo "leak: status $status, expected 42"; cat err.txt; exit 1; }
cat err.txt
grep -qx 'memtrack: report for ./prog (pid [0-9]*): out of memory, so not grouped by site' err.txt
grep -qx 'memtrack: 100 bytes leaked in 1 block; 0 errors found' err.txt
grep -qx 'memtrack:   100 bytes at prog.c:12 in main() by malloc: #1' err.txt
! grep -q 'bytes at .*\(_IO_\|libc\)\|4096 bytes leaked\|4196 bytes' err.txt || { echo "the C library's block is blamed"; exit 1; }
/usr/bin/python3 - "$TOP/tools/report.schema.json" <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
r = json.load(open("leak.json"))
jsonschema.Draft202012Validator(schema).validate(r)
assert r["partial"] == "out of memory, so not grouped by site", r.get("partial")
assert r["leaks"]["bytes"] == 100 and r["leaks"]["blocks"] == 1 and r["leaks"]["sites"] == [], r["leaks"]
PY
"$M" report leak.json >again.txt
grep -qx 'memtrack: report for ./prog (pid [0-9]*): out of memory, so not grouped by site' again.txt
grep -qx 'memtrack: 100 bytes leaked in 1 block; 0 errors found' again.txt
! grep -q 'from 0 sites' again.txt
"$M" report leak.json --sarif leak.sarif --html leak.html
/usr/bin/python3 - "$TOP/test/lib" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1])
import sarif_check
s = json.load(open("leak.sarif"))
assert not sarif_check.check(s), sarif_check.check(s)
(note,) = s["runs"][0]["invocations"][0]["toolExecutionNotifications"]
assert note["message"]["text"].startswith("partial report: out of memory"), note
assert 'id="partial-note"' in open("leak.html").read()
PY
