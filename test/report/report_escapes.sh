# report_escapes.sh - memtrack report escapes every string it reads from a report file: a
# crafted JSON whose kinds (of leak sites, errors, errors.by_kind's keys, messages not
# printed, unwritten sites) and "what" hold escape sequences, control characters, line
# breaks and bytes that are not UTF-8 cannot move the cursor, retitle the terminal or forge
# a line of memtrack's; nor can the message naming a bad member of such a file.
set -eu
PY=/usr/bin/python3
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir report_escapes
cat >prog.c <<'C'
#include <stdlib.h>
static char table[16];
int main(void)
{
    for (int i = 0; i < 2; i++) {
        char *a = malloc(10);
        free(a);
        free(a); /* a double free printed, one counted */
    }
    char *b = malloc(64);
    free(b);
    free(table); /* an invalid free: "what" */
    (void)malloc(7); /* a leak */
    return 0;
}
C
"$M" cc -g -O0 prog.c -o prog
MEMTRACK_OPTIONS=json=r.json:max_messages=1:unwritten=1 ./prog 2>/dev/null || true
$PY - <<'PY'
import json
r = json.load(open("r.json"))
evil = "\u001b[2J\u001b]0;owned\u0007\r\nmemtrack: forged line\u009b31m\u007f\u202e"
r["leaks"]["sites"][0]["kind"] = "malloc" + evil
r["errors"]["by_kind"] = {k + evil: v for k, v in r["errors"]["by_kind"].items()}
for e in r["errors"]["list"]:
    e["kind"] = e["kind"] + evil
    if e["what"] is not None:
        e["what"] = e["what"] + evil
for n in r["errors"]["not_printed"]:
    n["kind"] = n["kind"] + evil
for u in r["unwritten"]["sites"]:
    u["kind"] = u["kind"] + evil
assert r["errors"]["list"] and r["errors"]["not_printed"] and r["unwritten"]["sites"]
assert any(e["what"] for e in r["errors"]["list"])
json.dump(r, open("crafted.json", "w"))
# not valid UTF-8 either: a stray byte inside a kind
raw = open("crafted.json", "rb").read().replace(b'"malloc\\u001b', b'"malloc\xff\\u001b', 1)
open("crafted.json", "wb").write(raw)
# a member whose name is the attack, in a place where the reader refuses it
bad = json.load(open("r.json"))
bad["errors"]["by_kind"] = {"overrun\u001b[31m\nmemtrack: forged": "x"}
json.dump(bad, open("bad.json", "w"))
PY
"$M" report crafted.json >out.txt
"$M" report --diff r.json crafted.json >diff.txt || true
status=0
"$M" report bad.json 2>bad.txt || status=$?
[ $status = 2 ] || { echo "bad.json: status $status"; exit 1; }
$PY - <<'PY'
for name in ["out.txt", "diff.txt", "bad.txt"]:
    data = open(name, "rb").read()
    text = data.decode("utf-8")  # valid UTF-8, whatever the file held
    for c in text:
        assert c == "\n" or (ord(c) >= 0x20 and ord(c) != 0x7f and not 0x80 <= ord(c) < 0xa0
                              and not 0x202a <= ord(c) <= 0x202e), (name, repr(c))
    lines = text.splitlines()
    assert not any("forged line" in l and l.startswith("memtrack: forged") for l in lines), name
    if name != "diff.txt":
        assert all(l.startswith("memtrack") for l in lines), (name, lines)
out = open("out.txt").read()
assert "by malloc\\xff\\x1b[2J" in out, out  # shown, escaped
assert "errors: double free\\x1b[2J" in out, out
print("escaped: ok")
PY

# The allocations made to fail on purpose (fail_nth) are read back too: their kinds escaped.
MEMTRACK_OPTIONS=json=f.json:fail_nth=1 ./prog 2>/dev/null || true
$PY - <<'PY'
import json
r = json.load(open("f.json"))
evil = "\u001b[2J\r\nmemtrack: forged line\u009b31m"
assert r["injected"]["sites"], r["injected"]
for s in r["injected"]["sites"]:
    s["kind"] = s["kind"] + evil
json.dump(r, open("crafted_fail.json", "w"))
PY
"$M" report crafted_fail.json >fail_out.txt
$PY - <<'PY'
text = open("fail_out.txt", "rb").read().decode("utf-8")
for c in text:
    assert c == "\n" or (ord(c) >= 0x20 and ord(c) != 0x7f and not 0x80 <= ord(c) < 0xa0), repr(c)
assert all(l.startswith("memtrack") for l in text.splitlines()), text
assert "by malloc\\x1b[2J" in text, text
print("injected escaped: ok")
PY
