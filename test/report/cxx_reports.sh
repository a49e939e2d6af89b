# cxx_reports.sh - a C++ program's JSON and SARIF reports: valid against the schema, the
# mismatches with both kinds and both lines (sites known by return address, resolved from
# the debug information), the leaks of new and new[] by line.
set -eu
PY=/usr/bin/python3 # Debian's, with python3-jsonschema (tools/deps.sh test)
d="$OUT/cxx_reports"
mkdir -p "$d"
"$TOP/memtrack" c++ -g -O0 "$TOP/test/e2e/cxx_mismatch.cpp" -o "$d/mismatch"
"$TOP/memtrack" c++ -g -O0 "$TOP/test/e2e/cxx_leaks.cpp" -o "$d/leaks"
status=0
"$TOP/memtrack" run --json "$d/mismatch.json" --sarif "$d/mismatch.sarif" "$d/mismatch" \
    >/dev/null 2>&1 || status=$?
[ $status = 23 ] || { echo "mismatch: status $status, expected 23"; exit 1; }
status=0
"$TOP/memtrack" run --json "$d/leaks.json" "$d/leaks" >/dev/null 2>&1 || status=$?
[ $status = 23 ] || { echo "leaks: status $status, expected 23"; exit 1; }
$PY - "$TOP/tools/report.schema.json" "$d" <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
d = sys.argv[2]
m = json.load(open(d + "/mismatch.json"))
jsonschema.validate(m, schema)
got = [(e["kind"], e["allocated_at"]["kind"], e["allocated_at"]["line"],
        e["found_at"]["kind"], e["found_at"]["line"]) for e in m["errors"]["list"]]
assert got == [("mismatch", "new[]", 18, "delete", 19), ("mismatch", "new", 21, "delete[]", 22),
               ("mismatch", "malloc", 24, "delete", 25), ("mismatch", "new", 27, "free", 28),
               ("mismatch", "new[]", 30, "realloc", 31)], got
for e in m["errors"]["list"]:
    assert e["allocated_at"]["file"].endswith("cxx_mismatch.cpp"), e
    assert e["allocated_at"]["function"] == "main", e
assert m["leaks"]["blocks"] == 0, m["leaks"]
s = json.load(open(d + "/mismatch.sarif"))
texts = [r["message"]["text"] for r in s["runs"][0]["results"]]
assert any("allocated at" in t and "cxx_mismatch.cpp:18 in main() by new[], found by delete at"
           in t for t in texts), texts
l = json.load(open(d + "/leaks.json"))
jsonschema.validate(l, schema)
sites = [(x["kind"], x["bytes"], x["line"], x["function"]) for x in l["leaks"]["sites"]]
assert sites == [("new[]", 100, 22, "main"), ("new", 16, 24, "main")], sites  # make_node() only returns its block
PY
echo "cxx_reports: ok"
