# report_long_names.sh - no silent truncation in the machine formats: a file name of 5,000
# bytes (generated code does that) and a multi-byte UTF-8 function name appear whole in the
# SARIF message, its fingerprint (which still starts with the kind) and the HTML page.
set -eu
PY=/usr/bin/python3
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir report_long_names
long=$("$PY" -c 'print("d/" * 2500 + "gen.c")')
cat >prog.c <<C
#include <memtrack.h>
int main(void)
{
    return memtrack_malloc_at(8, "$long", 7, "fonction_\xc3\xa9t\xc3\xa9") == 0;
}
C
"$M" cc -g -O0 prog.c -o prog
MEMTRACK_OPTIONS=sarif=r.sarif:html=r.html ./prog 2>/dev/null || true
LONG="$long" "$PY" - <<'PY'
import json, os
long = os.environ["LONG"]
r = json.loads(open("r.sarif", "rb").read().decode("utf-8"))
res = r["runs"][0]["results"][0]
text = res["message"]["text"]
assert text.startswith("8 bytes in 1 block allocated by malloc at "), text[:80]
assert long + ":7 in fonction_\u00e9t\u00e9()" in text, text[-120:]
fp = res["partialFingerprints"]["memtrackSite/v1"]
assert fp == "leak:malloc:" + long + ":fonction_\u00e9t\u00e9", fp[:40]
html = open("r.html", "rb").read().decode("utf-8")
assert long + ":7 in fonction_\u00e9t\u00e9()" in html
PY
