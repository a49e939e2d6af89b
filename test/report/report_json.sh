# report_json.sh - the JSON report: valid against tools/report.schema.json, with the right
# leak sites, errors, statistics, options and timeline (sampled and decimated over 40,000
# events, the peak exact); a report that breaks the schema is refused by the validator and
# by memtrack report; and JSON, SARIF, HTML and text rendered again from the JSON are the
# ones the program wrote (one model).
set -eu
PY=/usr/bin/python3 # Debian's, with python3-jsonschema (tools/deps.sh test)
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir report_json
cat >prog.c <<'C'
#include <stdlib.h>
#include <string.h>
#define N 20000
static void *blocks[N];
static char *name_of(int i)
{
    char buf[16] = "item-";
    buf[5] = (char)('0' + i);
    return strdup(buf);
}
int main(void)
{
    for (int i = 0; i < N; i++)     /* events 1..20000: the peak, 320000 bytes */
        blocks[i] = malloc(16);
    for (int i = 0; i < N; i++)     /* events 20001..40000 */
        free(blocks[i]);
    char *a = name_of(1), *b = name_of(2); /* leaked: 7 bytes each */
    int *grid = calloc(10, sizeof *grid);  /* leaked: 40 bytes */
    char *p = malloc(8);
    p[8] = 'x';                            /* an overrun found by free */
    free(p);
    (void)a, (void)b, (void)grid;
    return 0;
}
C
"$M" cc -g -O0 prog.c -o prog
MEMTRACK_OPTIONS=json=lib.json:sarif=lib.sarif:html=lib.html:report_seqs=2 ./prog 2>lib.txt || true

cat >check.py <<'PY'
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
r = json.load(open("lib.json"))
errors = sorted(validator.iter_errors(r), key=lambda e: list(e.path))
assert not errors, [f"{list(e.path)}: {e.message}" for e in errors]

assert r["format"] == "memtrack-report" and r["version"] == 5 and r["when"] == "exit"
st = r["statistics"]
assert st["peak_bytes"] == 320000 and st["peak_blocks"] == 20000, st
assert st["total_blocks"] == 20004 and st["frees"] == 20001 and st["errors"] == 1, st
assert st["current_bytes"] == 54 and st["current_blocks"] == 3, st

L = r["leaks"]
assert L["checked"] and L["bytes"] == 54 and L["blocks"] == 3, L
sites = [(s["file"], s["line"], s["function"], s["kind"], s["bytes"], s["blocks"],
          s["sequence_numbers"], s["owner"], s["address"]) for s in L["sites"]]
assert sites == [
    ("prog.c", 18, "main", "calloc", 40, 1, [20003], None, None),
    # name_of() only returns what strdup made: an allocation wrapper, seen through to main
    ("prog.c", 17, "main", "strdup", 14, 2, [20001, 20002], None, sites[1][8]),
], sites
assert sites[1][8].startswith("0x"), sites  # the return address in main
assert L["suppressed"] == {"bytes": 0, "blocks": 0, "sites": 0, "rules": []}
assert L["system"] == {"bytes": 0, "blocks": 0, "sites": 0}

E = r["errors"]
assert E["total"] == 1 and E["by_kind"] == {"overrun": 1}, E
e = E["list"][0]
assert (e["kind"], e["size"], e["sequence"], e["changed"], e["extent"]) == ("overrun", 8, 20004, 1, 1), e
assert (e["allocated_at"]["line"], e["allocated_at"]["kind"]) == (19, "malloc"), e
assert (e["found_at"]["line"], e["found_at"]["kind"], e["found_at"]["function"]) == (21, "free", "main"), e
assert e["released_at"] is None and e["address"].startswith("0x")
assert (e["pointer"], e["offset"], e["what"]) == (None, 0, None), e
assert E["max_messages"] == 20 and E["not_printed"] == [], E
assert r["unwritten"] == {"checked": False, "sites": []}, r["unwritten"]

T = r["timeline"]
assert T["peak"]["bytes"] == 320000 and T["peak"]["blocks"] == 20000, T["peak"]
assert T["peak"]["event"] == 20000, T["peak"]
samples = T["samples"]
events = [s["event"] for s in samples]
# Decimated, not truncated: between half and all of the buffer, spread over the whole run.
assert 512 <= len(samples) <= 1025, len(samples)
assert events == sorted(set(events)), "events not increasing"
assert events[0] <= 64 and events[-1] == 40005, (events[0], events[-1])
assert max(s["bytes"] for s in samples) <= 320000
assert samples[-1]["bytes"] == 54 and samples[-1]["blocks"] == 3
gaps = [b - a for a, b in zip(events, events[1:])]
assert max(gaps) <= 2 * 40005 // 512, max(gaps)
# Each sample is consistent: every block in this run is 16 bytes until event 40000.
for s in samples:
    if s["event"] <= 20000:
        assert s["bytes"] == 16 * s["blocks"] == 16 * s["event"], s

O = r["options"]
assert O["guard"] == 16 and O["report_seqs"] == 2 and O["leaks"] == "all"
assert O["json"] == "lib.json" and O["exitcode"] == -1 and O["timeline"] is True
assert set(O) >= {"guard", "report", "quiet", "verbose", "exitcode", "json", "sarif", "html",
                  "suppressions", "track_all", "help"}

# The validator is not a rubber stamp: broken reports fail it.
def broken(change):
    bad = json.loads(json.dumps(r))
    change(bad)
    return list(validator.iter_errors(bad))
assert broken(lambda b: b["leaks"]["sites"][0].pop("line"))
assert broken(lambda b: b["leaks"]["sites"][0].update(bytes=-1))
assert broken(lambda b: b.update(version=6))
assert broken(lambda b: b["errors"]["list"][0].update(address=12))
assert broken(lambda b: b["timeline"]["samples"].append({"event": 1}))
assert broken(lambda b: b.update(extra=1))
json.dump(dict(r, version=6), open("v6.json", "w"))
bad = json.loads(json.dumps(r)); del bad["leaks"]["sites"][1]["kind"]
json.dump(bad, open("nokind.json", "w"))
print("schema and content: ok")
PY
$PY check.py "$TOP/tools/report.schema.json"

# memtrack report refuses what it cannot read, saying why, with status 2
refuse() { # refuse FILE MESSAGE
    status=0
    "$M" report "$1" >/dev/null 2>refused.txt || status=$?
    [ $status = 2 ] || { echo "memtrack report $1: status $status"; exit 1; }
    grep -qxF "memtrack report: $1$2" refused.txt || { echo "got:"; cat refused.txt; exit 1; }
}
refuse v6.json ': report format 6 is newer than this memtrack reads (5)'
refuse nokind.json ': leaks.sites[1].kind is missing'
printf '{"format": "memtrack-report", "version": 5,' >truncated.json
refuse truncated.json ' is not valid JSON: line 1, column 44: expected a member name in quotes'
printf '{"format": "other"}' >other.json
refuse other.json ': not a memtrack report (no "format": "memtrack-report")'
refuse missing.json ': No such file or directory'

# One model: rendered again from the JSON, every form is the program's own, byte for byte.
"$M" report lib.json --json again.json --sarif again.sarif --html again.html
cmp lib.json again.json
cmp lib.sarif again.sarif
cmp lib.html again.html
# The text too: the exit-time report as printed, and the same from the JSON (which also
# lists the errors, printed by the program when they were found).
sed -n '/^memtrack: report for/,$p' lib.txt >lib.report
"$M" report lib.json >again.txt
grep -v '^memtrack:   overrun: block' again.txt >again.report
diff -u lib.report again.report
grep -qx 'memtrack:   overrun: block #20004 (8 bytes) allocated at prog.c:19 in main(), found by free at prog.c:21 in main(): 1 byte changed, 1 byte from the block' again.txt
# Suppressed leaks: counted apart in the JSON, rule by rule, every rule listed.
cp "$TOP/test/e2e/suppress.c" "$TOP/test/e2e/suppress.supp" .
"$M" cc -g suppress.c -o suppress
MEMTRACK_OPTIONS=suppressions=suppress.supp:json=supp.json ./suppress 2>/dev/null || true
$PY - "$TOP/tools/report.schema.json" <<'PY'
import json, sys, jsonschema
r = json.load(open("supp.json"))
jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(r)
s = r["leaks"]["suppressed"]
assert (s["bytes"], s["blocks"], s["sites"]) == (527, 4, 4), s
assert [(x["rule"], x["bytes"], x["blocks"], x["sites"]) for x in s["rules"]] == [
    ("function:font_cache_*", 517, 3, 3), ("site:suppress*.c:30", 10, 1, 1),
    ("file:generated_*.c", 0, 0, 0), ("module:libthirdparty.so*", 0, 0, 0)], s["rules"]
assert [(x["line"], x["bytes"]) for x in r["leaks"]["sites"]] == [(27, 33)]
PY
echo "report_json: ok"
