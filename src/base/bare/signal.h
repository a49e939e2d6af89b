/* signal.h - bare metal (see posix.h), for the library's own sources only: newlib's lacks
 * what the crash report and page guards name (si_addr, sa_sigaction without its realtime
 * option), and nothing here delivers a signal anyway. Every function fails or does
 * nothing, which those callers already handle: no crash report, no page guards. */
#ifndef MT_BARE_SIGNAL_H
#define MT_BARE_SIGNAL_H

#include <stddef.h>

typedef int sig_atomic_t;
typedef unsigned long sigset_t;
#include "no_signals.h" /* base/shim */
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
#define SA_RESETHAND 0x80000000
#define SIG_BLOCK 0
#define SIG_SETMASK 2
#define SIG_DFL ((void (*)(int))0)
#define SIG_IGN ((void (*)(int))1)

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
/* break_on=N and the end of a crash: no debugger trap to raise; the program goes on. */
static inline int raise(int sig)
{
    (void)sig;
    return 0;
}

#endif /* MT_BARE_SIGNAL_H */
