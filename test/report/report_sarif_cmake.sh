# report_sarif_cmake.sh - the SARIF of a project built out of tree with CMake resolves from the
# directory the program ran in: every artifactLocation names an existing file (an absolute
# file URI, or a path under SRCROOT, the run's directory). The project's leaks and errors lie
# in its sources, in a source CMake generates into the build tree (configure_file: the debug
# information names it relative to its compilation directory, the build tree), and in C++;
# the program runs from a third directory. On the same report read back, `memtrack report
# --sarif` gives the same. (Issue 26: relative paths were emitted relative to the run's
# directory, where they name nothing.)
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir report_sarif_cmake
command -v cmake >/dev/null 2>&1 || { echo "cmake is missing (tools/deps.sh test installs it)"; exit 1; }
mkdir -p project/src/util project/templates run
cat >project/CMakeLists.txt <<'CMAKE'
cmake_minimum_required(VERSION 3.13)
project(shapes C CXX)
configure_file(templates/generated.c.in generated.c COPYONLY)
add_library(util STATIC src/util/names.c)
add_executable(shapes src/main.c src/shapes.cpp ${CMAKE_CURRENT_BINARY_DIR}/generated.c)
target_link_libraries(shapes util)
CMAKE
cat >project/src/util/names.c <<'C'
#include <stdlib.h>
#include <string.h>
static char *kept[4];
void keep_name(const char *s)
{
    kept[0] = strdup(s);
}
C
cat >project/templates/generated.c.in <<'C'
void keep_name(const char *s);
void generated_names(void)
{
    keep_name("generated");
}
C
cat >project/src/shapes.cpp <<'C'
struct Shape {
    int sides;
};
static Shape *kept;
extern "C" void make_shape(void)
{
    kept = new Shape{3};
}
C
cat >project/src/main.c <<'C'
#include <stdlib.h>
void generated_names(void);
void make_shape(void);
int main(void)
{
    char *p = malloc(8);
    free(p);
    free(p);
    generated_names();
    make_shape();
    return 0;
}
C
CC="$M cc" CXX="$M c++" cmake -S project -B build -DCMAKE_BUILD_TYPE=Debug >cmake.log 2>&1 ||
    { cat cmake.log; exit 1; }
cmake --build build >>cmake.log 2>&1 || { cat cmake.log; exit 1; }
status=0
(cd run && MEMTRACK_OPTIONS=sarif=../out.sarif:json=../out.json ../build/shapes 2>../run.err) ||
    status=$?
[ $status = 0 ] || { cat run.err; exit 1; }
"$M" report out.json --sarif again.sarif

/usr/bin/python3 - "$d" "$TOP/test/lib" <<'PY'
import json, os, sys, urllib.parse
d = sys.argv[1]
sys.path.insert(0, sys.argv[2])
import sarif_check

def locations(node):
    if isinstance(node, dict):
        if "artifactLocation" in node:
            yield node["artifactLocation"]
        for v in node.values():
            yield from locations(v)
    elif isinstance(node, list):
        for v in node:
            yield from locations(v)

for name in ("out.sarif", "again.sarif"):
    log = json.load(open(os.path.join(d, name)))
    errors = sarif_check.check(log)
    assert not errors, errors
    run = log["runs"][0]
    bases = {k: v["uri"] for k, v in run.get("originalUriBaseIds", {}).items()}
    assert bases["SRCROOT"] == "file://" + os.path.join(d, "run") + "/", bases
    seen = set()
    for loc in locations(run["results"]):
        uri = loc["uri"]
        if "uriBaseId" in loc:
            uri = bases[loc["uriBaseId"]] + uri
        assert uri.startswith("file://"), (name, loc)
        path = urllib.parse.unquote(uri[len("file://"):])
        assert os.path.isfile(path), (name, loc, path)
        seen.add(os.path.basename(path))
    # the sources themselves, the generated one included, not only the program's file
    for want in ("main.c", "names.c", "generated.c", "shapes.cpp"):
        assert want in seen, (name, want, sorted(seen))
PY
echo "ok: every location of both reports resolves to a file"
