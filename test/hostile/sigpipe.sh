# sigpipe.sh - the report's reader has gone (`./prog 2>&1 | head -1`): writing the report must
# not kill the program with SIGPIPE, its exit status stays its own, and the JSON report is
# still written.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir sigpipe
cat >prog.c <<'C'
#include <stdlib.h>
int main(void)
{
    (void)malloc(24); /* one leak: the exit report has something to write */
    return 0;
}
C
"$M" cc -g -O0 prog.c -o prog
/usr/bin/python3 - <<'PY'
import os, subprocess
r, w = os.pipe()
os.close(r)  # the reader is gone before the program writes anything
p = subprocess.run(["./prog"], stderr=w, env=dict(os.environ, MEMTRACK_OPTIONS="json=r.json"))
os.close(w)
assert p.returncode == 0, "status %d (SIGPIPE is -13)" % p.returncode
assert os.path.exists("r.json"), "the JSON report was not written"
PY
