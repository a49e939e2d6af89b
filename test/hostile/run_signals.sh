# run_signals.sh - SIGTERM sent to `memtrack run` reaches the program (it used to be swallowed
# while the program ran on): the program ends, and memtrack run exits as it did (128 + 15).
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir run_signals
cat >prog.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(void)
{
    FILE *f = fopen("started", "w");
    fprintf(f, "%ld\n", (long)getpid());
    fclose(f);
    (void)malloc(8);
    for (int i = 0; i < 60; i++) /* a minute at most, whatever happens */
        sleep(1);
    return 0;
}
C
"$M" cc -g -O0 prog.c -o prog
"$M" run ./prog 2>err.txt &
run=$!
for i in $(seq 1 100); do [ -s started ] && break; sleep 0.1; done
[ -s started ] || { echo "the program did not start"; exit 1; }
kill -TERM $run
status=0
wait $run || status=$?
[ $status = 143 ] || { echo "memtrack run: status $status, expected 143"; cat err.txt; exit 1; }
! kill -0 "$(cat started)" 2>/dev/null || { echo "the program is still running"; kill -9 "$(cat started)"; exit 1; }
