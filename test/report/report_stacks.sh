# report_stacks.sh - call stacks and allocation wrappers (issue 12) in the machine formats,
# from stacks.json, a report of format 5 written as the library writes one: valid against
# tools/report.schema.json; read back by memtrack report and written again byte for byte;
# bounded when read (a stack of more than 136 frames, more than 256 wrappers, a frame that
# misses a field are refused, naming it); reports of format 2 (no stacks) and 3 (no inlined
# frames) still read; the SARIF gives each result its stacks and code flows
# (test/lib/sarif_check.py: valid as SARIF 2.1.0 has them); the HTML lists every frame,
# escaped; the text shows them. Inlined places and frames (issue 15) in every form.
set -eu
PY=/usr/bin/python3 # Debian's, with python3-jsonschema (tools/deps.sh test)
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
fixture="$TOP/test/report/stacks.json"
workdir report_stacks

# The fixture is a valid report, and the schema holds stacks and wrappers to their shape.
$PY - "$TOP/tools/report.schema.json" "$fixture" <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
r = json.load(open(sys.argv[2]))
errors = [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(r)]
assert not errors, errors
assert r["version"] == 5
def broken(change):
    bad = json.loads(json.dumps(r))
    change(bad)
    return list(validator.iter_errors(bad))
site = lambda b, i=0: b["leaks"]["sites"][i]
assert broken(lambda b: site(b)["stack"][0].pop("line"))
assert broken(lambda b: site(b)["stack"][0].update(extra=1))
assert broken(lambda b: site(b)["stack"][0].update(address=12))
assert broken(lambda b: site(b).update(stack=[]))
assert broken(lambda b: site(b).update(stack=site(b)["stack"] * 137))
assert broken(lambda b: site(b)["stack"][0].update(inlined=False))  # only ever true
assert broken(lambda b: site(b).update(inlined=1))
assert broken(lambda b: b["wrappers"][0].pop("detected"))
assert broken(lambda b: b["wrappers"][1].update(detected="yes"))
assert broken(lambda b: b.update(wrappers=[]))
assert broken(lambda b: b["errors"]["list"][0]["found_at"]["stack"][0].pop("function"))

# Files the reader must refuse, and one it must read as it reads any.
def save(name, change):
    bad = json.loads(json.dumps(r))
    change(bad)
    json.dump(bad, open(name, "w"), indent=1)
save("deep.json", lambda b: site(b).update(stack=site(b)["stack"] * 137))
save("max.json", lambda b: site(b).update(stack=site(b)["stack"] * 136))
save("wrappers.json", lambda b: b.update(wrappers=b["wrappers"] * 129))
save("noline.json", lambda b: b["errors"]["list"][1]["released_at"]["stack"][0].pop("line"))
save("notarray.json", lambda b: site(b, 1).update(stack={"0": 1}))
save("nodetected.json", lambda b: b["wrappers"][1].pop("detected"))
# Format 2: no stacks, no wrappers.
def v2(b):
    b["version"] = 2
    del b["wrappers"]
    for s in b["leaks"]["sites"]:
        s.pop("stack", None)
    for e in b["errors"]["list"]:
        for k in ("allocated_at", "released_at", "found_at"):
            if e[k] is not None:
                e[k].pop("stack", None)
save("v2.json", v2)
save("v3.json", lambda b: b.update(version=3))  # format 3: the same, less inlined code
save("v4.json", lambda b: b.update(version=4))  # format 4: the same, no leak classes
# Code inlined: load_image's was inlined into read_file's at shapes.c:20, itself inlined
# into main at shapes.c:30 (one return address, three functions).
def inlined(b):
    s = site(b)
    s["inlined"] = True
    main = s["stack"][0]
    s["stack"] = [dict(main, function="read_file", line=20, inlined=True), main]
save("inlined.json", inlined)
assert not list(validator.iter_errors(json.load(open("inlined.json"))))
print("schema: ok")
PY

refuse() { # refuse FILE MESSAGE
    status=0
    "$M" report "$1" >/dev/null 2>refused.txt || status=$?
    [ $status = 2 ] || { echo "memtrack report $1: status $status"; exit 1; }
    grep -qxF "memtrack report: $1: $2" refused.txt || { echo "got:"; cat refused.txt; exit 1; }
}
refuse deep.json 'leaks.sites[0].stack holds more than 136 frames'
refuse wrappers.json 'wrappers holds more than 256 functions'
refuse noline.json 'errors.list[1].released_at.stack[0].line is missing'
refuse notarray.json 'leaks.sites[1].stack should be an array'
refuse nodetected.json 'wrappers[1].detected is missing'
"$M" report max.json --json max-again.json # 136 frames: the bound itself is read
[ "$(grep -c '"address": "0x55d0c0a01234"' max-again.json)" = 136 ]

# One model: the JSON written again is the fixture, byte for byte, stacks and wrappers too.
"$M" report "$fixture" --json again.json --sarif again.sarif --html again.html
cmp "$fixture" again.json
# Reports of formats 2 to 4 are read, and written again as format 5 with nothing more in
# them.
"$M" report v2.json --json v2-again.json
"$M" report v3.json --json v3-again.json
cmp "$fixture" v3-again.json
"$M" report v4.json --json v4-again.json
cmp "$fixture" v4-again.json
$PY - <<'PY'
import json
a, b = json.load(open("v2.json")), json.load(open("v2-again.json"))
assert b["version"] == 5 and "wrappers" not in b, b.keys()
assert dict(a, version=5) == b
assert all("stack" not in s for s in b["leaks"]["sites"])
PY
# Inlined code: read back and written again as it was; the text says which function the
# code was inlined into, the SARIF marks the inlined frames in their property bags, the
# HTML names the function that inlined each.
"$M" report inlined.json --json inlined-again.json --sarif inlined.sarif --html inlined.html
"$M" report inlined.json >inlined.txt
$PY - "$TOP/test/lib" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1])
import sarif_check
assert json.load(open("inlined.json")) == json.load(open("inlined-again.json"))
s = json.load(open("inlined.sarif"))
assert not sarif_check.check(s), sarif_check.check(s)
(st,) = s["runs"][0]["results"][0]["stacks"]
marks = [(f["location"]["logicalLocations"][0]["name"], f.get("properties")) for f in st["frames"]]
assert marks == [("load_image", {"inlined": True}), ("read_file", {"inlined": True}),
                 ("main", None)], marks
PY
grep -A3 -xF 'memtrack:   300 bytes in 1 block at shapes.c:12 in load_image() by malloc: #2' \
    inlined.txt >inlined.frames
printf '%s\n' 'memtrack:   300 bytes in 1 block at shapes.c:12 in load_image() by malloc: #2' \
    'memtrack:        inlined into shapes.c:20 in read_file()' \
    'memtrack:        inlined into shapes.c:30 in main()' \
    'memtrack:    48 bytes in 1 block at shapes.c:8 in parse_config() by malloc: #1' |
    diff -u - inlined.frames
grep -qF '<ol class="frames"><li class="inlined-into">inlined into read_file at shapes.c:20</li><li class="inlined-into">inlined into main at shapes.c:30</li></ol>' inlined.html
grep -qF '>shapes.c:12 in load_image() inlined into read_file at shapes.c:20</span>' inlined.html
# SARIF: each result has the stacks of its places, and the same as code flows, as SARIF
# 2.1.0 has them.
"$M" report "$fixture" --sarif lib.sarif
cmp lib.sarif again.sarif
$PY - "$TOP/test/lib" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1])
import sarif_check
s = json.load(open("again.sarif"))
errors = sarif_check.check(s)
assert not errors, errors
results = s["runs"][0]["results"]

def frame(f):
    loc = f["location"]
    name = loc["logicalLocations"][0]["name"]
    p = loc["physicalLocation"]
    if "region" in p:
        return (name, p["artifactLocation"]["uri"], p["region"]["startLine"])
    return (name, f["module"], p["address"]["absoluteAddress"])

def stacks(r):
    return [(st["message"]["text"], [frame(f) for f in st["frames"]]) for st in r["stacks"]]

leaks = [r for r in results if r["ruleId"].startswith("leak/")]
assert stacks(leaks[0]) == [("allocated at shapes.c:12 in load_image()",
    [("load_image", "shapes.c", 12), ("main", "shapes.c", 30)])], stacks(leaks[0])
assert stacks(leaks[1]) == [("allocated at shapes.c:8 in parse_config()",
    [("parse_config", "shapes.c", 8),
     ("settings::load<int>", "/usr/lib/libsettings.so.1", 0x7f3a12c0102a),
     ("main", "shapes.c", 29)])], stacks(leaks[1])
assert "stacks" not in leaks[2], leaks[2]  # made in main: no callers, no stack
over, double = [r for r in results if r["ruleId"].startswith("error/")]
assert stacks(over) == [
    ("allocated at shapes.c:16 in make_name()", [("make_name", "shapes.c", 16), ("main", "shapes.c", 32)]),
    ("found by free at shapes.c:21 in drop_name()", [("drop_name", "shapes.c", 21), ("main", "shapes.c", 33)]),
], stacks(over)
assert [m for m, _ in stacks(double)] == ["allocated at shapes.c:16 in make_name()",
    "released at shapes.c:21 in drop_name()", "found by free at shapes.c:21 in drop_name()"]
assert [f[-1][2] for _, f in stacks(double)] == [32, 33, 34], stacks(double)

# The same calls as code flows, in the order they ran: outermost first, nested by depth.
for r in results:
    assert len(r.get("codeFlows", [])) == len(r.get("stacks", [])), r
    for st, cf in zip(r.get("stacks", []), r.get("codeFlows", [])):
        assert cf["message"] == st["message"], (cf, st)
        (flow,) = cf["threadFlows"]
        steps = flow["locations"]
        assert [x["nestingLevel"] for x in steps] == list(range(len(steps))), steps
        assert [x["location"] for x in steps] == [f["location"] for f in reversed(st["frames"])]
assert [x["location"]["logicalLocations"][0]["name"]
        for x in leaks[1]["codeFlows"][0]["threadFlows"][0]["locations"]] == [
    "main", "settings::load<int>", "parse_config"]

# The check is not a rubber stamp: stacks broken as SARIF forbids fail it.
def broken(change):
    bad = json.loads(json.dumps(s))
    change(bad["runs"][0]["results"][0]["stacks"][0])
    return sarif_check.check(bad)
assert broken(lambda st: st.pop("frames"))
assert broken(lambda st: st["frames"][0].update(line=3))
assert broken(lambda st: st["frames"][1]["location"]["physicalLocation"]["region"].update(startLine=0))
assert broken(lambda st: st["frames"][1]["location"].update(physicalLocation={"region": {"startLine": 1}}))
assert broken(lambda st: st.update(message="text"))
def broken_flow(change):
    bad = json.loads(json.dumps(s))
    change(bad["runs"][0]["results"][0]["codeFlows"][0])
    return sarif_check.check(bad)
assert broken_flow(lambda cf: cf.pop("threadFlows"))
assert broken_flow(lambda cf: cf["threadFlows"][0]["locations"][0].update(nestingLevel=-1))
assert broken_flow(lambda cf: cf["threadFlows"][0].update(locations=[]))
print("sarif: ok")
PY
# HTML: every frame of every stack, under the place it belongs to, escaped; the wrappers.
"$M" report "$fixture" --html lib.html
cmp lib.html again.html
grep -qF '<li>settings::load&lt;int&gt;+0x2a (libsettings.so.1)</li>' again.html
# A bar names its site's first caller: two bars of one site would otherwise read the same.
grep -qF '>shapes.c:12 in load_image() from main at shapes.c:30</span>' again.html
grep -qF '>shapes.c:31 in main()</span>' again.html
$PY - <<'PY'
from html.parser import HTMLParser
class Stacks(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stacks, self.cur, self.text, self.tags, self.note = [], None, None, [], None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "details" and "stack" in a.get("class", "").split():
            self.cur = {"class": a["class"].split()[1], "frames": int(a["data-frames"]),
                        "summary": "", "items": []}
        elif tag == "li" and self.cur is not None:
            self.text = ""
        elif tag == "p" and a.get("id") == "wrappers-note":
            self.note = ""
        self.tags.append(tag)
    def handle_endtag(self, tag):
        self.tags.pop()
        if tag == "details" and self.cur is not None:
            self.stacks.append(self.cur)
            self.cur = None
        elif tag == "li" and self.text is not None:
            self.cur["items"].append(self.text)
            self.text = None
        elif tag == "p" and self.note is not None:
            self.stacks.append({"note": self.note})
            self.note = None
    def handle_data(self, data):
        if self.text is not None:
            self.text += data
        elif self.cur is not None and self.tags[-1] == "summary":
            self.cur["summary"] += data
        if self.note is not None:
            self.note += data
p = Stacks()
p.feed(open("again.html", encoding="utf-8").read())
note = [s["note"] for s in p.stacks if "note" in s]
assert note == ["Leaks made inside allocation wrappers are shown at their callers: xmalloc "
                "(util.c:4, found by memtrack's rule), g_malloc (libglib-2.0.so.0, named by "
                "option alloc_fn)."], note
got = [(s["class"], s["frames"], s["summary"], s["items"]) for s in p.stacks if "note" not in s]
assert got == [
    ("leak-stack", 1, "call stack (1 frame)", ["main at shapes.c:30"]),
    ("leak-stack", 2, "call stack (2 frames)",
     ["settings::load<int>+0x2a (libsettings.so.1)", "main at shapes.c:29"]),
    ("alloc-stack", 1, "call stack (1 frame)", ["main at shapes.c:32"]),
    ("found-stack", 1, "call stack (1 frame)", ["main at shapes.c:33"]),
    ("alloc-stack", 1, "call stack (1 frame)", ["main at shapes.c:32"]),
    ("found-stack", 1, "call stack (1 frame)", ["main at shapes.c:34"]),
    ("release-stack", 1, "call stack of the release (1 frame)", ["main at shapes.c:33"]),
], got
print("html: ok")
PY
# Text: each leak site's callers under it (the exit report's form, src/report/render_text.c).
"$M" report "$fixture" >again.txt
grep -A2 -xF 'memtrack:    48 bytes in 1 block at shapes.c:8 in parse_config() by malloc: #1' \
    again.txt >frames.txt
printf '%s\n' 'memtrack:    48 bytes in 1 block at shapes.c:8 in parse_config() by malloc: #1' \
    'memtrack:        from 0x7f3a12c0102a in settings::load<int>+0x2a (libsettings.so.1)' \
    'memtrack:        from shapes.c:29 in main()' | diff -u - frames.txt
# and the wrappers read back, each with where it allocates or why it is one
grep -q 'xmalloc() (util\.c:4' again.txt && grep -q 'g_malloc() (option alloc_fn)' again.txt ||
    { cat again.txt; exit 1; }

# A real program's stacks: the library writes them, and every form rendered again from
# its JSON is the one it wrote (the text too, less the error list only memtrack report
# prints).
cat >prog.c <<'C'
#include <stdlib.h>
static char *keep(size_t n) { return malloc(n); }
static char *kept[2];
static void parse(void) { kept[0] = keep(48); }
static void load(void) { kept[1] = keep(300); }
static void scribble(void) { char *p = keep(8); p[8] = 'x'; free(p); }
int main(void)
{
    parse();
    load();
    scribble();
    return 0;
}
C
"$M" cc -g -O0 prog.c -o prog
MEMTRACK_OPTIONS=json=prog.json:sarif=prog.sarif:html=prog.html ./prog 2>prog.txt || true
"$M" report prog.json --json prog-again.json --sarif prog-again.sarif --html prog-again.html
cmp prog.json prog-again.json
cmp prog.sarif prog-again.sarif
cmp prog.html prog-again.html
sed -n '/^memtrack: report for/,$p' prog.txt >prog.report
"$M" report prog.json | grep -v '^memtrack:   overrun: block' | diff -u prog.report -
$PY - "$TOP/tools/report.schema.json" "$TOP/test/lib" <<'PY'
import json, sys, jsonschema
sys.path.insert(0, sys.argv[2])
import sarif_check
r = json.load(open("prog.json"))
jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(r)
# The chain of calls down to each site (keep() only returns its block: an allocation
# wrapper, seen through to its caller).
def chain(p):
    return [(p["function"], p["line"])] + [(f["function"], f["line"]) for f in p["stack"]]
chains = [chain(s) for s in r["leaks"]["sites"]]
def calls(c, caller, callee):  # callee is called by caller, the next frame out
    return callee in c and c.index(callee) + 1 < len(c) and c[c.index(callee) + 1] == caller
assert chains == [[("load", 5), ("main", 10)], [("parse", 4), ("main", 9)]], chains
e = r["errors"]["list"][0]
assert chain(e["allocated_at"]) == [("scribble", 6), ("main", 11)], e
assert chain(e["found_at"]) == [("scribble", 6), ("main", 11)], e
s = json.load(open("prog.sarif"))
assert not sarif_check.check(s), sarif_check.check(s)
assert all("stacks" in x for x in s["runs"][0]["results"])
PY
# A wrapper named by option alloc_fn: listed in the JSON as named, not detected, its leak
# shown at its caller, and read back with the rest.
cat >named.c <<'C'
#include <stdlib.h>
void *my_alloc(size_t n);
void *my_alloc(size_t n) { return calloc(1, n); }
static void *made;
static void make(void) { made = my_alloc(5); }
int main(void)
{
    make();
    return 0;
}
C
"$M" cc -g -O0 named.c -o named
MEMTRACK_OPTIONS=json=named.json:html=named.html:alloc_fn=my_alloc ./named 2>/dev/null || true
"$M" report named.json --json named-again.json --html named-again.html
cmp named.json named-again.json
cmp named.html named-again.html
grep -qF '<code>my_alloc</code> (named.c:3, named by option alloc_fn)' named.html
$PY - <<'PY'
import json
r = json.load(open("named.json"))
assert [(w["function"], w["file"], w["line"], w["detected"]) for w in r["wrappers"]] == [
    ("my_alloc", "named.c", 3, False)], r["wrappers"]
site = r["leaks"]["sites"][0]
assert (site["function"], site["line"]) == ("make", 5), site
PY
echo "report_stacks: ok"
