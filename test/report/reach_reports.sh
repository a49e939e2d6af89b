# reach_reports.sh - the leak scan's classes and holders in every form: the JSON report
# (valid against tools/report.schema.json) has each site's class and held_by, with the
# chain through blocks and the offset of a pointer into one; SARIF marks a leak the program
# still points at as a note, the others as warnings, with the class and holder in the
# message and properties; HTML has a Class and a Held by column; `memtrack report` renders
# the same text from the JSON, with leaks=lost too; a report that names an unknown class
# or holder is refused.
set -eu
PY=/usr/bin/python3 # Debian's, with python3-jsonschema (tools/deps.sh test)
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir reach_reports
cp "$TOP/test/e2e/reach.c" .
"$M" cc -g -O0 reach.c -o reach -pthread
MEMTRACK_OPTIONS=json=all.json:sarif=all.sarif:html=all.html ./reach 2>all.txt
MEMTRACK_OPTIONS=json=lost.json:leaks=lost ./reach 2>lost.txt

$PY - "$TOP/tools/report.schema.json" <<'PY'
import json, re, sys
import jsonschema
validator = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
for name in ("all.json", "lost.json"):
    errors = list(validator.iter_errors(json.load(open(name))))
    assert not errors, [f"{name} {list(e.path)}: {e.message}" for e in errors]

r = json.load(open("all.json"))
assert r["version"] == 5
L = r["leaks"]
assert L["classified"] is True and L["lost_only"] is False and "held" not in L, L
by_line = {s["line"]: s for s in L["sites"] if s["file"] == "reach.c"}
order = [s["class"] for s in L["sites"]]
assert order == sorted(order, key=["lost", "indirect", "possible", "reachable"].index), order
def held(line):
    h = by_line[line]["held_by"]
    return (h["kind"], h["name"], h["function"], h["line"], h["thread"], h["offset"], h["chain"],
            h["chain_length"])
assert by_line[32]["class"] == "lost" and "held_by" not in by_line[32]
assert by_line[33]["class"] == "indirect" and held(33) == ("lost", None, None, 0, 0, 0, [5, 6], 2)
assert by_line[63]["class"] == "possible" and held(63) == ("static", "g_middle", None, 21, 0, 32, [], 0)
assert held(57) == ("global", "g_cache", None, 19, 0, 0, [], 0)
assert held(59) == ("static", "g_list", None, 20, 0, 0, [], 0)
assert held(60) == ("static", "g_list", None, 20, 0, 0, [3, 4], 2)
assert held(27) == ("static", "kept", "remember", 26, 0, 0, [], 0)
assert held(64) == ("stack", None, "main", 68, 1, 0, [], 0)
assert held(39) == ("stack", None, None, 0, 2, 0, [], 0)

l = json.load(open("lost.json"))["leaks"]
assert l["classified"] and l["lost_only"], l
assert [(s["line"], s["class"]) for s in l["sites"]] == [(32, "lost"), (33, "indirect")], l["sites"]
assert l["bytes"] == 64 and l["held"]["blocks"] == 7 and l["held"]["bytes"] == 306, l

s = json.load(open("all.sarif"))
results = s["runs"][0]["results"]
levels = {}
for res in results:
    line = res["locations"][0]["physicalLocation"]["region"]["startLine"]
    levels[line] = (res["level"], res["properties"].get("class"), res["properties"].get("heldBy"))
assert levels[32] == ("warning", "lost", None), levels[32]
assert levels[33] == ("warning", "indirect", "held by lost block #5 -> #6"), levels[33]
assert levels[57] == ("note", "reachable", "held by g_cache at reach.c:19"), levels[57]
assert levels[60][2] == "held by g_list at reach.c:20 -> #3 -> #4", levels[60]
msg = [res["message"]["text"] for res in results
       if res["locations"][0]["physicalLocation"]["region"]["startLine"] == 63][0]
assert msg.endswith("; possibly lost: held by g_middle at reach.c:21 (a pointer 32 bytes into it)"), msg

html = open("all.html").read()
assert "<th>Class</th>" in html and "<th>Held by</th>" in html
assert '<td class="held">held by g_list at reach.c:20 -&gt; #3 -&gt; #4</td>' in html
assert re.search(r'<td class="class" data-value="\d">indirectly lost</td>', html)
print("classes and holders in JSON, SARIF and HTML: ok")
PY
python3 "$TOP/test/lib/sarif_check.py" all.sarif

# The text rendered again from the JSON is the one the program printed (one model).
for form in all lost; do
    "$M" report $form.json >$form.again 2>&1
    diff $form.txt $form.again
done

# A report naming a class or a holder memtrack does not know is refused, with the reason.
sed 's/"class": "lost"/"class": "gone"/' all.json >bad-class.json
if "$M" report bad-class.json >out.txt 2>&1; then exit 1; fi
grep -q 'class should be' out.txt
sed 's/"kind": "global"/"kind": "heap"/' all.json >bad-holder.json
if "$M" report bad-holder.json >out.txt 2>&1; then exit 1; fi
grep -q 'unknown holder "heap"' out.txt
echo "reach_reports: ok"
