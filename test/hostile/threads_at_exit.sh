# threads_at_exit.sh - threads that still allocate while main returns: the exit report never
# contradicts itself (no more blocks leaked than the peak it gives) and says how many threads
# were still running. Run 50 times, since the race differs from run to run.
set -eu
PY=/usr/bin/python3
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir threads_at_exit
cat >prog.c <<'C'
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
static void *churn(void *arg)
{
    void *keep[64] = {0};
    for (unsigned i = 0;; i++) { /* never ends: still running when main returns */
        free(keep[i % 64]);
        keep[i % 64] = malloc(16 + i % 200);
        if (i % 8 == 0)
            (void)malloc(8); /* and leaks as it goes */
    }
    return arg;
}
int main(void)
{
    pthread_t t;
    for (int i = 0; i < 3; i++)
        pthread_create(&t, NULL, churn, NULL);
    usleep(20000);
    return 0;
}
C
"$M" cc -g -O0 -pthread prog.c -o prog
for run in $(seq 1 50); do
    MEMTRACK_OPTIONS=json=r$run.json ./prog 2>err$run.txt || true
done
"$PY" - "$TOP/tools/report.schema.json" <<'PY'
import json, re, sys, jsonschema
validator = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
said_threads = 0
for run in range(1, 51):
    text = open("err%d.txt" % run).read()
    leaked = re.search(r"memtrack: \d+ bytes? leaked in (\d+) blocks?", text)
    # "peak B bytes in N blocks[, M blocks at most]": N live at the byte peak, M the most
    peak = re.search(r"memtrack: peak \d+ bytes? in (\d+) blocks?(?:, (\d+) blocks? at most)?", text)
    assert leaked and peak, text
    most = int(peak.group(2) or peak.group(1))
    assert int(leaked.group(1)) <= most, ("run %d contradicts itself" % run, text)
    said_threads += "still running" in text
    r = json.load(open("r%d.json" % run))
    errors = [e.message for e in validator.iter_errors(r)]
    assert not errors, errors
    st = r["statistics"]
    assert r["leaks"]["blocks"] <= st["peak_blocks"] and st["current_blocks"] <= st["peak_blocks"], st
assert said_threads == 50, "%d of 50 runs said threads were still running" % said_threads
PY
