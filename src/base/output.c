/* output.c - everything libmemtrack prints goes through here.
 *
 * Text is formatted into a fixed buffer on the caller's stack and written with write(2):
 * no stdio, no allocation, so printing is safe inside the allocator, after a heap has
 * been corrupted and in a signal handler. The report stream (option `report`) is opened on
 * first use, and a report file at start too (mt_out_claim: the run shares it, see
 * report_file.c); "%p" in its path becomes the process id, so forked children write their
 * own.
 * The formatting buffer itself (mt_buf_*) lives in buf.c, shared with the report tool.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/lock.h"
#include "base/options.h"
#include "base/output.h"
#include "base/report_file.h"

/* ---- the standard streams ---------------------------------------------------------- */

/* stdout and stderr as the process found them, as the kernel names them. A program may
 * close its stderr and open a file of its own, which then gets descriptor 2 (a daemon, a
 * tool that writes its data to whatever descriptor it gets): memtrack must never write into
 * that file. So descriptors 1 and 2 are written only while they are the files they were when
 * the tracker started, or when what the program put there is plainly a place for messages: a
 * terminal, or a file opened for appending (a log: `freopen(path, "a", stderr)`, `2>>`). A
 * data file (opened to write from its start or to read) or a pipe or socket (a protocol
 * channel) is never written: messages go nowhere (the JSON report keeps the errors, and
 * `memtrack run` has it). Not on Windows or bare metal: no such reuse to fear, no inodes. */
typedef struct std_stream {
    int state; /* 0: not looked at yet; 1: open, dev and ino known; -1: closed at start */
    dev_t dev;
    ino_t ino;
} std_stream_t;
static std_stream_t std_streams[3];

static void std_remember(int fd, std_stream_t *s)
{
    struct stat st;
    if (fstat(fd, &st) == 0) {
        s->dev = st.st_dev;
        s->ino = st.st_ino;
        __atomic_store_n(&s->state, 1, __ATOMIC_RELEASE);
    } else {
        __atomic_store_n(&s->state, -1, __ATOMIC_RELEASE);
    }
}

void mt_out_remember_std(void)
{
    for (int fd = STDOUT_FILENO; fd <= STDERR_FILENO; fd++)
        if (__atomic_load_n(&std_streams[fd].state, __ATOMIC_ACQUIRE) == 0)
            std_remember(fd, &std_streams[fd]);
}

int mt_std_fd(int fd)
{
#if !defined(_WIN32) && !defined(MT_BARE_METAL)
    if (fd != STDOUT_FILENO && fd != STDERR_FILENO)
        return fd;
    std_stream_t *s = &std_streams[fd];
    int state = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
    if (state == 0) { /* a message before the tracker started: what is there is the program's */
        std_remember(fd, s);
        state = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
    }
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -1;
    if (state == 1 && st.st_dev == s->dev && st.st_ino == s->ino)
        return fd;
    int saved = errno, flags = fcntl(fd, F_GETFL);
    bool for_messages = S_ISCHR(st.st_mode)
                            ? isatty(fd) != 0
                            : S_ISREG(st.st_mode) && flags != -1 && (flags & O_APPEND) != 0 &&
                                  (flags & O_ACCMODE) != O_RDONLY;
    errno = saved;
    return for_messages ? fd : -1;
#else
    return fd;
#endif
}

/* Warnings go to stderr, while it is the process's stderr (buf.c's hook). */
__attribute__((constructor(101))) static void warn_through_std(void)
{
    mt_warning_fd = mt_std_fd;
}

bool mt_std_replaced(int fd)
{
#if !defined(_WIN32) && !defined(MT_BARE_METAL)
    int saved = errno, flags = fcntl(fd, F_GETFL);
    bool replaced = flags != -1 && (flags & O_ACCMODE) != O_RDONLY && mt_std_fd(fd) < 0;
    errno = saved;
    return replaced;
#else
    (void)fd;
    return false;
#endif
}

/* ---- the report stream ------------------------------------------------------------ */

static int out_fd = -2;         /* -2: not opened yet */
static unsigned out_generation; /* mt_output_generation when out_fd was opened */
static pthread_mutex_t out_mutex = PTHREAD_MUTEX_INITIALIZER;

/* Expands "%p" to the pid into dst; returns false when it does not fit. */
bool mt_expand_path(const char *path, char *dst, size_t cap)
{
    size_t n = 0;
    for (const char *p = path; *p != '\0'; p++) {
        if (p[0] == '%' && p[1] == 'p') {
            char digits[24];
            size_t i = sizeof digits;
            unsigned long pid = (unsigned long)getpid();
            do {
                digits[--i] = (char)('0' + pid % 10);
                pid /= 10;
            } while (pid != 0);
            size_t len = sizeof digits - i;
            if (n + len >= cap)
                return false;
            memcpy(dst + n, digits + i, len);
            n += len;
            p++;
        } else {
            if (n + 1 >= cap)
                return false;
            dst[n++] = *p;
        }
    }
    dst[n] = '\0';
    return true;
}

/* The file we opened for option report, as the kernel names it: a program that closes
 * descriptors it does not know (a daemon) may close ours and get the same number back for
 * a file of its own, which a message must never be written into. */
static dev_t out_dev;
static ino_t out_ino;

/* True while fd is still the file opened for the report. */
static bool still_ours(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && st.st_dev == out_dev && st.st_ino == out_ino;
}

/* Opens the report stream: the file of option report is appended to, emptied only by a
 * new run's first process (base/report_file.c), never followed through a symbolic link.
 * reopen: it was ours and the program closed it (never emptied then). silent: a try at
 * start, which warns of nothing (the first message tries again, and says why it failed). */
static int open_report_stream(bool reopen, bool silent)
{
    const char *path = mt_opt.report;
    if (mt_opt.quiet)
        return -1;
    if (path == NULL || path[0] == '\0' || strcmp(path, "stderr") == 0)
        return STDERR_FILENO;
    if (strcmp(path, "stdout") == 0)
        return STDOUT_FILENO;
    char full[MT_OPTION_STRING_MAX + 32];
    int fd = -1;
    errno = ENAMETOOLONG;
    if (mt_expand_path(path, full, sizeof full))
        fd = mt_report_file_open(full, reopen, &out_dev, &out_ino);
    if (fd < 0 && silent)
        return -2;
    if (fd < 0) {
        mt_buf_t b;
        mt_warning_begin(&b);
        mt_buf_fmt(&b, "cannot open report file '%s': %s; reporting to stderr", path,
                   errno == ENXIO ? "a FIFO that no process is reading" : strerror(errno));
        mt_warning_end(&b);
        return STDERR_FILENO;
    }
    return fd;
}

int mt_out_fd(void)
{
    int fd = __atomic_load_n(&out_fd, __ATOMIC_ACQUIRE);
    unsigned generation = atomic_load_explicit(&mt_output_generation, memory_order_acquire);
    bool lost = fd > 2 && !still_ours(fd); /* closed and its number reused: not ours */
    if (MT_UNLIKELY(fd == -2 || generation != out_generation || lost)) {
        /* In the crash handler: the lock may be held for good; stderr will do. */
        if (mt_in_crash && mt_mutex_trylock(&out_mutex) != 0)
            return mt_opt.quiet ? -1 : mt_std_fd(STDERR_FILENO);
        if (!mt_in_crash)
            mt_mutex_lock(&out_mutex);
        if (generation != out_generation) { /* the options changed where output goes */
            /* The old file stays open: another thread may be writing a message to it right
             * now, and were it closed, its number could be the program's next file. One
             * descriptor per change of option report is the price. */
            __atomic_store_n(&out_fd, -2, __ATOMIC_RELEASE);
            out_generation = generation;
        }
        bool reopen = lost && out_fd == fd;
        if (reopen) /* never closed by us: the descriptor is the program's now */
            __atomic_store_n(&out_fd, -2, __ATOMIC_RELEASE);
        if (out_fd == -2)
            __atomic_store_n(&out_fd, open_report_stream(reopen, false), __ATOMIC_RELEASE);
        fd = out_fd;
        mt_mutex_unlock(&out_mutex);
    }
    if (fd == STDOUT_FILENO && !mt_in_crash) /* stdio is not async-signal-safe */
        fflush(stdout);                      /* the program's buffered output comes first */
    return mt_std_fd(fd);
}

void mt_out_claim(void)
{
    const char *path = mt_opt.report;
    if (mt_opt.quiet || path == NULL || path[0] == '\0' || strcmp(path, "stderr") == 0 ||
        strcmp(path, "stdout") == 0)
        return; /* no file: nothing to hold */
    int saved = errno;
    pthread_mutex_lock(&out_mutex);
    if (out_fd == -2) {
        out_generation = atomic_load_explicit(&mt_output_generation, memory_order_acquire);
        __atomic_store_n(&out_fd, open_report_stream(false, true), __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&out_mutex);
    errno = saved;
}

void mt_out_lock(void)
{
    mt_mutex_lock(&out_mutex);
}

void mt_out_unlock(void)
{
    mt_mutex_unlock(&out_mutex);
}

/* A child with "%p" in its report path writes its own file; others keep the parent's. */
void mt_out_after_fork_child(void)
{
    pthread_mutex_init(&out_mutex, NULL);
    if (mt_opt.report != NULL && strstr(mt_opt.report, "%p") != NULL && out_fd > 2) {
        close(out_fd);
        out_fd = -2;
    }
}
