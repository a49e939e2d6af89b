/* arm64 only (qemu-user): a crash that follows a pointer read from a freed block is told
 * by the faulting load's base register (qemu-user reports the fault at address 0). The
 * program's own handler, installed after memtrack's, hands the fault to it first (as a
 * crash reporter chains to the handler before it) and then leaves the crash behind, so
 * that the run ends as the program chooses and the report is compared whole.
 * platform-targets: aarch64
 * platform-options: page_guard_rate=0
 */
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static struct sigaction memtracks;
static sigjmp_buf resume;

static void on_fault(int sig, siginfo_t *info, void *context)
{
    memtracks.sa_sigaction(sig, info, context); /* memtrack's crash report */
    siglongjmp(resume, 1);
}

int main(void)
{
    struct sigaction mine;
    memset(&mine, 0, sizeof mine);
    mine.sa_sigaction = on_fault;
    mine.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &mine, &memtracks);
    void **first = malloc(16);
    first[0] = malloc(16);
    free(first[0]);
    free(first); /* first[0] now reads 0xdd... */
    if (sigsetjmp(resume, 1) == 0) {
        void **next = first[0];
        return next[0] != NULL; /* a pointer read from freed memory, followed */
    }
    return 0;
}
