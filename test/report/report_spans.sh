# report_spans.sh - an overrun that ran across other blocks' guards carries how many in the JSON
# report ("spans", valid against the schema), and the report read back says it as the program did.
set -eu
PY=/usr/bin/python3
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir report_spans
cp "$TOP/test/fault/overrun_spans.c" .
"$M" cc -g -O0 overrun_spans.c -o prog
MEMTRACK_OPTIONS=json=r.json ./prog 2>err.txt || true
"$PY" - "$TOP/tools/report.schema.json" <<'PY'
import json, sys, jsonschema
r = json.load(open("r.json"))
errors = [e.message for e in jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).iter_errors(r)]
assert not errors, errors
spans = [e.get("spans") for e in r["errors"]["list"]]
assert spans == [1, 8], spans
PY
"$M" report r.json >again.txt
grep -q "at least 3740 bytes from the block, across the guards of the next 8 blocks" again.txt ||
    { cat again.txt; exit 1; }
