# report_negative_line.sh - a line number below zero, passed through an _at entry point by a
# wrapper with a bug, is reported as an unknown line (0): the JSON report stays valid against
# the project's own schema.
set -eu
PY=/usr/bin/python3 # Debian's, with python3-jsonschema (tools/deps.sh test)
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir report_negative_line
cat >prog.c <<'C'
#include <memtrack.h>
int main(void)
{
    return memtrack_malloc_at(8, "wrapper.c", -5, "wrap") == 0;
}
C
"$M" cc -g -O0 prog.c -o prog
MEMTRACK_OPTIONS=json=r.json ./prog 2>err.txt || true
grep -q "8 bytes in 1 block at wrapper.c:0 in wrap() by malloc" err.txt || { cat err.txt; exit 1; }
"$PY" - "$TOP/tools/report.schema.json" <<'PY'
import json, sys, jsonschema
validator = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
r = json.load(open("r.json"))
errors = [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(r)]
assert not errors, errors
site = r["leaks"]["sites"][0]
assert (site["file"], site["line"], site["function"]) == ("wrapper.c", 0, "wrap"), site
PY
