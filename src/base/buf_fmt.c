/* buf_fmt.c - mt_buf_fmt: a line of a message or report worded as one format string
 * instead of a chain of one-token appends.
 *
 * Async-signal-safe and bounded: no stdio, no locale, no allocation; one pass over the
 * format, each conversion written through the same appenders as the chains (so a buffer
 * that escapes for JSON or HTML escapes what the format writes alike). Shared with the
 * memtrack-report tool, like buf.c.
 */
#include <stdarg.h>
#include <string.h>

#include "base/buf.h"

/* The digits of v in base 10 or 16, right-aligned in at least width columns by spaces. */
static void number(mt_buf_t *b, unsigned long long v, bool negative, unsigned base, unsigned width)
{
    char digits[24];
    size_t i = sizeof digits;
    if (base == 16) {
        do {
            digits[--i] = "0123456789abcdef"[v & 15];
            v >>= 4;
        } while (v != 0);
    } else {
        do {
            digits[--i] = (char)('0' + v % 10);
            v /= 10;
        } while (v != 0);
    }
    if (negative)
        digits[--i] = '-';
    for (size_t shown = sizeof digits - i; shown < width && shown < 64; shown++)
        mt_buf_char(b, ' ');
    mt_buf_strn(b, digits + i, sizeof digits - i);
}

/* The integer argument of a conversion, by its length modifier: 0 (int), 'l', 'L' (long
 * long) or 'z'. */
static unsigned long long unsigned_arg(va_list *ap, char length)
{
    switch (length) {
    case 'l': return va_arg(*ap, unsigned long);
    case 'L': return va_arg(*ap, unsigned long long);
    case 'z': return va_arg(*ap, size_t);
    default: return va_arg(*ap, unsigned);
    }
}

static long long signed_arg(va_list *ap, char length)
{
    switch (length) {
    case 'l': return va_arg(*ap, long);
    case 'L': return va_arg(*ap, long long);
    case 'z': /* ssize_t has the width of size_t */ return (long long)va_arg(*ap, size_t);
    default: return va_arg(*ap, int);
    }
}

void mt_buf_vfmt(mt_buf_t *b, const char *fmt, va_list ap)
{
    va_list args;
    va_copy(args, ap);
    const char *p = fmt;
    while (*p != '\0') {
        const char *pct = strchr(p, '%');
        size_t run = pct != NULL ? (size_t)(pct - p) : strlen(p);
        if (run > 0)
            mt_buf_strn(b, p, run);
        if (pct == NULL)
            break;
        p = pct + 1;
        bool text = false;
        if (*p == '-') {
            text = true;
            p++;
        }
        unsigned width = 0;
        if (*p == '*') {
            int w = va_arg(args, int);
            width = w > 0 ? (unsigned)w : 0;
            p++;
        } else {
            while (*p >= '0' && *p <= '9' && width < 1000)
                width = width * 10 + (unsigned)(*p++ - '0');
        }
        char length = 0;
        if (*p == 'l') {
            length = p[1] == 'l' ? 'L' : 'l';
            p += length == 'L' ? 2 : 1;
        } else if (*p == 'z') {
            length = 'z';
            p++;
        }
        switch (*p) {
        case 's': {
            const char *s = va_arg(args, const char *);
            if (text)
                mt_buf_text(b, s);
            else
                mt_buf_str(b, s);
            break;
        }
        case 'c': mt_buf_char(b, (char)va_arg(args, int)); break;
        case 'd':
        case 'i': {
            long long v = signed_arg(&args, length);
            unsigned long long magnitude =
                v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
            number(b, magnitude, v < 0, 10, width);
            break;
        }
        case 'u': number(b, unsigned_arg(&args, length), false, 10, width); break;
        case 'x': number(b, unsigned_arg(&args, length), false, 16, width); break;
        case 'p': mt_buf_hex(b, (uintptr_t)va_arg(args, void *)); break;
        case '%': mt_buf_char(b, '%'); break;
        default: /* not a conversion of ours (or the format ends): shown as it is */
            mt_buf_char(b, '%');
            continue;
        }
        p++;
    }
    va_end(args);
}

void mt_buf_fmt(mt_buf_t *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mt_buf_vfmt(b, fmt, ap);
    va_end(ap);
}
