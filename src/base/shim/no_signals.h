/* no_signals.h - for the targets where no POSIX signal is ever delivered (Windows, bare
 * metal: win32/posix.h and bare/signal.h include it after defining sigset_t): the types the
 * crash report and page guards name, and the signal-set calls, which find nothing pending
 * and nothing to wait for. */
#ifndef MT_SHIM_NO_SIGNALS_H
#define MT_SHIM_NO_SIGNALS_H

#include <errno.h>
#include <stddef.h>

typedef struct {
    int si_signo, si_code;
    void *si_addr;
} siginfo_t;
typedef struct {
    void *ss_sp;
    int ss_flags;
    size_t ss_size;
} stack_t;
#define SA_SIGINFO 4
#define SA_ONSTACK 0x08000000
#define SA_NODEFER 0x40000000
#define SS_DISABLE 2
#define SEGV_ACCERR 2

static inline int sigemptyset(sigset_t *set)
{
    *set = 0;
    return 0;
}
static inline int sigaddset(sigset_t *set, int sig)
{
    *set |= (sigset_t)1 << sig;
    return 0;
}
static inline int sigismember(const sigset_t *set, int sig)
{
    return (int)((*set >> sig) & 1);
}
/* Nothing is ever pending: a write to a closed pipe fails with EPIPE, no signal. */
static inline int sigpending(sigset_t *set)
{
    *set = 0;
    return 0;
}
struct timespec;
static inline int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *t)
{
    (void)set, (void)info, (void)t;
    errno = EAGAIN;
    return -1;
}

#endif /* MT_SHIM_NO_SIGNALS_H */
