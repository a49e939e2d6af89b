/* in_handler.c - whether the calling thread may be running a signal handler.
 *
 * The kernel enters a handler with the return address of the C library's trampoline (glibc
 * on x86-64: __restore_rt, the sa_restorer it gives every handler it installs) pushed on
 * the stack the handler runs on: on the thread's own stack, above the handler's frames and
 * below the interrupted code's. A handler on the signal stack (sigaltstack) is told by the
 * kernel. So the main thread runs no handler when it is not on its signal stack and no word
 * of its stack from the caller's frame up to where the program started is the trampoline's
 * address; a stale copy of that address in a live frame (a handler that ran deeper before)
 * only makes the answer "maybe", which is the safe one.
 */
#define _GNU_SOURCE
#include "base/in_handler.h"

#if defined(__GLIBC__) && defined(__x86_64__) && !defined(MT_BARE_METAL)
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/probe.h"

extern void *__libc_stack_end; /* the main thread's stack pointer at start (glibc, ld.so) */

#define STACK_MAX ((uintptr_t)1 << 30) /* a main thread's stack read at most */
#define CHUNK 512u                     /* words read through the kernel at once */

static uintptr_t trampoline;

void mt_handler_note_trampoline(void)
{
    struct sigaction sa;
    if (sigaction(SIGSEGV, NULL, &sa) != 0)
        return;
    /* No handler installed through the C library (options crash_report=0 and
     * page_guard_rate=0, so none of the tracker's): the same default action set again through
     * it, which gives it the trampoline, changes nothing else (nor an ignored one). */
    if (sa.sa_restorer == NULL && (sa.sa_handler == SIG_DFL || sa.sa_handler == SIG_IGN) &&
        !(sa.sa_flags & SA_SIGINFO) &&
        (sigaction(SIGSEGV, &sa, NULL) != 0 || sigaction(SIGSEGV, NULL, &sa) != 0))
        return;
    trampoline = (uintptr_t)sa.sa_restorer;
}

bool mt_maybe_in_handler(uintptr_t sp)
{
    uintptr_t top = (uintptr_t)__libc_stack_end;
    stack_t alt;
    if (trampoline == 0 || syscall(SYS_gettid) != getpid() || sp >= top || top - sp > STACK_MAX ||
        sigaltstack(NULL, &alt) != 0 || (alt.ss_flags & SS_ONSTACK))
        return true;
    uintptr_t words[CHUNK];
    for (uintptr_t at = sp & ~(sizeof(uintptr_t) - 1); at < top; at += sizeof words) {
        size_t n = top - at < sizeof words ? (size_t)(top - at) : sizeof words;
        if (!mt_probe_read(at, words, n))
            return true;
        for (size_t i = 0; i < n / sizeof(uintptr_t); i++)
            if (words[i] == trampoline)
                return true;
    }
    return false;
}
#else
void mt_handler_note_trampoline(void)
{
}

bool mt_maybe_in_handler(uintptr_t sp)
{
    (void)sp;
    return true;
}
#endif
