/* posix.h - the POSIX names the tracker's sources use, on bare metal (Cortex-M with newlib;
 * tools/platform.mk force-includes it and puts this folder and ../shim first on the include
 * path, so <pthread.h>, <signal.h>, <dlfcn.h>... resolve to the headers there).
 *
 * One thread, no operating system: no signals (no crash report, no page guards), no
 * processes, no environment (options come from memtrack_set_options()). The tracker's own
 * memory is a static buffer the program sizes (MEMTRACK_STATIC_MEMORY in memtrack.h), and
 * output goes through write(2), which newlib hands to the program's _write (a UART,
 * semihosting). The implementations are in base/platform_bare.c, under names of our own.
 */
#ifndef MT_BARE_POSIX_H
#define MT_BARE_POSIX_H

/* Declared by newlib, implemented by no one here: named ours before its headers declare
 * them, so their declarations name ours. */
#define clock_gettime mt_bare_clock_gettime
#define nanosleep mt_bare_nanosleep
#define sched_yield mt_bare_sched_yield
#define readlink mt_bare_readlink
#define sysconf mt_bare_sysconf
#define fcntl mt_bare_fcntl
#define pipe2 mt_bare_pipe2
#define ftruncate mt_bare_ftruncate
#define getpid mt_bare_getpid
#define getcwd mt_bare_getcwd
#define lstat stat

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#ifndef CLOCK_MONOTONIC
#define CLOCK_MONOTONIC ((clockid_t)4)
#endif
int clock_gettime(clockid_t clock, struct timespec *ts);
int nanosleep(const struct timespec *request, struct timespec *remain);
int sched_yield(void);
ssize_t readlink(const char *path, char *buf, size_t size);
long sysconf(int name);
int fcntl(int fd, int cmd, ...);
int pipe2(int fds[2], int flags);
int ftruncate(int fd, off_t length);
pid_t getpid(void);
char *getcwd(char *buf, size_t size);
#ifndef _SC_PAGESIZE
#define _SC_PAGESIZE 8
#endif
#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif
#ifndef O_NOFOLLOW
#define O_NOFOLLOW 0
#endif
#ifndef PATH_MAX
#define PATH_MAX 256
#endif

#endif /* MT_BARE_POSIX_H */
