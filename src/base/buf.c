/* buf.c - formatting into a fixed buffer written with write(2): every line libmemtrack
 * prints and every report it writes goes through here.
 *
 * No stdio, no allocation, so printing is safe inside the allocator, after a heap has been
 * corrupted and in a signal handler. The escapers for JSON, HTML and URIs live here too:
 * the report renderers share them, in the library and in the memtrack-report tool.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"

/* A write to a pipe whose reader has gone raises SIGPIPE, and a write past the file size
 * limit (ulimit -f) SIGXFSZ: either would kill the program we are a guest in. Both are
 * blocked in this thread for the write, and one the write raised (and that was not already
 * pending) is taken back before they are unblocked; the write fails with EPIPE or EFBIG
 * instead, which the caller warns about. errno is the caller's again afterwards. */
int mt_write_all(int fd, const char *s, size_t n)
{
    int saved = errno, err = 0;
    sigset_t quiet, old, pending, raised;
    sigemptyset(&quiet);
    sigaddset(&quiet, SIGPIPE);
#ifdef SIGXFSZ
    sigaddset(&quiet, SIGXFSZ);
#endif
    bool blocked = pthread_sigmask(SIG_BLOCK, &quiet, &old) == 0;
    if (!blocked || sigpending(&pending) != 0)
        sigemptyset(&pending);
    while (n > 0 && fd >= 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            err = w < 0 ? errno : EIO;
            break;
        }
        s += w;
        n -= (size_t)w;
    }
    if (blocked) {
        /* the signal this write raised, unless the program's own was pending already */
        int sig = err == EPIPE ? SIGPIPE : 0;
#ifdef SIGXFSZ
        if (err == EFBIG)
            sig = SIGXFSZ;
#endif
        if (sig != 0 && !sigismember(&pending, sig)) {
            static const struct timespec now = {0, 0};
            sigemptyset(&raised);
            sigaddset(&raised, sig);
            (void)sigtimedwait(&raised, NULL, &now);
        }
        (void)pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    errno = saved;
    return err;
}

void mt_buf_init(mt_buf_t *b, int fd)
{
    b->len = 0;
    b->fd = fd;
    b->error = 0;
    b->escape = MT_ESCAPE_NONE;
}

void mt_buf_flush(mt_buf_t *b)
{
    if (b->len > 0 && b->fd >= 0) {
        int err = mt_write_all(b->fd, b->data, b->len);
        if (err != 0 && b->error == 0)
            b->error = err;
    }
    b->len = 0;
}

static void escaped(mt_buf_t *b, const unsigned char *s, size_t n);

/* Appends n bytes as they are. */
static void put(mt_buf_t *b, const char *s, size_t n)
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

void mt_buf_strn(mt_buf_t *b, const char *s, size_t n)
{
    if (MT_BUF_UNLIKELY(b->escape != MT_ESCAPE_NONE))
        escaped(b, (const unsigned char *)s, n);
    else
        put(b, s, n);
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

void mt_buf_from_start(mt_buf_t *b, int64_t offset)
{
    if (offset < 0) {
        mt_buf_count(b, (uint64_t)-offset, "byte", "bytes");
        mt_buf_str(b, " before its start");
    } else {
        mt_buf_count(b, (uint64_t)offset, "byte", "bytes");
        mt_buf_str(b, " past its start");
    }
}

int (*mt_warning_fd)(int fd);

void mt_warning_begin(mt_buf_t *b)
{
    mt_buf_init(b, mt_warning_fd != NULL ? mt_warning_fd(STDERR_FILENO) : STDERR_FILENO);
    mt_buf_line(b);
    mt_buf_str(b, "warning: ");
}

void mt_warning_end(mt_buf_t *b)
{
    mt_buf_char(b, '\n');
    mt_buf_flush(b);
}

void mt_buf_line(mt_buf_t *b)
{
    /* Keep whole lines together when two processes share a terminal. */
    if (b->len > sizeof b->data - 256)
        mt_buf_flush(b);
    mt_buf_strn(b, MT_PREFIX, sizeof MT_PREFIX - 1);
}

/* ---- escaping for the report formats --------------------------------------------- */

/* The length of the well-formed UTF-8 sequence that starts at s (2 to 4 bytes, within the
 * n there are), or 0 for a byte that starts none: a stray continuation byte, an overlong
 * form, a surrogate, a code point past U+10FFFF, or a sequence cut short. */
static size_t utf8_sequence(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
    if (len == 0 || c > 0xf4 || len > n)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f) || /* overlong, surrogate */
        (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] > 0x8f))   /* overlong, > U+10FFFF */
        return 0;
    return len;
}

static void hex_byte(mt_buf_t *b, const char *prefix, unsigned char c)
{
    static const char hex[] = "0123456789abcdef";
    put(b, prefix, strlen(prefix));
    char digits[2] = {hex[c >> 4], hex[c & 15]};
    put(b, digits, 2);
}

/* A well-formed character a terminal takes as a command rather than text: a C1 control
 * (U+0080 to U+009F; U+009B is CSI, which starts an escape sequence) or one that reorders
 * what is shown (the bidirectional embeddings, overrides and isolates, U+202A to U+202E and
 * U+2066 to U+2069), by which a name could make a line read as something else. */
static bool text_control(const unsigned char *s, size_t len)
{
    if (len == 2)
        return s[0] == 0xc2 && s[1] < 0xa0;
    return len == 3 && s[0] == 0xe2 &&
           ((s[1] == 0x80 && s[2] >= 0xaa && s[2] <= 0xae) ||
            (s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9));
}

/* The one escaper: text a person reads, a JSON string's contents, HTML text. Well-formed
 * UTF-8 always passes as it is; what else a form cannot hold is spelled as that form can. */
static void escaped(mt_buf_t *b, const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        size_t len = c >= 0x80 ? utf8_sequence(s + i, n - i) : 1;
        bool control = c < 0x20 || c == 0x7f;
        switch (b->escape) {
        case MT_ESCAPE_TEXT:
            if (len == 0 || control || c == '\\') {
                hex_byte(b, "\\x", c); /* a control byte, DEL, a backslash, a stray byte */
            } else if (text_control(s + i, len)) {
                for (size_t k = 0; k < len; k++) /* its bytes, as a stray byte's */
                    hex_byte(b, "\\x", s[i + k]);
            } else {
                put(b, (const char *)s + i, len);
            }
            break;
        case MT_ESCAPE_JSON:
            if (len == 0)
                put(b, "\\ufffd", 6); /* a byte that is not UTF-8 */
            else if (c == '"' || c == '\\')
                put(b, c == '"' ? "\\\"" : "\\\\", 2);
            else if (c == '\n' || c == '\r' || c == '\t')
                put(b, c == '\n' ? "\\n" : c == '\r' ? "\\r" : "\\t", 2);
            else if (control)
                hex_byte(b, "\\u00", c);
            else
                put(b, (const char *)s + i, len);
            break;
        default: /* MT_ESCAPE_HTML */
            if (len == 0 || (control && c != '\t' && c != '\n'))
                put(b, "&#xfffd;", 8);
            else if (c == '&' || c == '<' || c == '>' || c == '"' || c == '\'')
                put(b,
                    c == '&'   ? "&amp;"
                    : c == '<' ? "&lt;"
                    : c == '>' ? "&gt;"
                    : c == '"' ? "&quot;"
                               : "&#39;",
                    c == '&'               ? 5
                    : c == '<' || c == '>' ? 4
                    : c == '"'             ? 6
                                           : 5);
            else
                put(b, (const char *)s + i, len);
            break;
        }
        i += len == 0 ? 1 : len;
    }
}

void mt_buf_escape(mt_buf_t *b, int escape)
{
    b->escape = (unsigned char)escape;
}

void mt_buf_text(mt_buf_t *b, const char *s)
{
    unsigned char was = b->escape;
    if (s == NULL)
        return;
    if (was == MT_ESCAPE_NONE)
        b->escape = MT_ESCAPE_TEXT;
    mt_buf_strn(b, s, strlen(s));
    b->escape = was;
}

void mt_buf_json_str(mt_buf_t *b, const char *s)
{
    if (s == NULL) {
        mt_buf_str(b, "null");
        return;
    }
    mt_buf_json_begin(b);
    mt_buf_strn(b, s, strlen(s));
    mt_buf_json_end(b);
}

void mt_buf_json_begin(mt_buf_t *b)
{
    put(b, "\"", 1);
    b->escape = MT_ESCAPE_JSON;
}

void mt_buf_json_end(mt_buf_t *b)
{
    b->escape = MT_ESCAPE_NONE;
    put(b, "\"", 1);
}

void mt_buf_html(mt_buf_t *b, const char *s)
{
    if (s == NULL)
        return;
    unsigned char was = b->escape;
    b->escape = MT_ESCAPE_HTML;
    mt_buf_strn(b, s, strlen(s));
    b->escape = was;
}

/* Characters a URI path keeps as they are (RFC 3986 unreserved, plus '/' and ':'). */
static bool uri_keeps(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '.' || c == '_' || c == '~' || c == '/' || c == ':';
}

void mt_buf_uri_path(mt_buf_t *b, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        if (uri_keeps(*p)) {
            mt_buf_char(b, (char)*p);
        } else {
            char esc[3] = {'%', hex[*p >> 4], hex[*p & 15]};
            mt_buf_strn(b, esc, sizeof esc);
        }
    }
}

/* "512 bytes", "4.0 KiB", "12.5 MiB": one decimal, rounded down, binary units. */
void mt_buf_size(mt_buf_t *b, uint64_t bytes)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) {
        mt_buf_count(b, bytes, "byte", "bytes");
        return;
    }
    unsigned u = 0;
    uint64_t scale = 1024;
    while (u + 1 < sizeof units / sizeof units[0] && bytes / scale >= 1024) {
        scale *= 1024;
        u++;
    }
    uint64_t whole = bytes / scale;
    uint64_t tenth = (bytes % scale) * 10 / scale;
    mt_buf_u64(b, whole);
    mt_buf_char(b, '.');
    mt_buf_u64(b, tenth);
    mt_buf_char(b, ' ');
    mt_buf_str(b, units[u]);
}

void mt_buf_program(mt_buf_t *b, const char *program, uint64_t pid)
{
    mt_buf_text(b, program);
    if (pid != 0) {
        mt_buf_str(b, " (pid ");
        mt_buf_u64(b, pid);
        mt_buf_char(b, ')');
    }
}
