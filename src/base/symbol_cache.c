/* symbol_cache.c - symbolized addresses kept across processes, by module build id.
 *
 * A test suite runs the same programs hundreds of times, and each leaking process named
 * the same frames again: opening libdw and the loader's work for it, reading the program's
 * debug information, for a report of a few lines. So each address described from the
 * debug information (or the symbol tables) is kept in a file named by its module's build
 * id, at its offset in the module: the same build id is the same code, so what was found
 * once holds for every process that runs it, and the next one reads a few lines instead.
 * Modules without a build id are not kept.
 *
 * Where: option symbol_cache, a directory ("auto": $XDG_CACHE_HOME/memtrack or
 * ~/.cache/memtrack, made 0700 when missing; empty: no cache). One file per build id,
 * lines appended in one write each time a report found new addresses (a line is whole or
 * ignored; two processes may append the same address: the first read is kept). A line is
 * "M2", the address's offset, the level (1: symbol, 2: lines too) and the symbol's fields
 * (the compilation directory with the file: SARIF resolves a relative file by it),
 * strings escaped (\\, \t, \n; \N for none); or "W1", the offset, a function number, 0 or 1
 * for a place that makes or releases a block, and the allocation-wrapper rule's answer for
 * that function (records/wrapper.c: it reads the debug information too). Its version
 * changes with what the symbolizer finds. Files not written to for 30 days are removed when a new
 * one is made.
 *
 * A guest in someone else's process: files are opened without following a symbolic link
 * or waiting on a FIFO, regular files only, no larger than FILE_MAX, no write past the
 * process's file size limit (which would raise SIGXFSZ), no descriptor kept.
 */
#define _GNU_SOURCE
#include "base/symbol_cache.h"

#ifdef MT_HAVE_LIBDW /* elsewhere symbols come from dladdr alone: nothing worth keeping */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/build_id.h"
#include "base/memory.h"
#include "base/options.h"

#define FILE_MAX (16u << 20) /* bytes of one module's file read or grown */
#define MODULES_MAX 64u      /* modules followed; more are not kept */
#define ID_MAX 64u           /* bytes of a build id */
#define PRUNE_AGE (30 * 24 * 3600)
#define PRUNE_SCAN 4096u /* directory entries looked at for old files */
#define VERSION "M2"
#define WRAPPER_VERSION "W1" /* a line of the wrapper rule's answer */

typedef struct entry {
    uintptr_t off; /* in the module; 0: empty (offset 0 is never a return address) */
    int level;     /* 0: not described (only the wrapper rule's answers are known) */
    mt_symbol_t sym;
    uint64_t wrappers; /* the wrapper rule's answers: wrapper_bit's known and answer bits */
} entry_t;

/* The bit saying the rule's answer for function number level of an address, for a place
 * that makes (or releases) a block, is known; the next bit is the answer. */
static uint64_t wrapper_bit(unsigned level, bool making)
{
    return level <= MT_INLINE_MAX ? (uint64_t)1 << (4 * level + 2 * making) : 0;
}

typedef struct cached_module {
    uintptr_t base;          /* dladdr's; 0: empty slot */
    char id[2 * ID_MAX + 1]; /* hex; "" when the module has none (nothing kept) */
    bool loaded;
    entry_t *entries; /* open addressing by off; size a power of two */
    size_t size, used;
    char *pending; /* lines to append */
    size_t pending_len, pending_room;
    bool overflow; /* a put found no room: the line being made is dropped */
} cached_module_t;

static struct {
    bool dir_known;
    char dir[4096]; /* "" when there is no cache */
    cached_module_t modules[MODULES_MAX];
    char path[4096 + 2 * ID_MAX + 16]; /* scratch, under the symbols' lock */
} cache;

/* ---- where ----------------------------------------------------------------------------- */

static bool join(char *out, size_t cap, const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    if (na + nb + 2 > cap)
        return false;
    memcpy(out, a, na);
    out[na] = '/';
    memcpy(out + na + 1, b, nb + 1);
    return true;
}

static void find_dir(void)
{
    cache.dir_known = true;
    cache.dir[0] = '\0';
    const char *opt = mt_opt.symbol_cache;
    if (opt == NULL || opt[0] == '\0' || strcmp(opt, "0") == 0)
        return;
    char root[sizeof cache.dir];
    if (strcmp(opt, "auto") == 0) {
        const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
        if (xdg != NULL && xdg[0] == '/' && strlen(xdg) < sizeof root)
            strcpy(root, xdg);
        else if (home == NULL || home[0] != '/' || !join(root, sizeof root, home, ".cache"))
            return;
        (void)mkdir(root, 0700);
        if (!join(cache.dir, sizeof cache.dir, root, "memtrack"))
            cache.dir[0] = '\0';
    } else if (opt[0] == '/' && strlen(opt) < sizeof cache.dir) {
        strcpy(cache.dir, opt);
    }
    if (cache.dir[0] != '\0')
        (void)mkdir(cache.dir, 0700);
}

/* ---- reading ---------------------------------------------------------------------------- */

static const char *unescaped(const char *s, size_t n)
{
    if (n == 2 && s[0] == '\\' && s[1] == 'N')
        return NULL;
    char *out = mt_mem_alloc(n + 1);
    if (out == NULL)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '\\' && i + 1 < n) {
            c = s[++i];
            c = c == 't' ? '\t' : c == 'n' ? '\n' : c;
        }
        out[k++] = c;
    }
    out[k] = '\0';
    return out;
}

/* The next tab-separated field of [*p, end) in [*field, *field + *n); false at the line's
 * end. The line starts with its first field; the others follow a tab. */
static bool next_raw(const char **p, const char *end, const char **field, size_t *n)
{
    if (*p > end)
        return false;
    *field = *p;
    while (*p < end && **p != '\t')
        (*p)++;
    *n = (size_t)(*p - *field);
    (*p)++; /* past the tab, or past the end: the last field taken */
    return true;
}

static bool next_string(const char **p, const char *end, const char **out)
{
    const char *f;
    size_t n;
    if (!next_raw(p, end, &f, &n))
        return false;
    *out = unescaped(f, n);
    return true;
}

/* A number in base 10 or 16 that fills the next field. */
static bool next_number(const char **p, const char *end, unsigned base, uint64_t *out)
{
    const char *f;
    size_t n;
    if (!next_raw(p, end, &f, &n) || n == 0 || n > 16)
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned d = f[i] >= '0' && f[i] <= '9'   ? (unsigned)(f[i] - '0')
                     : f[i] >= 'a' && f[i] <= 'f' ? (unsigned)(f[i] - 'a' + 10)
                                                  : 16;
        if (d >= base)
            return false;
        v = v * base + d;
    }
    *out = v;
    return true;
}

static size_t slot_of(uintptr_t off, size_t size)
{
    uint64_t h = (uint64_t)off * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h >> 32) & (size - 1);
}

static entry_t *find_entry(cached_module_t *m, uintptr_t off)
{
    if (m->entries == NULL)
        return NULL;
    for (size_t i = slot_of(off, m->size);; i = (i + 1) & (m->size - 1)) {
        if (m->entries[i].off == off)
            return &m->entries[i];
        if (m->entries[i].off == 0)
            return NULL;
    }
}

static entry_t *add_entry(cached_module_t *m, uintptr_t off)
{
    if (m->entries == NULL || (m->used + 1) * 4 > m->size * 3) {
        size_t size = m->size != 0 ? 2 * m->size : 64;
        entry_t *fresh = mt_mem_calloc(size, sizeof *fresh);
        if (fresh == NULL)
            return NULL;
        for (size_t i = 0; i < m->size; i++) {
            if (m->entries[i].off == 0)
                continue;
            size_t j = slot_of(m->entries[i].off, size);
            while (fresh[j].off != 0)
                j = (j + 1) & (size - 1);
            fresh[j] = m->entries[i];
        }
        mt_mem_free(m->entries);
        m->entries = fresh;
        m->size = size;
    }
    size_t i = slot_of(off, m->size);
    while (m->entries[i].off != 0)
        i = (i + 1) & (m->size - 1);
    m->used++;
    m->entries[i].off = off;
    return &m->entries[i];
}

/* A wrapper rule's answer: "W1", the address's offset, the level, making (0 or 1), the
 * answer (0 or 1). */
static void parse_wrapper_line(cached_module_t *m, const char *p, const char *end)
{
    uint64_t off, level, making, answer;
    if (!next_number(&p, end, 16, &off) || !next_number(&p, end, 10, &level) ||
        !next_number(&p, end, 10, &making) || !next_number(&p, end, 10, &answer) || p <= end ||
        off == 0 || level > MT_INLINE_MAX || making > 1 || answer > 1)
        return;
    entry_t *e = find_entry(m, (uintptr_t)off);
    if (e == NULL)
        e = add_entry(m, (uintptr_t)off);
    uint64_t bit = wrapper_bit((unsigned)level, making != 0);
    if (e != NULL && !(e->wrappers & bit))
        e->wrappers |= bit | (answer ? bit << 1 : 0);
}

/* One line [p, end) into m; a line that does not read whole is skipped. */
static void parse_line(cached_module_t *m, const char *p, const char *end, const char *module)
{
    const char *tag = p;
    size_t tn;
    uint64_t off, level, line, offset, size, cstart = 0, csize, n;
    if (next_raw(&p, end, &tag, &tn) && tn == sizeof WRAPPER_VERSION - 1 &&
        memcmp(tag, WRAPPER_VERSION, tn) == 0) {
        parse_wrapper_line(m, p, end);
        return;
    }
    p = tag;
    if (!next_raw(&p, end, &tag, &tn) || tn != sizeof VERSION - 1 ||
        memcmp(tag, VERSION, tn) != 0 || !next_number(&p, end, 16, &off) ||
        !next_number(&p, end, 10, &level) || !next_number(&p, end, 10, &line) ||
        !next_number(&p, end, 16, &offset) || !next_number(&p, end, 10, &size))
        return;
    const char *f;
    size_t fn;
    if (!next_raw(&p, end, &f, &fn))
        return;
    bool no_code = fn == 1 && f[0] == '-';
    if (!no_code) {
        p = f; /* read it again as a number */
        if (!next_number(&p, end, 16, &cstart))
            return;
    }
    if (!next_number(&p, end, 10, &csize) || !next_number(&p, end, 10, &n) || off == 0 ||
        (level != MT_CACHED_SYMBOL && level != MT_CACHED_LINES) || n > MT_INLINE_MAX ||
        line > INT32_MAX)
        return;
    entry_t *e = find_entry(m, (uintptr_t)off);
    if (e != NULL && e->level >= (int)level)
        return; /* the first line for an address is kept, unless a later one knows more */
    mt_symbol_t sym;
    memset(&sym, 0, sizeof sym);
    mt_inline_t *inl = n > 0 ? mt_mem_calloc((size_t)n, sizeof *inl) : NULL;
    bool whole = (n == 0 || inl != NULL) && next_string(&p, end, &sym.file) &&
                 next_string(&p, end, &sym.dir) && next_string(&p, end, &sym.func) &&
                 next_string(&p, end, &sym.symbol);
    for (uint64_t k = 0; whole && k < n; k++) {
        uint64_t l = 0;
        whole = next_string(&p, end, &inl[k].file) && next_number(&p, end, 10, &l) &&
                l <= INT32_MAX && next_string(&p, end, &inl[k].func);
        inl[k].line = (int)l;
    }
    if (!whole || p <= end) { /* cut short, or fields left over */
        mt_mem_free(inl);
        return;
    }
    sym.line = (int)line;
    sym.offset = (uintptr_t)offset;
    sym.size = (size_t)size;
    sym.module = module;
    sym.inlined = inl;
    sym.ninlined = (unsigned)n;
    sym.code_start = no_code ? 0 : m->base + (uintptr_t)cstart;
    sym.code_size = no_code ? 0 : (size_t)csize;
    if (e == NULL)
        e = add_entry(m, (uintptr_t)off);
    if (e != NULL) {
        e->level = (int)level;
        e->sym = sym;
    }
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

static void load(cached_module_t *m, const char *path)
{
    m->loaded = true;
    if (!join(cache.path, sizeof cache.path, cache.dir, m->id))
        return;
    int fd = open(cache.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return;
    char *text = NULL;
    size_t n = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (uint64_t)st.st_size <= FILE_MAX && (text = mt_mem_alloc((size_t)st.st_size)) != NULL) {
        while (n < (size_t)st.st_size) {
            ssize_t r = read(fd, text + n, (size_t)st.st_size - n);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
            n += (size_t)r;
        }
    }
    close(fd);
    const char *module = NULL;
    if (path != NULL && path[0] != '\0') {
        const char *b = base_name(path);
        char *copy = mt_mem_alloc(strlen(b) + 1);
        if (copy != NULL)
            module = strcpy(copy, b);
    }
    for (size_t at = 0; at < n;) { /* whole lines only: one cut short is left out */
        const char *nl = memchr(text + at, '\n', n - at);
        if (nl == NULL)
            break;
        parse_line(m, text + at, nl, module);
        at = (size_t)(nl - text) + 1;
    }
    mt_mem_free(text);
}

/* The module pc lies in, followed from its first address on; NULL when it has no build
 * id, there is no cache, or too many modules are followed. */
static cached_module_t *module_of(const char *path, uintptr_t base, uintptr_t pc)
{
    if (!cache.dir_known)
        find_dir();
    if (cache.dir[0] == '\0' || base == 0)
        return NULL;
    for (size_t k = 0; k < MODULES_MAX; k++) {
        cached_module_t *m = &cache.modules[k];
        if (m->base == base)
            return m->id[0] != '\0' ? m : NULL;
        if (m->base != 0)
            continue;
        m->base = base;
        if (!mt_build_id(pc, m->id, sizeof m->id)) {
            m->id[0] = '\0';
            return NULL;
        }
        load(m, path);
        return m;
    }
    return NULL;
}

int mt_symbol_cache_find(const char *path, uintptr_t base, uintptr_t pc, mt_symbol_t *out)
{
    cached_module_t *m = module_of(path, base, pc);
    entry_t *e = m != NULL && pc > base ? find_entry(m, pc - base) : NULL;
    if (e == NULL || e->level == 0)
        return 0;
    *out = e->sym;
    return e->level;
}

int mt_symbol_cache_find_wrapper(const char *path, uintptr_t base, uintptr_t pc, unsigned level,
                                 bool making)
{
    cached_module_t *m = module_of(path, base, pc);
    entry_t *e = m != NULL && pc > base ? find_entry(m, pc - base) : NULL;
    uint64_t bit = wrapper_bit(level, making);
    if (e == NULL || bit == 0 || !(e->wrappers & bit))
        return -1;
    return (e->wrappers & bit << 1) != 0;
}

/* ---- writing ---------------------------------------------------------------------------- */

static void put(cached_module_t *m, const char *s, size_t n)
{
    if (m->pending_len + n > m->pending_room) {
        size_t room = m->pending_room != 0 ? 2 * m->pending_room : 4096;
        while (room < m->pending_len + n)
            room *= 2;
        char *more = room <= FILE_MAX ? mt_mem_alloc(room) : NULL;
        if (more == NULL) {
            m->overflow = true;
            return;
        }
        if (m->pending_len > 0)
            memcpy(more, m->pending, m->pending_len);
        mt_mem_free(m->pending);
        m->pending = more;
        m->pending_room = room;
    }
    memcpy(m->pending + m->pending_len, s, n);
    m->pending_len += n;
}

static void put_field(cached_module_t *m, const char *s)
{
    put(m, "\t", 1);
    if (s == NULL) {
        put(m, "\\N", 2);
        return;
    }
    for (; *s != '\0'; s++) {
        const char *esc = *s == '\\' ? "\\\\" : *s == '\t' ? "\\t" : *s == '\n' ? "\\n" : NULL;
        if (esc != NULL)
            put(m, esc, 2);
        else
            put(m, s, 1);
    }
}

static void put_number(cached_module_t *m, uint64_t v, unsigned base)
{
    char digits[24];
    size_t i = sizeof digits;
    do {
        digits[--i] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v != 0);
    put(m, "\t", 1);
    put(m, digits + i, sizeof digits - i);
}

void mt_symbol_cache_note(const char *path, uintptr_t base, uintptr_t pc, int level,
                          const mt_symbol_t *sym)
{
    cached_module_t *m = module_of(path, base, pc);
    if (m == NULL || pc <= base)
        return;
    size_t before = m->pending_len;
    m->overflow = false;
    bool code = sym->code_start >= base && sym->code_size != 0;
    unsigned n = sym->ninlined <= MT_INLINE_MAX ? sym->ninlined : 0;
    put(m, VERSION, sizeof VERSION - 1);
    put_number(m, pc - base, 16);
    put_number(m, (uint64_t)level, 10);
    put_number(m, sym->line > 0 ? (uint64_t)sym->line : 0, 10);
    put_number(m, sym->offset, 16);
    put_number(m, sym->size, 10);
    if (code)
        put_number(m, sym->code_start - base, 16);
    else
        put(m, "\t-", 2);
    put_number(m, code ? sym->code_size : 0, 10);
    put_number(m, n, 10);
    put_field(m, sym->file);
    put_field(m, sym->dir);
    put_field(m, sym->func);
    put_field(m, sym->symbol);
    for (unsigned k = 0; k < n; k++) {
        put_field(m, sym->inlined[k].file);
        put_number(m, sym->inlined[k].line > 0 ? (uint64_t)sym->inlined[k].line : 0, 10);
        put_field(m, sym->inlined[k].func);
    }
    put(m, "\n", 1);
    if (m->overflow)
        m->pending_len = before; /* out of room: the line is not kept */
}

void mt_symbol_cache_note_wrapper(const char *path, uintptr_t base, uintptr_t pc, unsigned level,
                                  bool making, bool answer)
{
    cached_module_t *m = module_of(path, base, pc);
    uint64_t bit = wrapper_bit(level, making);
    if (m == NULL || pc <= base || bit == 0)
        return;
    entry_t *e = find_entry(m, pc - base);
    if (e == NULL && (e = add_entry(m, pc - base)) == NULL)
        return;
    if (e->wrappers & bit)
        return; /* kept already */
    e->wrappers |= bit | (answer ? bit << 1 : 0);
    size_t before = m->pending_len;
    m->overflow = false;
    put(m, WRAPPER_VERSION, sizeof WRAPPER_VERSION - 1);
    put_number(m, pc - base, 16);
    put_number(m, level, 10);
    put_number(m, making, 10);
    put_number(m, answer, 10);
    put(m, "\n", 1);
    if (m->overflow)
        m->pending_len = before;
}

/* Removes the cache's files nobody wrote to for PRUNE_AGE. */
static void prune(void)
{
    DIR *d = opendir(cache.dir);
    if (d == NULL)
        return;
    time_t now = time(NULL);
    struct dirent *de;
    for (unsigned seen = 0; seen < PRUNE_SCAN && (de = readdir(d)) != NULL; seen++) {
        struct stat st;
        size_t n = strlen(de->d_name);
        if (n < 16 || n > 2 * ID_MAX || strspn(de->d_name, "0123456789abcdef") != n)
            continue;
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
            now - st.st_mtime > PRUNE_AGE)
            (void)unlinkat(dirfd(d), de->d_name, 0);
    }
    closedir(d);
}

void mt_symbol_cache_save(void)
{
    int saved = errno;
    struct rlimit fsize = {RLIM_INFINITY, RLIM_INFINITY};
    (void)getrlimit(RLIMIT_FSIZE, &fsize);
    bool made = false;
    for (size_t k = 0; k < MODULES_MAX && cache.modules[k].base != 0; k++) {
        cached_module_t *m = &cache.modules[k];
        if (m->pending_len == 0 || m->id[0] == '\0' ||
            !join(cache.path, sizeof cache.path, cache.dir, m->id))
            continue;
        int fd = open(cache.path,
                      O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
        struct stat st;
        if (fd < 0)
            continue;
        uint64_t grown = 0;
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
            grown = (uint64_t)st.st_size + m->pending_len;
        if (grown != 0 && grown <= FILE_MAX &&
            (fsize.rlim_cur == RLIM_INFINITY || grown <= (uint64_t)fsize.rlim_cur)) {
            made = made || st.st_size == 0;
            (void)mt_write_all(fd, m->pending, m->pending_len);
        }
        close(fd);
        m->pending_len = 0;
    }
    if (made)
        prune();
    errno = saved;
}
#else
typedef int mt_symbol_cache_unused_t; /* a translation unit holds a declaration */
#endif
