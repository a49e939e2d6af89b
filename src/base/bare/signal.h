/* signal.h - bare metal (see posix.h), for the library's own sources only: newlib's lacks
 * what the crash report and page guards name (si_addr, sa_sigaction without its realtime
 * option), and nothing here delivers a signal anyway. Every function fails or does
 * nothing, which those callers already handle: no crash report, no page guards. */
#ifndef MT_BARE_SIGNAL_H
#define MT_BARE_SIGNAL_H

#include <stddef.h>

typedef int sig_atomic_t;
typedef unsigned long sigset_t;
typedef struct {
    int si_signo, si_code;
    void *si_addr;
} siginfo_t;
typedef struct {
    void *ss_sp;
    int ss_flags;
    size_t ss_size;
} stack_t;
struct sigaction {
    void (*sa_handler)(int);
    void (*sa_sigaction)(int, siginfo_t *, void *);
    sigset_t sa_mask;
    int sa_flags;
};
#define SIGINT 2
#define SIGILL 4
#define SIGTRAP 5
#define SIGABRT 6
#define SIGBUS 7
#define SIGFPE 8
#define SIGSEGV 11
#define SIGPIPE 13
#define SA_SIGINFO 4
#define SA_ONSTACK 0x08000000
#define SA_RESETHAND 0x80000000
#define SS_DISABLE 2
#define SEGV_ACCERR 2
#define SIG_BLOCK 0
#define SIG_SETMASK 2
#define SIG_DFL ((void (*)(int))0)

static inline int sigaction(int sig, const struct sigaction *sa, struct sigaction *old)
{
    (void)sig, (void)sa, (void)old;
    return -1;
}
static inline int sigaltstack(const stack_t *ss, stack_t *old)
{
    (void)ss, (void)old;
    return -1;
}
static inline int sigemptyset(sigset_t *set)
{
    *set = 0;
    return 0;
}
static inline int sigaddset(sigset_t *set, int sig)
{
    *set |= 1ul << sig;
    return 0;
}
static inline int sigismember(const sigset_t *set, int sig)
{
    return (int)((*set >> sig) & 1);
}
static inline int sigpending(sigset_t *set)
{
    *set = 0;
    return 0;
}
struct timespec;
static inline int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *t)
{
    (void)set, (void)info, (void)t;
    return -1;
}
/* break_on=N and the end of a crash: no debugger trap to raise; the program goes on. */
static inline int raise(int sig)
{
    (void)sig;
    return 0;
}

#endif /* MT_BARE_SIGNAL_H */
