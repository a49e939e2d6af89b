/* options.c - the one options table (MT_OPTION_LIST in options.h) and its parser.
 *
 * Options come from MEMTRACK_OPTIONS as key=value pairs separated by ':' or ',', as
 * ASAN_OPTIONS does, read once at start without allocating, and from memtrack_set_option().
 * A bad entry gets one warning naming it and the option keeps its value.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/exit_now.h"
#include "base/options.h"
#include "base/unwind.h" /* MT_STACK_MAX */

mt_options_t mt_opt;
atomic_bool mt_options_frozen;
atomic_uint mt_output_generation;

/* A string option set from text keeps it here, so the environment may change afterwards;
 * one at its default points at the default itself. Only string options have storage, and
 * the defaults are not copied into it: every page written at start-up is a page fault, and
 * copying eight defaults touched six pages of the library's .bss. */
#define MT_OPTION_STORAGE_BOOL(name)
#define MT_OPTION_STORAGE_INT(name)
#define MT_OPTION_STORAGE_SIZE(name)
#define MT_OPTION_STORAGE_COUNT(name)
#define MT_OPTION_STORAGE_STRING(name) static char name##_text[MT_OPTION_STRING_MAX] MT_COLD;
#define MT_OPTION_STORAGE(name, type, def, help) MT_OPTION_STORAGE_##type(name)
MT_OPTION_LIST(MT_OPTION_STORAGE)
#undef MT_OPTION_STORAGE
#define MT_OPTION_TEXT_BOOL(name) NULL
#define MT_OPTION_TEXT_INT(name) NULL
#define MT_OPTION_TEXT_SIZE(name) NULL
#define MT_OPTION_TEXT_COUNT(name) NULL
#define MT_OPTION_TEXT_STRING(name) name##_text

typedef struct option_desc {
    const char *name;
    mt_option_type_t type;
    const char *def;
    const char *help;
    void *field;
    char *text; /* a string option's storage (MT_OPTION_STRING_MAX bytes), else NULL */
} option_desc_t;

static const option_desc_t options[] = {
#define MT_OPTION_DESC(name, type, def, help)                                                      \
    {#name, MT_OPT_##type, def, help, &mt_opt.name, MT_OPTION_TEXT_##type(name)},
    MT_OPTION_LIST(MT_OPTION_DESC)
#undef MT_OPTION_DESC
};
#define OPTION_COUNT (sizeof options / sizeof options[0])

/* The options that choose allocations to fail (api/fail.c). */
static bool is_fail_option(const option_desc_t *o)
{
    return strncmp(o->name, "fail_", 5) == 0;
}

/* Options that shape blocks already made cannot change once the first block exists; nor
 * can those that choose allocations to fail, which number them from the first. */
static bool option_is_frozen_kind(const option_desc_t *o)
{
    return is_fail_option(o) || strcmp(o->name, "guard") == 0 || strcmp(o->name, "fill_new") == 0 ||
           strcmp(o->name, "fill_freed") == 0 || strcmp(o->name, "page_guard") == 0 ||
           strcmp(o->name, "page_guard_side") == 0 || strcmp(o->name, "page_guard_slots") == 0 ||
           strcmp(o->name, "page_guard_site") == 0 || strcmp(o->name, "page_guard_rate") == 0;
}

/* Writes the option's current value, as MEMTRACK_OPTIONS would spell it. */
static void buf_value(mt_buf_t *b, const option_desc_t *o)
{
    switch (o->type) {
    case MT_OPT_BOOL: mt_buf_u64(b, (uint64_t) * (int *)o->field); break;
    case MT_OPT_INT: mt_buf_i64(b, *(long *)o->field); break;
    case MT_OPT_SIZE:
    case MT_OPT_COUNT: mt_buf_u64(b, *(size_t *)o->field); break;
    case MT_OPT_STRING: mt_buf_str(b, *(const char **)o->field); break;
    }
}

/* One parse's warnings: a text of many bad entries (a script that appends alloc_fn= in a
 * loop) gets the first few, then one line that counts the rest. memtrack_set_option()'s
 * single entry has no such count (NULL). */
#define WARNINGS_MAX 8u
typedef struct warnings {
    unsigned printed, held;
    bool no_room[2]; /* a repeatable option found full, told once: [0] alloc_fn, [1] sites */
} warnings_t;

/* "memtrack: warning: MEMTRACK_OPTIONS: <what> '<text>'<rest>" and, when o is given,
 * "; <name> stays <value>" (a long value cut short). */
static void warn(warnings_t *w, const char *source, const char *what, const char *text, size_t n,
                 const char *rest, const option_desc_t *o)
{
    if (w != NULL && w->printed >= WARNINGS_MAX) {
        w->held++;
        return;
    }
    if (w != NULL)
        w->printed++;
    mt_buf_t b;
    mt_warning_begin(&b);
    mt_buf_fmt(&b, "%s: %s '", source, what);
    mt_buf_strn(&b, text, n < 80 ? n : 80);
    mt_buf_char(&b, '\'');
    mt_buf_str(&b, rest);
    if (o != NULL) {
        mt_buf_fmt(&b, "; %s stays ", o->name);
        if (o->type == MT_OPT_STRING && strlen(*(const char **)o->field) > 80) {
            mt_buf_strn(&b, *(const char **)o->field, 80);
            mt_buf_str(&b, "...");
        } else {
            buf_value(&b, o);
        }
    }
    mt_warning_end(&b);
}

static bool parse_u64(const char *s, size_t n, bool allow_suffix, uint64_t *out)
{
    uint64_t v = 0;
    size_t i = 0;
    if (n == 0)
        return false;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    if (i == 0)
        return false;
    if (i < n && allow_suffix) {
        unsigned shift = 0;
        switch (s[i]) {
        case 'k':
        case 'K': shift = 10; break;
        case 'm':
        case 'M': shift = 20; break;
        case 'g':
        case 'G': shift = 30; break;
        default: return false;
        }
        i++;
        if (i < n && (s[i] == 'i' || s[i] == 'I'))
            i++;
        if (i < n && (s[i] == 'b' || s[i] == 'B'))
            i++;
        if (v > (UINT64_MAX >> shift))
            return false;
        v <<= shift;
    }
    if (i != n)
        return false;
    *out = v;
    return true;
}

/* Numbers some options hold only within bounds: a value outside is refused with a warning
 * that says the bounds, rather than quietly cut to them (stack=1000 would walk 64 frames,
 * page_guard_slots=0 would keep one slot). */
typedef struct option_range {
    const char *name;
    uint64_t min, max;
    const char *expected;
} option_range_t;

static const option_range_t ranges[] = {
    {"guard", 0, 4096, "a size from 0 to 4096"},
    {"stack", 0, MT_STACK_MAX, "a count from 0 to 64"},
    {"page_guard_slots", 1, (uint64_t)1 << 20, "a count from 1 to 1048576"},
};
_Static_assert(MT_STACK_MAX == 64, "the bounds of option stack, in words above");

/* The expected form when u is outside o's bounds, else NULL. */
static const char *out_of_range(const option_desc_t *o, uint64_t u)
{
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
        if (strcmp(o->name, ranges[i].name) == 0 && (u < ranges[i].min || u > ranges[i].max))
            return ranges[i].expected;
    return NULL;
}

/* The words a string option accepts, or NULL when its text is free (a path, a site). */
static const char *string_form(const option_desc_t *o, const char *v, size_t n)
{
    if (strcmp(o->name, "page_guard") == 0 && !(n == 0 || (n == 3 && strncmp(v, "all", 3) == 0)))
        return "all, or nothing";
    if (strcmp(o->name, "page_guard_side") == 0 &&
        !((n == 3 && strncmp(v, "end", 3) == 0) || (n == 5 && strncmp(v, "start", 5) == 0)))
        return "end or start";
    if (strcmp(o->name, "unwind") == 0 &&
        !((n == 4 && strncmp(v, "fast", 4) == 0) || (n == 5 && strncmp(v, "exact", 5) == 0)))
        return "fast or exact";
    if (strcmp(o->name, "leaks") == 0 && !(n == 1 && (v[0] == '0' || v[0] == '1')) &&
        !(n == 3 && strncmp(v, "all", 3) == 0) && !(n == 4 && strncmp(v, "lost", 4) == 0))
        return "all, lost or 0";
    if (strcmp(o->name, "alloc_fn") == 0 && memchr(v, ' ', n) != NULL)
        return "a function name without spaces";
    /* A pattern that chooses allocations to fail cannot be empty: nothing would fail. */
    if ((strcmp(o->name, "fail_site") == 0 || strcmp(o->name, "fail_fn") == 0 ||
         strcmp(o->name, "fail_owner") == 0) &&
        (n == 0 || memchr(v, ' ', n) != NULL))
        return strcmp(o->name, "fail_site") == 0 ? "FILE:LINE" : "a glob without spaces, not empty";
    if ((strcmp(o->name, "page_guard_site") == 0 || strcmp(o->name, "fail_site") == 0) && n != 0) {
        const char *colon = NULL;
        for (size_t i = 0; i < n; i++)
            colon = v[i] == ':' ? v + i : colon;
        if (colon == NULL || colon == v || colon + 1 == v + n ||
            strspn(colon + 1, "0123456789") < (size_t)(v + n - colon - 1))
            return "FILE:LINE";
    }
    return NULL;
}

/* What set_value says when a repeatable option (alloc_fn, page_guard_site) has no room for
 * one more entry. */
static const char no_room[] = "no room";

/* Sets one option from text; returns NULL on success or the expected form on failure. */
static const char *set_value(const option_desc_t *o, const char *v, size_t n)
{
    uint64_t u;
    switch (o->type) {
    case MT_OPT_BOOL:
        if ((n == 1 && v[0] == '1') || (n == 4 && strncmp(v, "true", 4) == 0) ||
            (n == 3 && strncmp(v, "yes", 3) == 0)) {
            *(int *)o->field = 1;
            return NULL;
        }
        if ((n == 1 && v[0] == '0') || (n == 5 && strncmp(v, "false", 5) == 0) ||
            (n == 2 && strncmp(v, "no", 2) == 0)) {
            *(int *)o->field = 0;
            return NULL;
        }
        return "0 or 1";
    case MT_OPT_INT: {
        bool neg = n > 0 && v[0] == '-';
        if (!parse_u64(v + neg, n - neg, false, &u) || u > (uint64_t)LONG_MAX)
            return "a whole number";
        long value = neg ? -(long)u : (long)u;
        /* An exit status is 0 to 255: 256 would exit 0, and -5 would silently mean -1. */
        if (strcmp(o->name, "exitcode") == 0 && (value < -1 || value > 255))
            return "an exit status from 0 to 255, or -1";
        *(long *)o->field = value;
        return NULL;
    }
    case MT_OPT_SIZE:
    case MT_OPT_COUNT:
        if (!parse_u64(v, n, o->type == MT_OPT_SIZE, &u) || u > (uint64_t)SIZE_MAX)
            return o->type == MT_OPT_SIZE ? "a size in bytes such as 4096 or 4m"
                                          : "a whole number, 0 or more";
        if (out_of_range(o, u) != NULL)
            return out_of_range(o, u);
        *(size_t *)o->field = (size_t)u;
        return NULL;
    case MT_OPT_STRING: {
        if (v == o->def) { /* the default: nothing to copy (set_defaults) */
            *(const char **)o->field = o->def;
            return NULL;
        }
        const char *form = string_form(o, v, n);
        if (form != NULL)
            return form;
        /* page_guard_site, alloc_fn and the fail_ patterns are repeatable: each entry adds
         * one ("" clears, where it is allowed). */
        const char *now = *(const char **)o->field;
        bool repeatable = strcmp(o->name, "page_guard_site") == 0 ||
                          strcmp(o->name, "alloc_fn") == 0 ||
                          (is_fail_option(o) && o->type == MT_OPT_STRING);
        size_t at = n != 0 && repeatable && now != NULL && now[0] != '\0' ? strlen(now) + 1 : 0;
        if (at + n >= MT_OPTION_STRING_MAX)
            return repeatable && at != 0 ? no_room : "a shorter value";
        if (at != 0 && now != o->text) /* the entries so far are a default's */
            memcpy(o->text, now, at - 1);
        if (at != 0)
            o->text[at - 1] = ' ';
        memcpy(o->text + at, v, n);
        o->text[at + n] = '\0';
        *(const char **)o->field = o->text;
        return NULL;
    }
    }
    return "a valid value";
}

mt_leaks_mode_t mt_leaks_mode(void)
{
    const char *v = mt_opt.leaks;
    if (v == NULL || strcmp(v, "0") == 0)
        return MT_LEAKS_NONE;
    return strcmp(v, "lost") == 0 ? MT_LEAKS_LOST : MT_LEAKS_ALL;
}

static const option_desc_t *find_option(const char *key, size_t n)
{
    for (size_t i = 0; i < OPTION_COUNT; i++)
        if (strlen(options[i].name) == n && strncmp(options[i].name, key, n) == 0)
            return &options[i];
    return NULL;
}

/* A fail_ option of MEMTRACK_OPTIONS had a bad value (options_read stops the program). */
static bool fail_option_bad;

/* A repeatable option with no room left: said once a parse, naming the first entry left
 * out (the later ones are counted with the other warnings held back). */
static void warn_no_room(warnings_t *w, const char *source, const option_desc_t *o, const char *v,
                         size_t vlen)
{
    bool *told = w == NULL ? NULL : &w->no_room[strcmp(o->name, "alloc_fn") == 0 ? 0 : 1];
    if (told != NULL && *told) {
        w->held++;
        return;
    }
    if (told != NULL)
        *told = true;
    char rest[160];
    mt_buf_t b;
    mt_buf_init(&b, -1);
    mt_buf_fmt(
        &b, " in %s (its entries fill its %" PRIu64 " bytes): it and every later entry are ignored",
        o->name, (uint64_t)MT_OPTION_STRING_MAX);
    size_t len = b.len < sizeof rest - 1 ? b.len : sizeof rest - 1;
    memcpy(rest, b.data, len);
    rest[len] = '\0';
    warn(w, source, "no room for", v, vlen, rest, NULL);
}

/* Applies one "key=value" entry; returns false after warning about it. */
static bool apply_entry(const char *e, size_t n, const char *source, warnings_t *w)
{
    const char *eq = memchr(e, '=', n);
    if (eq == NULL) {
        warn(w, source, "no value for", e, n, " (write key=value); ignored", NULL);
        return false;
    }
    size_t keylen = (size_t)(eq - e);
    const option_desc_t *o = find_option(e, keylen);
    if (o == NULL) {
        warn(w, source, "unknown option", e, keylen,
             " ignored (MEMTRACK_OPTIONS=help=1 lists the options)", NULL);
        return false;
    }
    if (option_is_frozen_kind(o) && atomic_load(&mt_options_frozen)) {
        warn(w, source, "too late to set", e, keylen, ": blocks exist already", o);
        return false;
    }
    const char *v = eq + 1;
    size_t vlen = n - keylen - 1;
    /* set_value changes nothing when the value is bad: the option keeps its value. */
    const char *expected = set_value(o, v, vlen);
    if (expected == no_room) {
        warn_no_room(w, source, o, v, vlen);
        return false;
    }
    if (expected != NULL) {
        char rest[160];
        mt_buf_t b; /* " for guard (expected ...)" formatted without stdio */
        mt_buf_init(&b, -1);
        mt_buf_fmt(&b, " for %s (expected %s)", o->name, expected);
        size_t len = b.len < sizeof rest - 1 ? b.len : sizeof rest - 1;
        memcpy(rest, b.data, len);
        rest[len] = '\0';
        warn(w, source, "bad value", v, vlen, rest, o);
        fail_option_bad |= is_fail_option(o);
        return false;
    }
    if (strcmp(o->name, "report") == 0 || strcmp(o->name, "quiet") == 0)
        atomic_fetch_add(&mt_output_generation, 1); /* output.c opens the new stream */
    return true;
}

int mt_options_parse(const char *text, const char *source)
{
    int bad = 0;
    warnings_t w = {0, 0, {false, false}};
    if (text == NULL)
        return 0;
    const char *p = text;
    while (*p != '\0') {
        size_t n = strcspn(p, ":,");
        /* "key=FILE:LINE" (page_guard_site): a ':' before a line number goes on the value. */
        while (p[n] == ':' && memchr(p, '=', n) != NULL) {
            size_t digits = strspn(p + n + 1, "0123456789");
            char after = p[n + 1 + digits];
            if (digits == 0 || (after != '\0' && after != ':' && after != ',' && after != ' ' &&
                                after != '\t' && after != '\n'))
                break;
            n += 1 + digits;
        }
        /* Leading and trailing blanks are not part of a key or value. */
        const char *s = p;
        size_t m = n;
        while (m > 0 && (*s == ' ' || *s == '\t')) {
            s++;
            m--;
        }
        while (m > 0 && (s[m - 1] == ' ' || s[m - 1] == '\t' || s[m - 1] == '\n'))
            m--;
        if (m > 0 && !apply_entry(s, m, source, &w))
            bad++;
        p += n;
        if (*p != '\0')
            p++;
    }
    if (w.held != 0) {
        mt_buf_t b;
        mt_warning_begin(&b);
        mt_buf_fmt(&b, "%s: %" PRIu64 "%s ignored (the warnings above name the first)", source,
                   (uint64_t)w.held,
                   w.held == 1 ? " more bad entry was" : " more bad entries were");
        mt_warning_end(&b);
    }
    return bad;
}

static void set_defaults(void)
{
    for (size_t i = 0; i < OPTION_COUNT; i++)
        (void)set_value(&options[i], options[i].def, strlen(options[i].def));
}

static pthread_once_t options_once = PTHREAD_ONCE_INIT;

/* Asked to make allocations fail, and told wrong (fail_nth=-1, fail_fn=): running the
 * program without the failures it asked for would pass its error paths untested, so it
 * does not run. (From memtrack_set_option, the call returns -1 instead.) */
static void stop_for_bad_fail_option(void)
{
    mt_buf_t b;
    mt_buf_init(&b, STDERR_FILENO);
    mt_buf_line(&b);
    mt_buf_str(&b, "error: MEMTRACK_OPTIONS: a fail_ option is wrong (above), and the program "
                   "does not run without the failures it asked for: exit status 2\n");
    mt_buf_flush(&b);
    mt_exit_now(2);
}

static void options_read(void)
{
    set_defaults();
    mt_options_parse(getenv("MEMTRACK_OPTIONS"), "MEMTRACK_OPTIONS");
    if (fail_option_bad)
        stop_for_bad_fail_option();
    if (mt_opt.help)
        mt_options_print_help();
}

void mt_options_init(void)
{
    pthread_once(&options_once, options_read);
}

/* One cell of the table, padded to width (and one space), as printf's "%-*s " does. */
static void cell(mt_buf_t *b, const char *text, size_t width)
{
    size_t n = strlen(text);
    mt_buf_str(b, text);
    for (; n < width; n++)
        mt_buf_char(b, ' ');
    mt_buf_char(b, ' ');
}

static void table_row(mt_buf_t *b, bool prefixed, size_t name_width, const char *name,
                      const char *type, const char *def, const char *help)
{
    if (prefixed)
        mt_buf_line(b);
    mt_buf_str(b, "  ");
    cell(b, name, name_width);
    cell(b, type, 7);
    cell(b, def, 8);
    mt_buf_str(b, help);
    mt_buf_char(b, '\n');
}

const char *mt_option_type_word(mt_option_type_t type)
{
    static const char *const type_words[] = {"0|1", "number", "bytes", "count", "text"};
    return (size_t)type < sizeof type_words / sizeof type_words[0] ? type_words[type] : "text";
}

void mt_options_write_table(mt_buf_t *b, bool prefixed)
{
    size_t width = strlen("OPTION"); /* the longest name's: every column lines up */
    for (size_t i = 0; i < OPTION_COUNT; i++)
        width = strlen(options[i].name) > width ? strlen(options[i].name) : width;
    table_row(b, prefixed, width, "OPTION", "TYPE", "DEFAULT", "MEANING");
    for (size_t i = 0; i < OPTION_COUNT; i++) {
        const option_desc_t *o = &options[i];
        table_row(b, prefixed, width, o->name, mt_option_type_word(o->type),
                  o->def[0] != '\0' ? o->def : "-", o->help);
    }
}

void mt_options_print_help(void)
{
    mt_buf_t b;
    mt_buf_init(&b, mt_warning_fd != NULL ? mt_warning_fd(STDERR_FILENO) : STDERR_FILENO);
    mt_buf_line(&b);
    mt_buf_str(&b, "options (MEMTRACK_OPTIONS=key=value:key=value):\n");
    mt_options_write_table(&b, true);
    mt_buf_flush(&b);
}

MT_EXPORT int memtrack_set_option(const char *key, const char *value)
{
    MT_ENTRY();
    mt_options_init();
    if (key == NULL || value == NULL)
        return -1;
    size_t klen = strlen(key), vlen = strlen(value);
    char entry[MT_OPTION_STRING_MAX + 64];
    if (klen + vlen + 2 > sizeof entry) {
        warn(NULL, "memtrack_set_option", "value too long for", key, klen, "; ignored", NULL);
        return -1;
    }
    memcpy(entry, key, klen);
    entry[klen] = '=';
    memcpy(entry + klen + 1, value, vlen + 1);
    return apply_entry(entry, klen + vlen + 1, "memtrack_set_option", NULL) ? 0 : -1;
}

MT_EXPORT int memtrack_set_options(const char *text)
{
    MT_ENTRY();
    mt_options_init();
    return mt_options_parse(text, "memtrack_set_options");
}

/* ---- the options in effect, for the report ------------------------------------------- */

size_t mt_option_count(void)
{
    return OPTION_COUNT;
}

const char *mt_option_name(size_t i)
{
    return i < OPTION_COUNT ? options[i].name : NULL;
}

mt_option_type_t mt_option_type(size_t i)
{
    return i < OPTION_COUNT ? options[i].type : MT_OPT_STRING;
}

const char *mt_option_default(size_t i)
{
    return i < OPTION_COUNT ? options[i].def : NULL;
}

const char *mt_option_help(size_t i)
{
    return i < OPTION_COUNT ? options[i].help : NULL;
}

bool mt_option_fixed_at_first_block(size_t i)
{
    return i < OPTION_COUNT && option_is_frozen_kind(&options[i]);
}

void mt_buf_option_value(mt_buf_t *b, size_t i)
{
    if (i < OPTION_COUNT)
        buf_value(b, &options[i]);
}
