# hostile_names.sh - names are data, never commands: a file or function name holding terminal
# escapes, a forged "memtrack:" line or bytes that are not UTF-8 is printed escaped in the text
# report, and the JSON, SARIF and HTML reports stay valid UTF-8 (JSON valid against the schema);
# a crafted JSON report read back is rendered with every name escaped.
set -eu
PY=/usr/bin/python3
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir hostile_names
cat >prog.c <<'C'
#include <memtrack.h>
int main(void)
{
    /* what a generated file name or a mangled symbol may hold */
    return memtrack_malloc_at(8, "evil\033[2J\377.c", 7, "fn\nmemtrack: forged") == 0;
}
C
"$M" cc -g -O0 prog.c -o prog
MEMTRACK_OPTIONS=json=r.json:sarif=r.sarif:html=r.html ./prog 2>err.txt || true
! grep -q "$(printf '\033')" err.txt || { echo "an escape byte reached the terminal"; exit 1; }
! grep -q '^memtrack: forged' err.txt || { echo "a name forged a line"; exit 1; }
grep -qF 'evil\x1b[2J\xff.c:7 in fn\x0amemtrack: forged()' err.txt || { cat err.txt; exit 1; }
"$M" report r.json --json again.json
"$PY" - "$TOP/tools/report.schema.json" <<'PY'
import json, sys, jsonschema
for name in ("r.json", "r.sarif", "again.json"):
    text = open(name, "rb").read().decode("utf-8")  # strict: fails on a stray byte
    json.loads(text)
open("r.html", "rb").read().decode("utf-8")
validator = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
r = json.load(open("r.json"))
errors = [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(r)]
assert not errors, errors
assert r["leaks"]["sites"][0]["file"] == "evil\x1b[2J\ufffd.c", r["leaks"]["sites"][0]
# a report read back may say anything: its error kinds and option names are JSON keys
r["errors"]["by_kind"] = {'quote" and \x01 control': 1}
r["options"] = {'bad"name\x02': "1"}
json.dump(r, open("crafted.json", "w"))
PY
for form in json sarif; do
    "$M" report crafted.json --$form out.$form
    "$PY" -c "import json,sys; json.loads(open(sys.argv[1],'rb').read().decode('utf-8'))" out.$form ||
        { echo "--$form of a crafted report is not valid JSON"; exit 1; }
done
