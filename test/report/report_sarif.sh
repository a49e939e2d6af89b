# report_sarif.sh - the SARIF 2.1.0 report: one result per leak site and per error, at its
# source line (files below the run's directory relative to SRCROOT, others as absolute
# file:// URIs), each with a rule listed once in the driver, errors with their other
# sites as related locations. The same through `memtrack run --sarif`.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir report_sarif
lib="$OUT/report_sarif_lib" # a source outside the run's directory
rm -rf "$lib"
mkdir -p "$lib"
cat >"$lib/util.c" <<'C'
#include <stdlib.h>
void make_buffer(char **out, int n);
void make_buffer(char **out, int n) { *out = malloc((size_t)n); }
C
cat >prog.c <<'C'
#include <stdlib.h>
#include <string.h>
void make_buffer(char **out, int n);
int main(void)
{
    char *a, *b; make_buffer(&a, 30), make_buffer(&b, 30);
    char *s = strdup("kept");
    char *p = malloc(4);
    memcpy(p, "four!", 5);
    free(p);
    char *q = calloc(1, 6);
    q[-1] = 1;
    (void)a, (void)b, (void)s;
    return 0;
}
C
"$M" cc -g prog.c "$lib/util.c" -o prog
status=0
"$M" run --sarif out.sarif ./prog 2>run.err || status=$?
[ $status = 23 ] || { cat run.err; exit 1; }

/usr/bin/python3 - "$d" "$TOP/test/lib" "$lib" <<'PY'
import json, sys
d, lib = sys.argv[1], sys.argv[3]
sys.path.insert(0, sys.argv[2])
import sarif_check
s = json.load(open("out.sarif"))
errors = sarif_check.check(s)  # SARIF 2.1.0's rules for what memtrack writes, stacks too
assert not errors, errors
assert s["version"] == "2.1.0" and "sarif-2.1.0" in s["$schema"]
assert len(s["runs"]) == 1
run = s["runs"][0]
driver = run["tool"]["driver"]
assert driver["name"] == "memtrack" and driver["version"]
ids = [r["id"] for r in driver["rules"]]
assert len(ids) == len(set(ids)), ids
assert set(ids) == {"leak/malloc", "leak/strdup", "leak/calloc", "error/overrun", "error/underrun"}, ids
for r in driver["rules"]:
    assert r["shortDescription"]["text"] and r["defaultConfiguration"]["level"] in ("warning", "error")
assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == "file://" + d + "/"

results = run["results"]
assert len(results) == 5, len(results)  # 3 leak sites, 2 errors
for r in results:
    assert driver["rules"][r["ruleIndex"]]["id"] == r["ruleId"]
    assert r["message"]["text"]
    assert r["partialFingerprints"]["memtrackSite/v1"]

def where(loc):
    p = loc["physicalLocation"]
    return (p["artifactLocation"]["uri"], p["artifactLocation"].get("uriBaseId"),
            p["region"]["startLine"])

leaks = [r for r in results if r["ruleId"].startswith("leak/")]
assert all(r["level"] == "warning" for r in leaks)
got = {(r["ruleId"], where(r["locations"][0]), r["properties"]["bytes"]) for r in leaks}
assert got == {
    ("leak/malloc", ("file://" + lib + "/util.c", None, 3), 60),  # outside: absolute
    ("leak/strdup", ("prog.c", "SRCROOT", 7), 5),
    ("leak/calloc", ("prog.c", "SRCROOT", 11), 6),
}, got
m = [r for r in leaks if r["ruleId"] == "leak/malloc"][0]
assert m["message"]["text"].startswith("60 bytes in 2 blocks allocated by malloc at "), m["message"]
assert m["locations"][0]["logicalLocations"][0] == {"name": "make_buffer", "kind": "function"}

errs = {r["ruleId"]: r for r in results if r["ruleId"].startswith("error/")}
assert all(r["level"] == "error" for r in errs.values())
over = errs["error/overrun"]  # found by free at line 10: shown there, allocation related
assert where(over["locations"][0]) == ("prog.c", "SRCROOT", 10), over
rel = over["relatedLocations"]
assert [(where(x), x["message"]["text"]) for x in rel] == [
    (("prog.c", "SRCROOT", 8), "the block was allocated here")], rel
assert over["message"]["text"].startswith("overrun: block #"), over["message"]
under = errs["error/underrun"]  # found at exit (no line): shown at the allocation
assert where(under["locations"][0]) == ("prog.c", "SRCROOT", 11), under
assert under["relatedLocations"] == [], under
print("sarif: ok")
PY
# The library writes the same SARIF itself (option sarif=), and memtrack report renders it
# again from the JSON.
MEMTRACK_OPTIONS=sarif=lib.sarif:json=lib.json ./prog 2>/dev/null || true
"$M" report lib.json --sarif again.sarif
cmp lib.sarif again.sarif
/usr/bin/python3 "$TOP/test/lib/sarif_check.py" lib.sarif
/usr/bin/python3 -c 'import json; a=json.load(open("lib.sarif")); b=json.load(open("out.sarif")); assert [r["ruleId"] for r in a["runs"][0]["results"]] == [r["ruleId"] for r in b["runs"][0]["results"]]'
echo "report_sarif: ok"
