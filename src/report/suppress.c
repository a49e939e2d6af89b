/* suppress.c - suppression rules: leaks the user knows about and wants left out.
 *
 * Option `suppressions=PATH` names a text file, one rule a line:
 *
 *   # a comment; blank lines are ignored
 *   file:GLOB            leaks made in a source file ("cache.c", "*.pb.c")
 *   function:GLOB        leaks made in a function ("font_cache_*")
 *   site:GLOB:LINE       leaks made at one line of a file ("src/cache.c:42")
 *   module:GLOB          leaks made in a library, for sites known by address ("libfoo.so*")
 *   held:GLOB            blocks the program still holds in a variable, or in a function's
 *                        stack frame, of that name ("g_font_cache", "intern_*"): the chain
 *                        of pointers to them starts there (the leak scan's holders)
 *
 * GLOB matches the whole name; `*` stands for any run of characters, `?` for one. A file
 * or module glob without '/' is matched against the last part of the path only. Leaks
 * that match a rule are left out of the report and counted apart, rule by rule.
 *
 * The file is read when a report is built (and again when the option changes), into
 * memory mapped from the kernel: nothing here allocates through the tracker.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/report.h"
#include "base/buf.h"
#include "base/options.h"
#include "base/platform.h"
#include "report/model.h"

#define MAX_RULES 4096u
#define MAX_FILE (1u << 20)

typedef enum { RULE_FILE, RULE_FUNCTION, RULE_SITE, RULE_MODULE, RULE_HELD } rule_type_t;

typedef struct rule {
    rule_type_t type;
    const char *text;    /* the rule as written, for the report */
    const char *pattern; /* the glob */
    long line;           /* site rules */
} rule_t;

static struct {
    char path[MT_OPTION_STRING_MAX]; /* the file loaded, "" for none */
    char *text;                      /* its bytes, two copies: as written, and split */
    rule_t *rules;
    size_t count;
    size_t text_size, rules_size;
} loaded;

static void warn_line(const char *path, size_t line, const char *what, const char *detail)
{
    mt_buf_t b;
    mt_warning_begin(&b);
    mt_buf_str(&b, "suppressions ");
    mt_buf_str(&b, path);
    if (line > 0) {
        mt_buf_char(&b, ':');
        mt_buf_u64(&b, line);
    }
    mt_buf_fmt(&b, ": %s%s", what, detail);
    mt_warning_end(&b);
}

static void unload(void)
{
    mt_pages_free(loaded.text, loaded.text_size);
    mt_pages_free(loaded.rules, loaded.rules_size);
    memset(&loaded, 0, sizeof loaded);
}

/* Reads the whole file into pages; returns its length, or -1 with *why saying why. Only a
 * regular file is read: a FIFO would block the program at exit forever (it is opened without
 * waiting for a writer), a directory or a device has no rules to give. */
static long read_file(const char *path, char **out, size_t *mapped, const char **why)
{
    struct stat st;
    *why = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        *why = "it is not a regular file";
        return -1;
    }
    off_t size = lseek(fd, 0, SEEK_END);
    if (size < 0 || size > (off_t)MAX_FILE || lseek(fd, 0, SEEK_SET) != 0) {
        close(fd);
        errno = EFBIG;
        return -1;
    }
    /* Two copies and their terminators: the rules as written, and the patterns. */
    *mapped = (((size_t)size + 1) * 2 + 4095) & ~(size_t)4095;
    *out = mt_pages_alloc(*mapped);
    if (*out == NULL) {
        close(fd);
        errno = ENOMEM;
        return -1;
    }
    size_t got = 0;
    while (got < (size_t)size) {
        ssize_t n = read(fd, *out + got, (size_t)size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    return (long)got;
}

/* Parses one line (NUL-terminated, in the pattern copy) into r; false with *why set. */
static bool parse_rule(char *line, rule_t *r, const char **why)
{
    static const struct {
        const char *prefix;
        rule_type_t type;
    } types[] = {{"file:", RULE_FILE},
                 {"function:", RULE_FUNCTION},
                 {"site:", RULE_SITE},
                 {"module:", RULE_MODULE},
                 {"held:", RULE_HELD}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        size_t n = strlen(types[i].prefix);
        if (strncmp(line, types[i].prefix, n) != 0)
            continue;
        r->type = types[i].type;
        r->pattern = line + n;
        r->line = 0;
        if (r->pattern[0] == '\0') {
            *why = "empty pattern";
            return false;
        }
        if (r->type == RULE_SITE) {
            char *colon = strrchr(line + n, ':');
            long v = 0;
            if (colon == NULL || colon[1] == '\0') {
                *why = "a site rule is site:FILE:LINE";
                return false;
            }
            for (const char *d = colon + 1; *d != '\0'; d++) {
                if (*d < '0' || *d > '9' || v > 100000000) {
                    *why = "a site rule is site:FILE:LINE";
                    return false;
                }
                v = v * 10 + (*d - '0');
            }
            *colon = '\0';
            r->line = v;
        }
        return true;
    }
    *why = "expected file:, function:, site:, module: or held: before the pattern";
    return false;
}

/* Loads the file the option names, once per path. */
static void load(void)
{
    const char *path = mt_opt.suppressions != NULL ? mt_opt.suppressions : "";
    if (strcmp(path, loaded.path) == 0)
        return;
    unload();
    size_t plen = strlen(path);
    memcpy(loaded.path, path, plen + 1);
    if (plen == 0)
        return;

    char *text;
    size_t mapped;
    const char *reason;
    long len = read_file(path, &text, &mapped, &reason);
    if (len < 0) {
        warn_line(path, 0, "cannot read it: ", reason != NULL ? reason : strerror(errno));
        return;
    }
    loaded.text = text;
    loaded.text_size = mapped;
    loaded.rules_size = (MAX_RULES * sizeof(rule_t) + 4095) & ~(size_t)4095;
    loaded.rules = mt_pages_alloc(loaded.rules_size);
    if (loaded.rules == NULL) {
        warn_line(path, 0, "out of memory", "");
        return;
    }
    /* The first copy keeps each rule as written; the second is cut up into patterns. */
    char *copy = text + len + 1;
    memcpy(copy, text, (size_t)len);
    size_t lineno = 0;
    for (long start = 0; start < len;) {
        long end = start;
        while (end < len && text[end] != '\n')
            end++;
        lineno++;
        /* Trim blanks and a carriage return at both ends. */
        long a = start, z = end;
        while (a < z && (text[a] == ' ' || text[a] == '\t'))
            a++;
        while (z > a && (text[z - 1] == ' ' || text[z - 1] == '\t' || text[z - 1] == '\r'))
            z--;
        text[z] = '\0';
        copy[z] = '\0';
        if (z > a && text[a] != '#') {
            rule_t r;
            const char *why = NULL;
            if (loaded.count == MAX_RULES) {
                warn_line(path, lineno, "too many rules; the rest are ignored", "");
                break;
            }
            if (parse_rule(copy + a, &r, &why)) {
                r.text = text + a;
                loaded.rules[loaded.count++] = r;
            } else {
                warn_line(path, lineno, why, "; rule ignored");
            }
        }
        start = end + 1;
    }
}

/* Glob match of the whole name: '*' any run, '?' any one character. */
static bool glob_match(const char *pat, const char *s)
{
    const char *star = NULL, *resume = NULL;
    while (*s != '\0') {
        if (*pat == '*') {
            star = pat++;
            resume = s;
        } else if (*pat == '?' || *pat == *s) {
            pat++;
            s++;
        } else if (star != NULL) {
            pat = star + 1;
            s = ++resume;
        } else {
            return false;
        }
    }
    while (*pat == '*')
        pat++;
    return *pat == '\0';
}

/* A pattern without '/' names the last part of a path. */
static bool path_match(const char *pat, const char *path)
{
    if (path == NULL)
        return false;
    if (strchr(pat, '/') == NULL) {
        const char *slash = strrchr(path, '/');
        if (slash != NULL)
            path = slash + 1;
    }
    return glob_match(pat, path);
}

size_t mt_suppress_count(void)
{
    load();
    return loaded.count;
}

bool mt_suppress_any_held(void)
{
    for (size_t i = 0; i < mt_suppress_count(); i++)
        if (loaded.rules[i].type == RULE_HELD)
            return true;
    return false;
}

const char *mt_suppress_rule(size_t i)
{
    return i < loaded.count ? loaded.rules[i].text : NULL;
}

static bool rule_hits(const rule_t *r, const char *file, long line, const char *func,
                      const char *module)
{
    switch (r->type) {
    case RULE_FILE: return path_match(r->pattern, file);
    case RULE_FUNCTION: return func != NULL && glob_match(r->pattern, func);
    case RULE_SITE: return line == r->line && path_match(r->pattern, file);
    case RULE_MODULE: return path_match(r->pattern, module);
    case RULE_HELD: return false; /* (not a place's: see mt_suppress_match) */
    }
    return false;
}

/* The name a held: rule matches: the variable holding the chain's first block, or the
 * function whose stack frame does. */
static const char *holder_name(const mt_holder_t *h)
{
    if (h == NULL)
        return NULL;
    if (h->kind == MT_HOLDER_STACK)
        return h->func;
    return h->kind == MT_HOLDER_LOST ? NULL : h->name;
}

long mt_suppress_match(const mt_place_t *p, const mt_holder_t *held)
{
    for (size_t i = 0; i < loaded.count; i++) {
        const rule_t *r = &loaded.rules[i];
        if (r->type == RULE_HELD) {
            const char *name = holder_name(held);
            if (name != NULL && glob_match(r->pattern, name))
                return (long)i;
            continue;
        }
        if (rule_hits(r, p->file, p->line, p->func, p->module))
            return (long)i;
        /* function:, file: and module: rules match any caller too (as LeakSanitizer's do):
         * a leak made for a library's cache is that cache's, whoever asked. site: names
         * one line where blocks are made. */
        if (r->type == RULE_SITE)
            continue;
        for (size_t f = 0; f < p->stack.nframes; f++) {
            const mt_frame_t *fr = &p->stack.frames[f];
            if (rule_hits(r, fr->file, fr->line, fr->func, fr->module))
                return (long)i;
        }
    }
    return -1;
}
