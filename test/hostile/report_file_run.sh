# report_file_run.sh - every process of a run appends to one report=FILE and none erases
# another's: sibling children of a tracked parent whose own first message comes after they
# ran, children forked before anything was written, and the image a process exec's after
# its first message. A later run still starts the file afresh.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir report_file_run
cat >prog.c <<'C'
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
static void overrun(size_t n) /* an error, written to the file at once */
{
    char *p = malloc(n);
    memset(p, 'x', n + 1);
    free(p);
}
int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "child") == 0) { /* a leak of argv[2] bytes */
        (void)malloc((size_t)atoi(argv[2]));
        return 0;
    }
    if (strcmp(mode, "siblings") == 0) { /* two children, then the parent's first message */
        if (system("./prog child 11") != 0 || system("./prog child 12") != 0)
            return 1;
        overrun(5);
        (void)malloc(22);
        return 0;
    }
    if (strcmp(mode, "forks") == 0) { /* children forked before anything was written */
        for (int i = 0; i < 2; i++) {
            pid_t pid = fork();
            if (pid == 0) {
                overrun(6 + (size_t)i);
                exit(0);
            }
            waitpid(pid, NULL, 0);
        }
        return 0;
    }
    if (strcmp(mode, "exec") == 0) { /* a message, then another image of this process */
        overrun(9);
        execl("./prog", "./prog", "child", "33", (char *)NULL);
        return 1;
    }
    return 2;
}
C
"$M" cc -g -O0 prog.c -o prog
has() { grep -q "$1" report.txt || { echo "lost: $1"; cat report.txt; exit 1; }; }

MEMTRACK_OPTIONS=report=report.txt ./prog siblings
has "11 bytes in 1 block"
has "12 bytes in 1 block"
has "ERROR: overrun after block #1 (5 bytes)"
has "22 bytes in 1 block"
[ "$(grep -c 'report for' report.txt)" = 3 ] || { cat report.txt; exit 1; }

touch -d '1 hour ago' report.txt # (a later run: one that starts after the file was written)
MEMTRACK_OPTIONS=report=report.txt ./prog forks
has "ERROR: overrun after block #1 (6 bytes)"
has "ERROR: overrun after block #1 (7 bytes)"
! grep -q "11 bytes in 1 block" report.txt || { echo "a new run did not start afresh"; exit 1; }

touch -d '1 hour ago' report.txt
MEMTRACK_OPTIONS=report=report.txt ./prog exec
has "ERROR: overrun after block #1 (9 bytes)"
has "33 bytes in 1 block"
! grep -q "(6 bytes)" report.txt || { echo "a new run did not start afresh"; exit 1; }

# With %p each process has its own file, and an exec'd image keeps its first image's.
rm -f report.*.txt
MEMTRACK_OPTIONS=report=report.%p.txt ./prog exec
cat report.*.txt >all.txt
grep -q "ERROR: overrun after block #1 (9 bytes)" all.txt && grep -q "33 bytes in 1 block" all.txt ||
    { echo "exec erased its own report.%p file"; cat all.txt; exit 1; }
