# report_no_stacks.sh - a target without call stacks (Cortex-M) says so in its JSON
# (stack_notes.unavailable, tools/report.schema.json) and memtrack report says it again, once,
# after the statistics, in the text and the HTML, and keeps it in the JSON it writes; a report
# without the field (every other target) says nothing of it. The platform tests check the
# library's side (test/platforms/run.sh, NO_STACKS).
set -eu
PY=/usr/bin/python3
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir report_no_stacks
cat >leak.c <<'C'
#include <stdlib.h>
int main(void) { return malloc(7) == NULL; }
C
$CC -g -DMEMORY_CONTROL_ON -I"$TOP/include" -include memtrack.h leak.c -o leak \
    "$TOP/build/libmemtrack.a" -ldl -pthread
MEMTRACK_OPTIONS=json=hosted.json ./leak 2>/dev/null
grep -q '"stack_notes"' hosted.json && { echo "a hosted target wrote stack_notes"; exit 1; }
"$M" report hosted.json >hosted.txt
! grep -q 'call stacks' hosted.txt
$PY - "$TOP/tools/report.schema.json" hosted.json bare.json <<'PY'
import json, sys, jsonschema
v = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
r = json.load(open(sys.argv[2]))
r["stack_notes"] = {"unwalked": 0, "no_frame_pointers": False,
                    "unavailable": "no unwinder works on Thumb code"}
assert not list(v.iter_errors(r))
r2 = json.loads(json.dumps(r)); r2["stack_notes"]["unavailable"] = 3
assert list(v.iter_errors(r2)), "a reason that is not a string passed"
json.dump(r, open(sys.argv[3], "w"))
PY
"$M" report bare.json >bare.txt
[ "$(grep -c '^memtrack: call stacks: not available on this target (no unwinder works on Thumb code)$' bare.txt)" = 1 ]
grep -A1 '^memtrack: peak ' bare.txt | grep -q '^memtrack: call stacks: '
"$M" report bare.json --json again.json --html bare.html
grep -q '"unavailable": "no unwinder works on Thumb code"' again.json
grep -q 'id="stacks-unavailable">Call stacks: not available on this target (no unwinder works on Thumb code)' bare.html
echo ok
