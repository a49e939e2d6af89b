# huge_numbers.sh - a report read back may hold any number: a timeline whose event count is
# near 2^64 renders as HTML in bounded time and size (its axis loop used to wrap and never
# end), and --diff of byte counts at or above 2^63 still says which way they moved.
set -eu
PY=/usr/bin/python3
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir huge_numbers
cat >prog.c <<'C'
#include <stdlib.h>
int main(void)
{
    return malloc(8) == NULL;
}
C
"$M" cc -g -O0 prog.c -o prog
MEMTRACK_OPTIONS=json=r.json ./prog 2>/dev/null || true
"$PY" - <<'PY'
import json
r = json.load(open("r.json"))
big = 2**64 - 5
r["timeline"]["samples"] = [{"event": 0, "bytes": 0, "blocks": 0, "usec": 0},
                            {"event": big, "bytes": 8, "blocks": 1, "usec": 1}]
r["timeline"]["peak"] = {"event": big, "bytes": 8, "blocks": 1, "usec": 1}
json.dump(r, open("huge.json", "w"))
PY
status=0
timeout 20 "$M" report huge.json --html out.html || status=$?
[ $status = 0 ] || { echo "status $status (124: it did not end)"; exit 1; }
size=$(wc -c <out.html)
[ "$size" -lt 1000000 ] || { echo "the page is $size bytes"; exit 1; }
grep -q "<svg" out.html

# --diff with byte counts on both sides of 2^63: the site leaks more, and the exit status says so.
"$PY" - <<'PY'
import json
r = json.load(open("r.json"))
site = r["leaks"]["sites"][0]
for name, n in (("before.json", 2**63 - 10), ("after.json", 2**63 + 100)):
    site["bytes"] = n
    r["leaks"]["bytes"] = n
    json.dump(r, open(name, "w"))
# Tens of thousands of sites on each side: matched by hash, in a moment (a scan of every pair
# took minutes and looked like a hang to a CI job).
sites = []
for i in range(60000):
    s = dict(site)
    s["bytes"], s["line"], s["file"] = 8, i + 1, "gen%d.c" % (i % 97)
    sites.append(s)
r["leaks"]["sites"] = sites
r["leaks"]["bytes"] = 8 * len(sites)
json.dump(r, open("many-before.json", "w"))
for s in sites[::2]:
    s["bytes"] = 16
json.dump(r, open("many-after.json", "w"))
PY
status=0
"$M" report --diff before.json after.json >diff.txt || status=$?
[ $status = 1 ] || { echo "--diff exit $status for a site that leaks more"; cat diff.txt; exit 1; }
grep -q "sites that leak more:" diff.txt || { cat diff.txt; exit 1; }
grep -q "+110 bytes" diff.txt || { cat diff.txt; exit 1; }
status=0
timeout 120 "$M" report --diff many-before.json many-after.json >many.txt || status=$?
[ $status = 1 ] || { echo "--diff of 60000 sites: status $status (124: it did not end)"; exit 1; }
[ "$(grep -c '^memtrack:   +8 bytes' many.txt)" = 30000 ]
