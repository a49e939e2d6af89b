# reused_fd.sh - the descriptor of a report= file is never written once it is not ours: a
# daemon that closes every descriptor it does not know and opens its own database (which gets
# the same number) must not find the exit report in it; the report goes on in its own file.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir reused_fd
cat >prog.c <<'C'
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(void)
{
    char *p = malloc(4);
    memcpy(p, "12345", 5); /* an overrun: its message opens the report file */
    free(p);
    for (int fd = 3; fd < 64; fd++) /* a daemon closes what it does not know */
        close(fd);
    int db = open("data.db", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (db < 0 || write(db, "rows\n", 5) != 5)
        return 1;
    (void)malloc(16); /* a leak for the exit report */
    return 0; /* db stays open, as a daemon's would */
}
C
"$M" cc -g -O0 prog.c -o prog
MEMTRACK_OPTIONS=report=report.txt ./prog
[ "$(cat data.db)" = rows ] || { echo "the report went into the program's file:"; cat data.db; exit 1; }
grep -q "ERROR: overrun" report.txt
grep -q "16 bytes in 1 block" report.txt || { cat report.txt; exit 1; }
