/* output.c - everything libmemtrack prints goes through here.
 *
 * Text is formatted into a fixed buffer on the caller's stack and written with write(2):
 * no stdio, no allocation, so printing is safe inside the allocator, after a heap has
 * been corrupted and in a signal handler. The report stream (option `report`) is opened on
 * first use; "%p" in its path becomes the process id, so forked children write their own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

void mt_write_all(int fd, const char *s, size_t n)
{
    while (n > 0 && fd >= 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return;
        }
        s += w;
        n -= (size_t)w;
    }
}

void mt_buf_init(mt_buf_t *b, int fd)
{
    b->len = 0;
    b->fd = fd;
}

void mt_buf_flush(mt_buf_t *b)
{
    if (b->len > 0 && b->fd >= 0)
        mt_write_all(b->fd, b->data, b->len);
    b->len = 0;
}

void mt_buf_strn(mt_buf_t *b, const char *s, size_t n)
{
    while (n > 0) {
        size_t room = sizeof b->data - b->len;
        if (room == 0) {
            mt_buf_flush(b);
            room = sizeof b->data;
        }
        size_t take = n < room ? n : room;
        memcpy(b->data + b->len, s, take);
        b->len += take;
        s += take;
        n -= take;
    }
}

void mt_buf_str(mt_buf_t *b, const char *s)
{
    mt_buf_strn(b, s != NULL ? s : "(null)", strlen(s != NULL ? s : "(null)"));
}

void mt_buf_char(mt_buf_t *b, char c)
{
    mt_buf_strn(b, &c, 1);
}

void mt_buf_u64(mt_buf_t *b, uint64_t v)
{
    char digits[24];
    size_t i = sizeof digits;
    do {
        digits[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    mt_buf_strn(b, digits + i, sizeof digits - i);
}

void mt_buf_i64(mt_buf_t *b, int64_t v)
{
    if (v < 0) {
        mt_buf_char(b, '-');
        mt_buf_u64(b, (uint64_t)0 - (uint64_t)v);
    } else {
        mt_buf_u64(b, (uint64_t)v);
    }
}

void mt_buf_hex(mt_buf_t *b, uint64_t v)
{
    char digits[20];
    size_t i = sizeof digits;
    do {
        digits[--i] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v != 0);
    mt_buf_strn(b, "0x", 2);
    mt_buf_strn(b, digits + i, sizeof digits - i);
}

void mt_buf_count(mt_buf_t *b, uint64_t n, const char *singular, const char *plural)
{
    mt_buf_u64(b, n);
    mt_buf_char(b, ' ');
    mt_buf_str(b, n == 1 ? singular : plural);
}

void mt_buf_line(mt_buf_t *b)
{
    /* Keep whole lines together when two processes share a terminal. */
    if (b->len > sizeof b->data - 256)
        mt_buf_flush(b);
    mt_buf_strn(b, MT_PREFIX, sizeof MT_PREFIX - 1);
}

/* ---- the report stream ------------------------------------------------------------ */

static int out_fd = -2; /* -2: not opened yet */
static pthread_mutex_t out_mutex = PTHREAD_MUTEX_INITIALIZER;

/* Expands "%p" to the pid into dst; returns false when it does not fit. */
static bool expand_path(const char *path, char *dst, size_t cap)
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

static int open_report_stream(void)
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
    if (expand_path(path, full, sizeof full))
        fd = open(full, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        mt_buf_t b;
        mt_buf_init(&b, STDERR_FILENO);
        mt_buf_line(&b);
        mt_buf_str(&b, "warning: cannot open report file '");
        mt_buf_str(&b, path);
        mt_buf_str(&b, "': ");
        mt_buf_str(&b, strerror(errno));
        mt_buf_str(&b, "; reporting to stderr\n");
        mt_buf_flush(&b);
        return STDERR_FILENO;
    }
    return fd;
}

int mt_out_fd(void)
{
    int fd = __atomic_load_n(&out_fd, __ATOMIC_ACQUIRE);
    if (MT_UNLIKELY(fd == -2)) {
        pthread_mutex_lock(&out_mutex);
        if (out_fd == -2)
            __atomic_store_n(&out_fd, open_report_stream(), __ATOMIC_RELEASE);
        fd = out_fd;
        pthread_mutex_unlock(&out_mutex);
    }
    if (fd == STDOUT_FILENO)
        fflush(stdout); /* the program's buffered output comes first */
    return fd;
}

void mt_out_lock(void)
{
    pthread_mutex_lock(&out_mutex);
}

void mt_out_unlock(void)
{
    pthread_mutex_unlock(&out_mutex);
}

/* The options changed where output goes: open the new stream on next use. */
void mt_out_reopen(void)
{
    pthread_mutex_lock(&out_mutex);
    if (out_fd > 2)
        close(out_fd);
    out_fd = -2;
    pthread_mutex_unlock(&out_mutex);
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
