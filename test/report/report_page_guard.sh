# report_page_guard.sh - faults at page guards in the JSON report: valid against the
# schema, with what the access did ("access") and where (found_at, offset), and read back
# by `memtrack report`, which names the same lines.
set -eu
PY=/usr/bin/python3 # Debian's, with python3-jsonschema (tools/deps.sh test)
d="$OUT/report_page_guard"
mkdir -p "$d"
cd "$TOP/test/fault"
"$TOP/memtrack" cc -g -O0 page_guard_after_free.c -o "$d/after_free"
MEMTRACK_OPTIONS="page_guard_site=page_guard_after_free.c:21:json=$d/r.json" "$d/after_free" \
    >/dev/null 2>&1
$PY - "$TOP/tools/report.schema.json" "$d/r.json" <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
jsonschema.validate(r, schema)
got = [(e["kind"], e.get("access"), e["offset"], e["found_at"]["kind"], e["found_at"]["line"],
        e["released_at"]["line"]) for e in r["errors"]["list"]]
# (released at main's lines: logout() only frees what it is given, a release wrapper)
assert got == [("use after free", "write", 32, "page guard", 32, 31),
               ("use after free", "read", 32, "page guard", 34, 33),
               ("double free", None, 0, "free", 35, 31)], got
PY
"$TOP/build/memtrack-report" "$d/r.json" >"$d/report.txt" 2>&1
grep -q 'use after free: block #1 (36 bytes) .* found by page guard at page_guard_after_free.c:32 in main()' \
    "$d/report.txt" || { cat "$d/report.txt"; exit 1; }
