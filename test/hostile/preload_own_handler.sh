# preload_own_handler.sh - a SIGSEGV handler the program installed before libmemtrack started
# (in a library's constructor, which under --preload runs before memtrack's) sees its faults
# first: a fault it handles (here by opening the page) is the program's business, and no
# CRASH report is printed. A handler that gives up (puts the default action back) still
# gets the report before the program dies.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir preload_own_handler
cat >handler.c <<'C'
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
int faults_handled;
static void on_segv(int sig, siginfo_t *info, void *context)
{
    (void)context;
    if (getenv("GIVE_UP") != NULL) {
        signal(sig, SIG_DFL); /* the fault runs again and ends the program */
        return;
    }
    uintptr_t page = (uintptr_t)info->si_addr & ~(uintptr_t)4095;
    mprotect((void *)page, 4096, PROT_READ | PROT_WRITE); /* a lazily committed page */
    faults_handled++;
}
__attribute__((constructor)) static void install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);
}
C
cat >prog.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
extern int faults_handled;
int main(void)
{
    char *keep = malloc(40); /* live at the crash, when there is one */
    char *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    page[10] = 1; /* SIGSEGV: the handler opens the page */
    printf("handled %d, read %d\n", faults_handled, page[10]);
    free(keep);
    return 0;
}
C
cc -g -O0 -shared -fPIC handler.c -o libhandler.so
cc -g -O0 prog.c -o prog -L. -lhandler -Wl,-rpath,"$PWD" # built without memtrack
status=0
"$M" run --preload ./prog >out.txt 2>err.txt || status=$?
[ $status = 0 ] || { echo "status $status"; cat out.txt err.txt; exit 1; }
[ "$(cat out.txt)" = "handled 1, read 1" ] || { cat out.txt; exit 1; }
! grep -q "CRASH" err.txt || { echo "a fault the program handled was reported:"; cat err.txt; exit 1; }

status=0
GIVE_UP=1 "$M" run --preload ./prog >out.txt 2>err.txt || status=$?
[ $status = 139 ] || { echo "status $status, expected 139 (SIGSEGV)"; cat err.txt; exit 1; }
grep -q "CRASH: SIGSEGV at address" err.txt || { cat err.txt; exit 1; }
grep -q "40 bytes in 1 block" err.txt || { cat err.txt; exit 1; }
