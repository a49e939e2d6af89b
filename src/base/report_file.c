/* report_file.c - the file of option report=PATH, which every process of a run shares
 * (tracked children, the image a process exec's, a driver's tests): nothing any of them
 * wrote may be lost, and a new run still starts the file afresh.
 *
 * Every write appends (O_APPEND). The file is emptied only by the first process of a run,
 * when it opens the file, which every process with report=PATH does as it starts
 * (mt_out_claim, from api/init.c), not at its first message: a parent whose first
 * message comes after its children ran has opened the file before them. A process empties
 * it only when both say it is a new run:
 *   - no other process holds it: each holds a shared lock on it for its whole life (an
 *     open file description lock on Linux, which the forked children that inherit the
 *     descriptor share and which leaves with the last of them), so a sibling, a child or
 *     a process started beside a running one finds a lock and appends;
 *   - it has not changed since this process began: the image a process exec's is the same
 *     process (its locks went with the descriptors exec closed) and finds its own earlier
 *     messages, or the emptying its first image did, newer than its start. The start is the
 *     kernel's (/proc/self/stat), counted in clock ticks, so a file last written within a
 *     few ticks before a process began is taken as this run's: appended to, never lost.
 * What cannot be told apart: two programs a shell runs one after the other that no tracked
 * process of the run started are two runs (the second empties the file); put %p in the
 * path to keep both, or remove the file before a run to start afresh in any case.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/report_file.h"

#ifdef __linux__
#include <sched.h>

#ifdef F_OFD_SETLK /* Linux 3.15: locks of the open file description, not of the process */
#define LOCK_CMD F_OFD_SETLK
#else
#define LOCK_CMD F_SETLK
#endif

static bool lock_file(int fd, short type)
{
    struct flock lock;
    memset(&lock, 0, sizeof lock);
    lock.l_type = type;
    lock.l_whence = SEEK_SET;
    return fcntl(fd, LOCK_CMD, &lock) == 0;
}

/* When this process began, by the realtime clock: its start in clock ticks since boot
 * (/proc/self/stat, field 22, after the command's parenthesis), moved by the time since. */
static bool process_start(struct timespec *out)
{
    char text[1024];
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0)
        return false;
    text[n] = '\0';
    const char *p = strrchr(text, ')');
    for (int field = 2; p != NULL && field < 22; field++) /* ')' ends field 2 */
        p = strchr(p + 1, ' ');
    long hz = sysconf(_SC_CLK_TCK);
    struct timespec boot, real;
    if (p == NULL || hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &boot) != 0 ||
        clock_gettime(CLOCK_REALTIME, &real) != 0)
        return false;
    unsigned long long ticks = 0;
    for (p++; *p >= '0' && *p <= '9'; p++)
        ticks = ticks * 10 + (unsigned long long)(*p - '0');
    long long since_ns =
        ((long long)boot.tv_sec - (long long)(ticks / (unsigned long long)hz)) * 1000000000LL +
        boot.tv_nsec - (long long)(ticks % (unsigned long long)hz) * (1000000000LL / hz);
    long long start_ns = (long long)real.tv_sec * 1000000000LL + real.tv_nsec - since_ns;
    out->tv_sec = (time_t)(start_ns / 1000000000LL);
    out->tv_nsec = (long)(start_ns % 1000000000LL);
    return true;
}

/* True unless the file surely last changed before this process began (not knowing when it
 * began: it may have changed since). Both times are coarse: the start is counted in clock
 * ticks, and a file's time is the kernel's coarse clock, which may lag the real time by a
 * timer interrupt (up to 10 ms). An exec'd image whose first image wrote in its first
 * milliseconds can find the file's time before its computed start; a margin of two ticks
 * and the coarse clock's step keeps its messages. (Two runs that close together append.) */
static bool changed_since_start(const struct stat *st)
{
    struct timespec start, step;
    if (!process_start(&start))
        return true;
    long long margin_ns = 2 * (1000000000LL / sysconf(_SC_CLK_TCK));
#ifdef CLOCK_REALTIME_COARSE
    if (clock_getres(CLOCK_REALTIME_COARSE, &step) == 0)
        margin_ns += (long long)step.tv_sec * 1000000000LL + step.tv_nsec;
#else
    (void)step;
#endif
    long long start_ns = (long long)start.tv_sec * 1000000000LL + start.tv_nsec;
    long long changed_ns = (long long)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
    return changed_ns >= start_ns - margin_ns;
}

/* Empties the file when this is a new run's first process, then holds the shared lock that
 * tells later processes a run is writing it. Another process emptying the file holds the
 * exclusive lock for a moment: the shared one is waited for, a bounded while, so that
 * nothing is written before that emptying. */
static void claim(int fd, const struct stat *st, bool keep)
{
    if (lock_file(fd, F_WRLCK) && !keep && st->st_size != 0 && !changed_since_start(st))
        (void)!ftruncate(fd, 0);
    for (int tries = 0; tries < 1000 && !lock_file(fd, F_RDLCK); tries++)
        (void)sched_yield(); /* (a lock held only across an ftruncate) */
}

#else /* one process at a time (Windows, bare metal): the first opening empties the file */

static void claim(int fd, const struct stat *st, bool keep)
{
    struct flock lock = {.l_type = F_WRLCK};
    if (!keep && st->st_size != 0 && fcntl(fd, F_SETLK, &lock) == 0)
        (void)!ftruncate(fd, 0);
}

#endif

int mt_report_file_open(const char *path, bool keep, dev_t *dev, ino_t *ino)
{
    /* Never through a symbolic link. O_NONBLOCK: a FIFO nobody reads would block the program
     * at its first message (open fails with ENXIO instead); writes block again once it is
     * open, as any stream's do, so that a full pipe does not lose a message. */
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
#ifdef F_SETFL /* (not on Windows, which has no FIFOs to fear) */
    if (fd >= 0) {
        int flags = fcntl(fd, F_GETFL);
        if (flags != -1)
            (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    }
#endif
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0)
        return fd;
    *dev = st.st_dev;
    *ino = st.st_ino;
    if (S_ISREG(st.st_mode))
        claim(fd, &st, keep);
    return fd;
}
