/* open_log.c - an LD_PRELOAD library that appends the path of every open() the process
 * makes to the file $OPEN_LOG, one a line (test/report/exit_symbols.sh). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int log_fd = -1;

__attribute__((constructor)) static void start(void)
{
    const char *path = getenv("OPEN_LOG");
    if (path != NULL)
        log_fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

static int logged_open(int dir, const char *path, int flags, va_list ap)
{
    mode_t mode = (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0;
    if (log_fd >= 0 && path != NULL) {
        char line[4096];
        size_t n = strnlen(path, sizeof line - 1);
        memcpy(line, path, n);
        line[n] = '\n';
        if (write(log_fd, line, n + 1) < 0)
            abort();
    }
    return (int)syscall(SYS_openat, dir, path, flags, mode);
}

#define OPEN(name)                                                                                  \
    int name(const char *path, int flags, ...)                                                     \
    {                                                                                              \
        va_list ap;                                                                                \
        va_start(ap, flags);                                                                       \
        int fd = logged_open(AT_FDCWD, path, flags, ap);                                           \
        va_end(ap);                                                                                \
        return fd;                                                                                 \
    }
OPEN(open)
OPEN(open64)

#define OPENAT(name)                                                                                \
    int name(int dir, const char *path, int flags, ...)                                            \
    {                                                                                              \
        va_list ap;                                                                                \
        va_start(ap, flags);                                                                       \
        int fd = logged_open(dir, path, flags, ap);                                                \
        va_end(ap);                                                                                \
        return fd;                                                                                 \
    }
OPENAT(openat)
OPENAT(openat64)
