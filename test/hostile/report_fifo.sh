# report_fifo.sh - report= naming a FIFO that no process reads must not block the program at
# its first message: memtrack warns and reports to stderr instead. With a reader, the
# report goes into the FIFO as usual.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir report_fifo
cat >prog.c <<'C'
#include <stdlib.h>
#include <string.h>
int main(void)
{
    char *p = malloc(4);
    memcpy(p, "12345", 5); /* an overrun: its message opens the report stream */
    free(p);
    return 0;
}
C
"$M" cc -g -O0 prog.c -o prog
mkfifo pipe
status=0
MEMTRACK_OPTIONS=report=pipe:exitcode=0 timeout 20 ./prog 2>err.txt || status=$?
[ $status = 0 ] || { echo "status $status (124: blocked on the FIFO)"; cat err.txt; exit 1; }
grep -q "warning: cannot open report file 'pipe': a FIFO that no process is reading; reporting to stderr" err.txt ||
    { cat err.txt; exit 1; }
grep -q "ERROR: overrun" err.txt || { cat err.txt; exit 1; }

# A reader (opened first, without waiting for a writer): the messages go into the FIFO,
# nothing to stderr.
/usr/bin/python3 - <<'PY'
import os, subprocess
r = os.open("pipe", os.O_RDONLY | os.O_NONBLOCK)
env = dict(os.environ, MEMTRACK_OPTIONS="report=pipe:exitcode=0")
p = subprocess.run(["timeout", "20", "./prog"], env=env, stderr=subprocess.PIPE)
assert p.returncode == 0, "status %d with a reader" % p.returncode
assert p.stderr == b"", p.stderr
got = os.read(r, 65536)
assert b"ERROR: overrun" in got, got
PY
