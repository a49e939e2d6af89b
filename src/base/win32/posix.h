/* posix.h - the few POSIX names the tracker's sources use that Windows lacks, for the
 * Windows build only (tools/platform.mk force-includes it and puts this folder first on
 * the include path, so <pthread.h>, <dlfcn.h>... resolve to the headers beside it).
 *
 * Each name either maps to its Win32 equivalent (locks, once, thread-local destructors,
 * pages, reading memory that may be unmapped, the stack's bounds) or states that Windows
 * has no such thing and fails the way the caller already handles (sigaction: the crash
 * report takes an exception filter instead; mmap of address space only: no page guards,
 * with a warning). The implementations are in base/platform_windows.c, the one file that
 * includes <windows.h>: everything else stays free of its macros. README "Platforms" says
 * what is missing.
 */
#ifndef MT_WIN32_POSIX_H
#define MT_WIN32_POSIX_H

/* Time and yielding: winpthreads has them, and the tracker must not need it (a program
 * that links it gets its own). Named before the CRT's headers declare them, so their
 * declarations name ours. */
#define clock_gettime mt_win_clock_gettime
#define nanosleep mt_win_nanosleep
#define sched_yield mt_win_sched_yield

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
int sched_yield(void);

/* open(): files the tracker opens are not inherited by child processes (the meaning of
 * O_CLOEXEC there) and are binary, so a report file has the same bytes as on other
 * systems (the CRT's text mode would write CR LF); Windows has no symbolic links to refuse
 * and no blocking opens. */
#define O_CLOEXEC (_O_NOINHERIT | _O_BINARY)
#define O_NOFOLLOW 0
#define O_NONBLOCK 0

/* Signals Windows does not have: the tracker names them, never receives them. */
#define SIGTRAP 5
#define SIGBUS 7
#define SIGPIPE 13
typedef _sigset_t sigset_t;
#include "no_signals.h" /* base/shim */
struct sigaction {
    void (*sa_sigaction)(int, siginfo_t *, void *);
    sigset_t sa_mask;
    int sa_flags;
};
/* No handler is ever installed (-1, ENOSYS): the crash report comes from an exception
 * filter instead (mt_platform_catch_crashes). */
int mt_win_sigaction(int sig, const struct sigaction *sa, struct sigaction *old);
#define sigaction(sig, sa, old) mt_win_sigaction((sig), (sa), (old))
int mt_win_sigaltstack(const stack_t *ss, stack_t *old);
#define sigaltstack mt_win_sigaltstack

/* The page size, from GetSystemInfo. */
#define _SC_PAGESIZE 30
long mt_win_sysconf(int name);
#define sysconf mt_win_sysconf

/* fcntl's write lock decides which process of a run empties a shared report file; on
 * Windows no tracked child shares it, so the one process is always first. */
struct flock {
    short l_type, l_whence;
    off_t l_start, l_len;
};
#define F_WRLCK 1
#define F_SETLK 6
int mt_win_fcntl(int fd, int cmd, ...);
#define fcntl mt_win_fcntl

/* Reading memory through a pipe is the fallback when process_vm_readv is refused, which
 * on Windows it never is (ReadProcessMemory, platform_windows.c). */
static inline int pipe2(int fds[2], int flags)
{
    (void)fds, (void)flags;
    errno = ENOSYS;
    return -1;
}

/* Windows has no symbolic links the tracker could be tricked through (a junction needs
 * rights a planted file does not give): lstat is stat. */
#define lstat stat
#define S_ISLNK(mode) ((void)(mode), 0)

/* rename() over an existing file: the CRT's refuses, MoveFileEx replaces it (a report file
 * is written beside its path and renamed over it). */
int mt_win_rename(const char *from, const char *to);
#define rename mt_win_rename

/* readlink("/proc/self/exe"): the executable's path (GetModuleFileNameA). */
ssize_t mt_win_readlink(const char *path, char *buf, size_t size);
#define readlink mt_win_readlink

#endif /* MT_WIN32_POSIX_H */
