# fail_sweep.sh - `memtrack run --fail-sweep`: a small library with three allocation points,
# one whose failure is handled, one whose error path leaks and one whose failure leads to a
# NULL dereference. The sweep names exactly those two paths, headlined at the lines whose
# failure they follow, with where it crashed and what leaked, and a command that runs each
# again (and does); the handled one is not listed. The same with --preload on the library
# built without memtrack. JSON (against its schema), SARIF and HTML of the summary; exit
# status 23 (or --exitcode) when a path went wrong, 0 once they are fixed; the window of
# memtrack_fail_begin() spares start-up; bad input gets a message and status 2.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir fail_sweep
PY=/usr/bin/python3 # Debian's, with python3-jsonschema (tools/deps.sh test)
cat >lib.h <<'C'
struct doc;
struct doc *doc_new(const char *title);
void doc_free(struct doc *d);
C
cat >lib.c <<'C'
#include <stdlib.h>
#include <string.h>

#include "lib.h"

struct doc {
    char *title;
    int *counts;
};

struct doc *doc_new(const char *title)
{
    struct doc *d = malloc(sizeof *d);
    if (d == NULL)
        return NULL;
    d->title = strdup(title);
#ifdef FIXED
    if (d->title == NULL) {
        free(d);
        return NULL;
    }
#else
    if (d->title == NULL)
        return NULL;
#endif
    d->counts = calloc(4, sizeof *d->counts);
#ifdef FIXED
    if (d->counts == NULL) {
        free(d->title);
        free(d);
        return NULL;
    }
#endif
    d->counts[0] = 1;
    return d;
}

void doc_free(struct doc *d)
{
    free(d->counts);
    free(d->title);
    free(d);
}
C
cat >main.c <<'C'
#include <stdio.h>
#include <stdlib.h>

#include "lib.h"

int main(void)
{
    char *line = malloc(80); /* start-up, outside the window */
#ifdef WINDOW
    memtrack_fail_begin();
#endif
    struct doc *d = doc_new("hello");
#ifdef WINDOW
    memtrack_fail_end();
#endif
    free(line);
    if (d == NULL) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    doc_free(d);
    return 0;
}
C
"$M" cc -g -O0 lib.c main.c -o doc

sweep() { # sweep EXPECTED-STATUS ARGS...: stderr in sweep.err
    want=$1
    shift
    status=0
    "$M" run "$@" >sweep.out 2>sweep.err </dev/null || status=$?
    [ "$status" = "$want" ] || { echo "memtrack run $*: status $status, expected $want"; cat sweep.err; exit 1; }
}
check_paths() { # the two paths, at their lines, and nothing else
    grep -qx "memtrack: fail sweep of $1: 4 allocations, each made to fail in turn (4 runs, 2 at a time, [0-9]* s)" sweep.err
    grep -qx 'memtrack: crash (SIGSEGV) when calloc at lib.c:26 in doc_new() returned NULL: allocation 4' sweep.err
    grep -qx 'memtrack:   crashed at lib.c:34 in doc_new()' sweep.err
    grep -qx 'memtrack: leak when strdup at lib.c:16 in doc_new() returned NULL: allocation 3' sweep.err
    grep -qx 'memtrack:   16 bytes in 1 block leaked, allocated at lib.c:13 in doc_new() by malloc' sweep.err
    [ "$(grep -c '^memtrack:       from main.c:12 in main()$' sweep.err)" = 4 ]
    grep -qx "memtrack:   run it again: MEMTRACK_OPTIONS=fail_nth=4 $M run$2 -- $1" sweep.err
    grep -qx "memtrack:   run it again: MEMTRACK_OPTIONS=fail_nth=3 $M run$2 -- $1" sweep.err
    grep -qx 'memtrack: 2 failure paths went wrong (1 crash, 1 leak); 2 runs handled the failure cleanly' sweep.err
    # the handled failures (allocations 1 and 2, main's malloc and doc_new's) are not listed
    if grep -E 'when malloc at (main.c:8|lib.c:13)' sweep.err; then exit 1; fi
    [ "$(grep -c '^memtrack: [a-z]* .*when ' sweep.err)" = 2 ]
}
sweep 23 --fail-sweep --json sweep.json --sarif sweep.sarif --html sweep.html -- ./doc
check_paths ./doc ""
[ ! -s sweep.out ] # the program's output is not the sweep's

# Each command runs its failure again: the crash, and the leak
for k in 3 4; do
    cmd=$(sed -n "s/^memtrack:   run it again: \(MEMTRACK_OPTIONS=fail_nth=$k .*\)/\1/p" sweep.err)
    status=0
    eval "$cmd" >again.out 2>again.err || status=$?
    grep -qx "memtrack: fail_nth=$k: .* returns NULL, on purpose" again.err
    if [ $k = 4 ]; then
        [ $status = 139 ] || { echo "rerun $k: status $status"; exit 1; }
        grep -q '^memtrack: CRASH: SIGSEGV at address 0x0 in ./doc (pid [0-9]*), at lib.c:34 in doc_new()$' again.err
    else
        grep -qx 'memtrack:   16 bytes in 1 block at lib.c:13 in doc_new() by malloc: #2' again.err
    fi
done

# JSON against its schema, SARIF against SARIF 2.1.0's rules, HTML: the same two paths
$PY - "$TOP/tools/fail-sweep.schema.json" sweep.json <<'PY'
import json, sys, jsonschema
schema, s = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
jsonschema.Draft202012Validator.check_schema(schema)
jsonschema.Draft202012Validator(schema).validate(s)
assert (s["allocations"], s["runs"], s["clean"], s["unreached"]) == (4, 4, 2, 0), s
crash, leak = s["paths"]
assert crash["outcome"] == "crash" and crash["signal"] == "SIGSEGV" and crash["allocations"] == [4]
assert (crash["kind"], crash["failed_at"]["file"], crash["failed_at"]["line"]) == ("calloc", "lib.c", 26)
assert (crash["crashed_at"]["file"], crash["crashed_at"]["line"]) == ("lib.c", 34)
assert [f["line"] for f in crash["failed_at"]["stack"]] == [12]
assert leak["outcome"] == "leak" and leak["allocations"] == [3] and leak["status"] == 1
assert (leak["failed_at"]["line"], [l["allocated_at"]["line"] for l in leak["leaks"]]) == (16, [13])
assert leak["rerun"].startswith("MEMTRACK_OPTIONS=fail_nth=3 ")
PY
$PY "$TOP/test/lib/sarif_check.py" sweep.sarif
$PY - sweep.sarif <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["runs"][0]["results"]
got = [(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in results]
assert got == [("fail-path/crash", 26), ("fail-path/leak", 16)], got
assert results[0]["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] == 34
PY
[ "$(grep -o '<section class="path [a-z]*">' sweep.html | tr '\n' ' ')" = \
    '<section class="path crash"> <section class="path leak"> ' ]
grep -q '<code class="rerun">MEMTRACK_OPTIONS=fail_nth=3 ' sweep.html

# --preload: the library and program built without memtrack, the same paths
cc -g -O0 -fno-omit-frame-pointer lib.c main.c -o plain
sweep 23 --preload --fail-sweep -- ./plain
check_paths ./plain " --preload"
sweep 7 --exitcode 7 --fail-sweep --jobs 1 -- ./doc
grep -qx 'memtrack: fail sweep of ./doc: 4 allocations, each made to fail in turn (4 runs, 1 at a time, [0-9]* s)' sweep.err

# Fixed, every failure is handled: status 0
"$M" cc -g -O0 -DFIXED lib.c main.c -o fixed
sweep 0 --fail-sweep -- ./fixed
grep -qx 'memtrack: every failure was handled cleanly' sweep.err
# --from and --to: only those allocations
sweep 0 --fail-sweep --from 1 --to 2 -- ./doc
grep -q 'allocations 1 to 2 of 4, each made to fail in turn (2 runs' sweep.err
# A program that marks a window is swept inside it: start-up (main's malloc) is spared
"$M" cc -g -O0 -DWINDOW lib.c main.c -o windowed
sweep 23 --fail-sweep --json window.json -- ./windowed
grep -q '^memtrack: fail sweep of ./windowed: 3 allocations inside memtrack_fail_begin() windows' sweep.err
grep -qx 'memtrack:   run it again: MEMTRACK_OPTIONS=fail_nth=2:fail_window=1 '"$M"' run -- ./windowed' sweep.err
grep -qx 'memtrack: 2 failure paths went wrong (1 crash, 1 leak); 1 run handled the failure cleanly' sweep.err
# options given reach every run, and the rerun: only allocations made under doc_new
sweep 23 --fail-sweep --options 'fail_fn=doc_new' -- ./doc
grep -q '^memtrack: fail sweep of ./doc: 3 allocations,' sweep.err
grep -qx "memtrack:   run it again: MEMTRACK_OPTIONS=fail_fn=doc_new:fail_nth=3 $M run -- ./doc" sweep.err
# a function in the stack (main, of every allocation: the calls under it too), as the
# command that runs a path again counts them
sweep 23 --fail-sweep --options 'fail_fn=main' -- ./doc
grep -q '^memtrack: fail sweep of ./doc: 4 allocations,' sweep.err
cmd=$(sed -n "s/^memtrack:   run it again: \(MEMTRACK_OPTIONS=fail_fn=main:fail_nth=3 .*\)/\1/p" sweep.err)
status=0
eval "$cmd" >again.out 2>again.err || status=$?
grep -qx 'memtrack: fail_nth=3: strdup of 6 bytes at lib.c:16 in doc_new() returns NULL, on purpose' again.err

# Standard input, a file or a pipe, is read once and given to every run
cat >reader.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void)
{
    char line[64];
    while (fgets(line, sizeof line, stdin) != NULL)
        free(strdup(line));
    return 0;
}
C
"$M" cc -g reader.c -o reader
printf 'one\ntwo\nthree\n' >input.txt
status=0
"$M" run --fail-sweep -- ./reader <input.txt 2>sweep.err || status=$?
[ $status = 0 ] || { echo "sweep of reader <input.txt: status $status"; exit 1; }
grep -q '^memtrack: fail sweep of ./reader: 3 allocations,' sweep.err
status=0
printf 'one\ntwo\n' | "$M" run --fail-sweep -- ./reader 2>sweep.err || status=$?
[ $status = 0 ] || { echo "sweep of reader from a pipe: status $status"; exit 1; }
grep -q '^memtrack: fail sweep of ./reader: 2 allocations,' sweep.err

# Bad input: a message, status 2
refused() { # refused MESSAGE ARGS...
    message=$1
    shift
    sweep 2 "$@"
    grep -qF -- "$message" sweep.err || { echo "memtrack run $*:"; cat sweep.err; exit 1; }
}
refused "--from takes a whole number from 1, not '-1'" --fail-sweep --from -1 -- ./doc
refused "--to takes a whole number from 1, not 'abc'" --fail-sweep --to abc -- ./doc
refused "--jobs takes a whole number from 1, not '0'" --fail-sweep --jobs 0 -- ./doc
refused "--to comes before --from" --fail-sweep --from 3 --to 2 -- ./doc
refused "--from 9 is past the 4 allocations counted" --fail-sweep --from 9 -- ./doc
refused "--from, --to, --jobs and --timeout go with --fail-sweep" --from 2 -- ./doc
refused "leave out of the options 'fail_nth='" --fail-sweep --options fail_nth=2 -- ./doc
refused "bad value '' for fail_fn (expected a glob without spaces, not empty)" --fail-sweep \
    --options fail_fn= -- ./doc
refused "true made no allocation to fail" --preload --fail-sweep -- true
cat >none.c <<'C'
int main(void)
{
    memtrack_fail_begin();
    memtrack_fail_end();
    return 0;
}
C
"$M" cc none.c -o none
refused "./none made no allocation to fail inside its memtrack_fail_begin() windows" \
    --fail-sweep -- ./none
echo "fail sweep: ok"
