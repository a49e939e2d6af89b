/* buf.h - formatting into fixed buffers, written with write(2). Never allocates.
 *
 * Shared with the memtrack-report tool (tools/), which compiles buf.c on its own: this
 * header uses nothing else of the library.
 */
#ifndef MT_BUF_H
#define MT_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct mt_buf {
    char data[2048];
    size_t len;
    int fd;               /* where mt_buf_flush writes; -1 discards */
    int error;            /* the first write that failed (an errno value), 0 when none did */
    unsigned char escape; /* how what is appended is escaped: MT_ESCAPE_* */
} mt_buf_t;

/* While a buffer escapes, everything appended to it is escaped for that form (see
 * mt_buf_escape), so a long name is escaped as it is written, never cut to fit a scratch
 * buffer first. */
#define MT_ESCAPE_NONE 0
#define MT_ESCAPE_TEXT 1 /* as mt_buf_text */
#define MT_ESCAPE_JSON 2 /* the contents of a JSON string */
#define MT_ESCAPE_HTML 3 /* HTML text or an attribute's value */
#define MT_BUF_UNLIKELY(x) __builtin_expect(!!(x), 0)
void mt_buf_escape(mt_buf_t *b, int escape);
/* A JSON string: its opening quote, then everything appended is escaped, until
 * mt_buf_json_end writes the closing quote. */
void mt_buf_json_begin(mt_buf_t *b);
void mt_buf_json_end(mt_buf_t *b);

void mt_buf_init(mt_buf_t *b, int fd);
void mt_buf_str(mt_buf_t *b, const char *s);
void mt_buf_strn(mt_buf_t *b, const char *s, size_t n);
void mt_buf_char(mt_buf_t *b, char c);
void mt_buf_u64(mt_buf_t *b, uint64_t v);
void mt_buf_i64(mt_buf_t *b, int64_t v);
void mt_buf_hex(mt_buf_t *b, uint64_t v);
/* Appends fmt with its conversions, as printf would, in one call instead of a chain of
 * appends (base/buf_fmt.c). Only what the messages and reports need, async-signal-safe and
 * without locale: %s (as mt_buf_str), %-s (as mt_buf_text: a name a person reads, escaped;
 * nothing for NULL), %c, %d %i %u %x with the lengths l, ll and z (so PRIu64 and PRId64),
 * a width (digits or *) that pads numbers with spaces on the left, %p (as mt_buf_hex), %%.
 * What the buffer escapes (MT_ESCAPE_*) is escaped alike, the format's own words included,
 * as mt_buf_str would. The compiler checks the arguments against the format. */
#if defined(__MINGW32__)
#define MT_BUF_FORMAT(f, a) __attribute__((format(gnu_printf, f, a)))
#elif defined(__GNUC__)
#define MT_BUF_FORMAT(f, a) __attribute__((format(printf, f, a)))
#else
#define MT_BUF_FORMAT(f, a)
#endif
void mt_buf_fmt(mt_buf_t *b, const char *fmt, ...) MT_BUF_FORMAT(2, 3);
void mt_buf_vfmt(mt_buf_t *b, const char *fmt, va_list ap) MT_BUF_FORMAT(2, 0);
/* "1 block" / "3 blocks" */
void mt_buf_count(mt_buf_t *b, uint64_t n, const char *singular, const char *plural);
/* Where a pointer lies from a block's start: "4 bytes before its start", "8 bytes past its start".
 */
void mt_buf_from_start(mt_buf_t *b, int64_t offset);
void mt_buf_flush(mt_buf_t *b);
/* Start a report line: flushes a finished line when the buffer is nearly full. */
void mt_buf_line(mt_buf_t *b);
/* A warning: "memtrack: warning: " on stderr, then the caller's words, then the end of
 * the line (and the write). Every warning of the library is printed this way. */
void mt_warning_begin(mt_buf_t *b);
/* Where a warning goes, given stderr's descriptor: set by the library (base/output.c) to
 * write nothing into a descriptor 2 the program has reused; NULL in the report tool. */
extern int (*mt_warning_fd)(int fd);
void mt_warning_end(mt_buf_t *b);
/* Writes all of s, never raising SIGPIPE or SIGXFSZ; returns 0 or the errno of the write that
 * failed. */
int mt_write_all(int fd, const char *s, size_t n);
/* Text a person reads (a file, function or program name): printable ASCII and well-formed
 * UTF-8 as they are, control bytes, DEL, backslashes and bytes that are not UTF-8 as \xNN,
 * so a name can neither move the terminal's cursor nor forge a line. */
void mt_buf_text(mt_buf_t *b, const char *s);
/* A program's name and its process id, "name (pid N)"; no id when pid is 0 (bare metal has
 * no processes: mt_process_id). */
void mt_buf_program(mt_buf_t *b, const char *program, uint64_t pid);
/* A JSON string literal with its quotes, or null for NULL; bytes that are not UTF-8 become
 * U+FFFD, so the document is always valid UTF-8. */
void mt_buf_json_str(mt_buf_t *b, const char *s);
/* Text with &, <, >, " and ' escaped for HTML (nothing for NULL). */
void mt_buf_html(mt_buf_t *b, const char *s);
/* A path percent-encoded for a URI (keeps letters, digits, -._~/:). */
void mt_buf_uri_path(mt_buf_t *b, const char *s);
/* "512 bytes", "4.0 KiB", "1.5 MiB" */
void mt_buf_size(mt_buf_t *b, uint64_t bytes);

/* Line prefix of every message: "memtrack: ". */
#define MT_PREFIX "memtrack: "

#endif /* MT_BUF_H */
