/* symbolize.c - a return address turned into function, source file and line, for the
 * sites known only by the caller's address (operator new and delete, the process's free
 * and realloc called by code built without the header, preloaded programs).
 *
 * The program's debug information is read with elfutils' libdwfl, opened with dlopen()
 * the first time a site is printed: a tracked program pays nothing for it at start, a
 * program linked with libmemtrack.a needs no extra library, and without libdw (or without
 * debug information) a site still gets its function and module from the symbol tables.
 * Results are cached by address; strings live until the process ends.
 *
 * The tracker must never track itself: libdw allocates with malloc, which for the
 * process is the C library's (api/override.c), and frees with free, which looks the pointer
 * up in the table. mt_busy is raised around all of it, so those frees take no blocking
 * lock (a symbol may be printed while a shard lock is held, by memtrack_check()).
 * One lock, symbols.lock, serializes libdw (not thread-safe) and the cache; it is the
 * last in the lock order and nothing else is locked under it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#include "base/lock.h"
#include "base/memory.h"
#include "base/options.h"
#include "base/program_symbols.h"
#include "base/symbolize.h"

#include "base/dwarf_scopes.h"
#include "base/elf_symbols.h"
#include "base/libdw.h"
#include "base/symbol_cache.h"
#include "base/symbol_names.h"

/* How far an address has been described: each step costs more than the one before, and
 * is taken only when something printed needs it. */
typedef enum known {
    KNOWN_MODULE, /* where: the loader's answer (dladdr), no file opened */
    KNOWN_SYMBOL, /* sym: its symbol, from the symbol tables */
    KNOWN_LINES,  /* sym: file, line and functions too, from the debug information */
} known_t;

typedef struct cache_entry {
    uintptr_t pc; /* 0: empty */
    known_t known;
    bool in_module; /* dladdr found pc in a module */
    Dl_info where;
    mt_symbol_t sym;
} cache_entry_t;

static struct {
    pthread_mutex_t lock;
    cache_entry_t *cache;
    size_t cache_size, cache_used; /* cache_size is a power of two */
} symbols = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* ---- resolving one address ------------------------------------------------------------- */

#ifdef MT_HAVE_LIBDW
/* A source path as the compiler was given it (what __FILE__ says): relative to the unit's
 * compilation directory when inside it, else absolute (a system header). Kept. */
static const char *keep_source_path(Dwarf_Die *cu, const char *file)
{
    Dwarf_Attribute attr;
    const char *dir =
        mt_dw.dwarf_attr(cu, DW_AT_comp_dir, &attr) != NULL ? mt_dw.dwarf_formstring(&attr) : NULL;
    size_t dn = dir != NULL ? strlen(dir) : 0;
    if (dn > 0 && strncmp(file, dir, dn) == 0 && file[dn] == '/')
        file += dn + 1;
    while (file[0] == '.' && file[1] == '/') /* clang's name for an #include "x.cpp" */
        file += 2;
    return mt_keep_string(file, strlen(file));
}

/* The unit's compilation directory, which its relative file names are relative to: kept
 * once for all the units that share it (a program has few). NULL when not recorded. */
static const char *comp_dir_locked(Dwarf_Die *cu)
{
    static const char *dirs[64];
    static unsigned ndirs;
    Dwarf_Attribute attr;
    const char *dir =
        mt_dw.dwarf_attr(cu, DW_AT_comp_dir, &attr) != NULL ? mt_dw.dwarf_formstring(&attr) : NULL;
    if (dir == NULL || dir[0] != '/')
        return NULL;
    for (unsigned i = 0; i < ndirs; i++)
        if (strcmp(dirs[i], dir) == 0)
            return dirs[i];
    const char *kept = mt_keep_string(dir, strlen(dir));
    if (kept != NULL && ndirs < sizeof dirs / sizeof dirs[0])
        dirs[ndirs++] = kept;
    return kept;
}

/* File and line of addr, from the line table: the innermost inlined code's own line. */
static void dwarf_line_locked(Dwarf_Die *cu, Dwarf_Addr addr, mt_symbol_t *out)
{
    Dwarf_Line *line = mt_dw.dwarf_getsrc_die(cu, addr);
    int lineno = 0;
    if (line == NULL || mt_dw.dwarf_lineno(line, &lineno) != 0 || lineno <= 0)
        return;
    const char *file = mt_dw.dwarf_linesrc(line, NULL, NULL);
    if (file == NULL)
        return;
    out->file = keep_source_path(cu, file);
    out->line = lineno;
}

/* Where an inlined copy was inlined: the call's file and line (DW_AT_call_file indexes the
 * unit's file table). */
static void call_site_locked(Dwarf_Die *cu, Dwarf_Die *copy, mt_inline_t *out)
{
    Dwarf_Attribute attr;
    Dwarf_Word index = 0, line = 0;
    Dwarf_Files *files = NULL;
    size_t nfiles = 0;
    if (mt_dw.dwarf_formudata(mt_dw.dwarf_attr(copy, DW_AT_call_file, &attr), &index) == 0 &&
        mt_dw.dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && index < nfiles) {
        const char *file = mt_dw.dwarf_filesrc(files, (size_t)index, NULL, NULL);
        if (file != NULL)
            out->file = keep_source_path(cu, file);
    }
    if (mt_dw.dwarf_formudata(mt_dw.dwarf_attr(copy, DW_AT_call_line, &attr), &line) == 0 &&
        line <= (Dwarf_Word)INT_MAX)
        out->line = (int)line;
    if (out->file == NULL)
        out->line = 0;
}

/* The span of an inlined copy's code (its ranges may be several: the lowest start to the
 * highest end), moved by bias into the process. */
static void copy_span_locked(Dwarf_Die *copy, Dwarf_Addr bias, mt_symbol_t *out)
{
    Dwarf_Addr base = 0, start = 0, end = 0, low = 0, high = 0;
    ptrdiff_t at = 0;
    while ((at = mt_dw.dwarf_ranges(copy, at, &base, &start, &end)) > 0) {
        if (high == 0 || start < low)
            low = start;
        if (end > high)
            high = end;
    }
    if (high > low) {
        out->code_start = (uintptr_t)(low + bias);
        out->code_size = (size_t)(high - low);
    }
}

/* The functions around addr: the innermost (an inlined one when addr is in inlined code,
 * to match the line, which is the inlined code's) in out->func, and the functions its code
 * was inlined into, each at the line of the inlined call, in out->inlined. */
static void dwarf_functions_locked(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Addr bias,
                                   mt_symbol_t *out)
{
    /* Function scopes, innermost first: a chain of inlined copies ending at the real
     * function. DWARF may nest deeper than is kept: the innermost and the real one stay. */
    Dwarf_Die chain[MT_DWARF_DEEPEST];
    int depth = mt_dwarf_functions(cu, addr, chain, MT_DWARF_DEEPEST);
    if (depth > 0) {
        out->func = mt_dw_scope_function_locked(&chain[0]);
        if (mt_dw.dwarf_tag(&chain[0]) == DW_TAG_inlined_subroutine)
            copy_span_locked(&chain[0], bias, out);
    }
    int outer = depth - 1 < MT_INLINE_MAX ? depth - 1 : MT_INLINE_MAX;
    mt_inline_t *kept = outer > 0 ? mt_mem_calloc((size_t)outer, sizeof *kept) : NULL;
    for (int k = 0; kept != NULL && k < outer; k++) {
        /* the last kept is the real function, called from the outermost copy's call */
        int level = k == outer - 1 ? depth - 1 : k + 1;
        call_site_locked(cu, &chain[level - 1], &kept[k]);
        kept[k].func = mt_dw_scope_function_locked(&chain[level]);
    }
    if (kept != NULL) {
        out->inlined = kept;
        out->ninlined = (unsigned)outer;
    }
}

#endif

/* The symbol around pc and its module: from the module's full symbol table when libdw reads
 * it, else from the dynamic one (info: dladdr's answer, found). No line table is read. */
static void resolve_symbol_locked(uintptr_t pc, bool found, const Dl_info *where, mt_symbol_t *out)
{
    Dl_info info = *where;
    memset(out, 0, sizeof *out);
    if (found && info.dli_fname != NULL && info.dli_fname[0] != '\0')
        out->module =
            mt_keep_string(mt_base_name(info.dli_fname), strlen(mt_base_name(info.dli_fname)));
    const char *symbol = NULL;
#ifdef MT_HAVE_LIBDW
    /* pc is a return address: the call is the instruction before it. */
    Dwarf_Addr addr = (Dwarf_Addr)pc - 1;
    Dwfl_Module *mod = mt_opt.symbolize ? mt_dw_module_locked(addr) : NULL;

    /* The symbol around pc: from the full symbol table when libdw reads it (it knows
     * static functions), else from the dynamic one (dladdr). */
    if (mod != NULL) {
        GElf_Off off = 0;
        GElf_Sym sym;
        symbol = mt_module_symbol(mod, addr, &off, &sym);
        out->offset = (uintptr_t)off + 1; /* from the return address, as dladdr's */
        out->size = symbol != NULL ? (size_t)sym.st_size : 0;
    }
#endif
    if (symbol == NULL && found && info.dli_sname != NULL) {
        symbol = info.dli_sname;
        out->offset = pc - (uintptr_t)info.dli_saddr;
#ifdef __GLIBC__ /* glibc's dladdr1 (not musl's): the symbol's size too */
        const ElfW(Sym) *entry = NULL;
        Dl_info again;
        if (dladdr1((void *)pc, &again, (void **)&entry, RTLD_DL_SYMENT) != 0 && entry != NULL)
            out->size = (size_t)entry->st_size;
#endif
    }
    /* The program's own functions, which the dynamic symbol table does not name, where
     * libdw is not to be had (the other targets' programs under qemu-user). */
    if (symbol == NULL && mt_in_program_image(pc))
        symbol = mt_program_function(pc, &out->offset, &out->size);
    out->symbol = mt_keep_function(symbol);
    if (out->symbol == NULL)
        out->offset = 0;
    if (out->symbol != NULL && out->size != 0) {
        out->code_start = pc - out->offset;
        out->code_size = out->size;
    }
    out->func = out->symbol;
}

/* File, line and the functions (inlined ones too) from the debug information, over what
 * resolve_symbol_locked found for pc. */
static void resolve_lines_locked(uintptr_t pc, mt_symbol_t *out)
{
#ifdef MT_HAVE_LIBDW
    Dwarf_Addr addr = (Dwarf_Addr)pc - 1, bias = 0;
    Dwfl_Module *mod = mt_opt.symbolize ? mt_dw_module_locked(addr) : NULL;
    Dwarf_Die *cu = mod != NULL ? mt_dwarf_unit_at(mod, addr, &bias) : NULL;
    if (cu != NULL) {
        out->func = NULL;
        out->dir = comp_dir_locked(cu);
        dwarf_line_locked(cu, addr - bias, out);
        dwarf_functions_locked(cu, addr - bias, bias, out);
        if (out->func == NULL)
            out->func = out->symbol;
    }
#else
    (void)pc;
    (void)out;
#endif
}

/* ---- the cache --------------------------------------------------------------------------- */

static size_t slot_of(uintptr_t pc, size_t size)
{
    uint64_t h = (uint64_t)pc * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h >> 32) & (size - 1);
}

static cache_entry_t *cache_find_locked(uintptr_t pc)
{
    if (symbols.cache == NULL)
        return NULL;
    for (size_t i = slot_of(pc, symbols.cache_size);; i = (i + 1) & (symbols.cache_size - 1)) {
        if (symbols.cache[i].pc == pc)
            return &symbols.cache[i];
        if (symbols.cache[i].pc == 0)
            return NULL;
    }
}

/* The entry of pc, made (known: KNOWN_MODULE) when there is none; NULL when the cache
 * cannot grow (the caller then describes pc in an entry of its own, not kept). */
static cache_entry_t *cache_entry_locked(uintptr_t pc)
{
    cache_entry_t *e = cache_find_locked(pc);
    if (e != NULL)
        return e;
    if (symbols.cache == NULL || (symbols.cache_used + 1) * 4 > symbols.cache_size * 3) {
        size_t size = symbols.cache_size != 0 ? symbols.cache_size * 2 : 256;
        cache_entry_t *fresh = mt_mem_calloc(size, sizeof *fresh);
        if (fresh == NULL)
            return NULL;
        for (size_t i = 0; i < symbols.cache_size; i++) {
            if (symbols.cache[i].pc == 0)
                continue;
            size_t j = slot_of(symbols.cache[i].pc, size);
            while (fresh[j].pc != 0)
                j = (j + 1) & (size - 1);
            fresh[j] = symbols.cache[i];
        }
        mt_mem_free(symbols.cache);
        symbols.cache = fresh;
        symbols.cache_size = size;
    }
    size_t i = slot_of(pc, symbols.cache_size);
    while (symbols.cache[i].pc != 0)
        i = (i + 1) & (symbols.cache_size - 1);
    e = &symbols.cache[i];
    symbols.cache_used++;
    e->pc = pc;
    e->in_module = dladdr((void *)pc, &e->where) != 0;
    e->known = KNOWN_MODULE;
    return e;
}

/* Takes e (pc's) as far as want: from the symbol cache of earlier processes when it has as
 * much (kept: the cache is for what option symbolize finds), else from the debug
 * information and the symbol tables, noted for that cache. */
static void describe_locked(cache_entry_t *e, known_t want, bool kept)
{
    _Static_assert(KNOWN_SYMBOL == MT_CACHED_SYMBOL && KNOWN_LINES == MT_CACHED_LINES,
                   "the symbol cache's levels are the symbolizer's");
    const char *path = e->where.dli_fname;
    uintptr_t base = (uintptr_t)e->where.dli_fbase;
    if (kept && e->known < want && e->in_module) {
        mt_symbol_t cached;
        int level = mt_symbol_cache_find(path, base, e->pc, &cached);
        if (level > (int)e->known) {
            e->sym = cached;
            e->known = (known_t)level;
        }
    }
    known_t before = e->known;
    if (e->known < KNOWN_SYMBOL && want >= KNOWN_SYMBOL) {
        resolve_symbol_locked(e->pc, e->in_module, &e->where, &e->sym);
        e->known = KNOWN_SYMBOL;
    }
    if (e->known < KNOWN_LINES && want >= KNOWN_LINES) {
        resolve_lines_locked(e->pc, &e->sym);
        e->known = KNOWN_LINES;
    }
    if (kept && e->known > before && e->in_module)
        mt_symbol_cache_note(path, base, e->pc, (int)e->known, &e->sym);
}

/* ---- a stack of our own ------------------------------------------------------------------ */

/* Reading a line table with libdw takes about 150 KiB of stack, and the thread that asks may
 * have much less: job threads of 32-128 KiB are common, and an error found in one must be
 * told, not overflow it. So every reading of the debug information (here, and what a
 * function's code is, base/symbolize_code.c) runs on a stack of the tracker's own, mapped at
 * the first lookup behind a guard page (pages never touched cost nothing), switched to with
 * swapcontext. symbols.lock serializes lookups, so one stack serves every thread. (Not in
 * sanitizer builds, whose run-time follows a thread's stack itself.) */
#if defined(MT_HAVE_LIBDW) && !defined(MT_SANITIZER_ALLOCATOR)
#include <ucontext.h>
#define DEEP_STACK_SIZE (1024u * 1024u)
#define DEEP_STACK_GUARD 4096u

static struct {
    unsigned char *stack; /* its guard page first: a stack grows down */
    bool failed;          /* it could not be had: look up on the caller's stack */
    ucontext_t caller, lookup;
    void (*fn)(void *);
    void *arg;
} deep;

/* The C library's swapcontext: where libmemtrack gives the process its own (api/stacks.c,
 * which notes the stacks the program switches to), the tracker's switch to its own stack is
 * not the program's, and a lower layer may not call up (as base/os_memory.h). */
static int switch_context(ucontext_t *from, const ucontext_t *to)
{
#ifdef MT_STACKS_INTERPOSED
    typedef int swapcontext_fn(ucontext_t *, const ucontext_t *);
    static swapcontext_fn *libc_swapcontext;
    if (libc_swapcontext == NULL) { /* (under symbols.lock) */
        mt_busy++; /* dlsym may allocate: the busy flag sends that to the C library */
        libc_swapcontext = (swapcontext_fn *)dlsym(RTLD_NEXT, "swapcontext");
        mt_busy--;
    }
    if (libc_swapcontext == NULL)
        return -1;
    return libc_swapcontext(from, to);
#else
    return swapcontext(from, to);
#endif
}

static void run_on_deep_stack(void)
{
    deep.fn(deep.arg); /* returns to deep.caller (uc_link) */
}

void mt_symbols_run_deep_locked(void (*fn)(void *), void *arg)
{
    if (deep.stack == NULL && !deep.failed) {
        deep.stack = mt_pages_alloc(DEEP_STACK_GUARD + DEEP_STACK_SIZE);
        deep.failed = deep.stack == NULL;
        if (deep.stack != NULL)
            mt_pages_protect_none(deep.stack, DEEP_STACK_GUARD);
    }
    if (deep.failed || getcontext(&deep.lookup) != 0) {
        fn(arg);
        return;
    }
    deep.lookup.uc_stack.ss_sp = deep.stack + DEEP_STACK_GUARD;
    deep.lookup.uc_stack.ss_size = DEEP_STACK_SIZE;
    deep.lookup.uc_link = &deep.caller;
    makecontext(&deep.lookup, run_on_deep_stack, 0);
    deep.fn = fn;
    deep.arg = arg;
    if (switch_context(&deep.caller, &deep.lookup) != 0)
        fn(arg);
}
#else
void mt_symbols_run_deep_locked(void (*fn)(void *), void *arg)
{
    fn(arg);
}
#endif

typedef struct describe_call {
    cache_entry_t *e;
    known_t want;
    bool kept;
} describe_call_t;

static void describe_call(void *arg)
{
    describe_call_t *c = arg;
    describe_locked(c->e, c->want, c->kept);
}

/* describe_locked, on the tracker's own stack when it has to read anything. */
static void describe_deep_locked(cache_entry_t *e, known_t want, bool kept)
{
    describe_call_t c = {e, want, kept};
    if (e->known >= want)
        describe_locked(e, want, kept);
    else
        mt_symbols_run_deep_locked(describe_call, &c);
}

/* Describes pc as far as want, from the cache when it has as much: an address first named
 * by its module or its symbol alone is taken further. With option symbolize=0, the symbol
 * tables only, and not kept (the option may change). */
static bool symbolize(void *pc, mt_symbol_t *out, known_t want)
{
    memset(out, 0, sizeof *out);
    if (pc == NULL)
        return false;
    mt_options_init();
    mt_busy++;
    pthread_mutex_lock(&symbols.lock);
    cache_entry_t own, *e = mt_opt.symbolize ? cache_entry_locked((uintptr_t)pc) : NULL;
    if (e == NULL) {
        memset(&own, 0, sizeof own);
        own.pc = (uintptr_t)pc;
        own.in_module = dladdr(pc, &own.where) != 0;
        e = &own;
    }
    describe_deep_locked(e, mt_opt.symbolize ? want : KNOWN_SYMBOL, mt_opt.symbolize && e != &own);
    *out = e->sym;
    pthread_mutex_unlock(&symbols.lock);
    mt_busy--;
    return out->symbol != NULL || out->file != NULL;
}

bool mt_symbolize(void *pc, mt_symbol_t *out)
{
    return symbolize(pc, out, KNOWN_LINES);
}

bool mt_symbolize_symbol(void *pc, mt_symbol_t *out)
{
    return symbolize(pc, out, KNOWN_SYMBOL);
}

bool mt_symbol_module(void *pc, mt_module_t *out)
{
    memset(out, 0, sizeof *out);
    if (pc == NULL)
        return false;
    mt_busy++;
    pthread_mutex_lock(&symbols.lock);
    Dl_info own;
    cache_entry_t *e = cache_entry_locked((uintptr_t)pc);
    bool found = e != NULL ? e->in_module : dladdr(pc, &own) != 0;
    const Dl_info *where = e != NULL ? &e->where : &own;
    if (found) {
        out->path = where->dli_fname;
        out->base = (uintptr_t)where->dli_fbase;
    }
    pthread_mutex_unlock(&symbols.lock);
    mt_busy--;
    return found;
}

/* The module of pc as the cache of symbols knows it (dladdr's, remembered); false when pc is
 * in none, or options symbolize and symbol_cache keep nothing. */
static bool kept_module_locked(void *pc, const char **path, uintptr_t *base)
{
    cache_entry_t *e = mt_opt.symbolize ? cache_entry_locked((uintptr_t)pc) : NULL;
    if (e == NULL || !e->in_module)
        return false;
    *path = e->where.dli_fname;
    *base = (uintptr_t)e->where.dli_fbase;
    return true;
}

int mt_symbols_wrapper_kept(void *pc, unsigned level, bool making)
{
    const char *path;
    uintptr_t base;
    int answer = -1;
    mt_options_init();
    mt_busy++;
    pthread_mutex_lock(&symbols.lock);
    if (kept_module_locked(pc, &path, &base))
        answer = mt_symbol_cache_find_wrapper(path, base, (uintptr_t)pc, level, making);
    pthread_mutex_unlock(&symbols.lock);
    mt_busy--;
    return answer;
}

void mt_symbols_keep_wrapper(void *pc, unsigned level, bool making, bool answer)
{
    const char *path;
    uintptr_t base;
    mt_options_init();
    mt_busy++;
    pthread_mutex_lock(&symbols.lock);
    if (kept_module_locked(pc, &path, &base))
        mt_symbol_cache_note_wrapper(path, base, (uintptr_t)pc, level, making, answer);
    pthread_mutex_unlock(&symbols.lock);
    mt_busy--;
}

void mt_symbols_save(void)
{
    mt_busy++;
    pthread_mutex_lock(&symbols.lock);
    mt_symbol_cache_save();
    pthread_mutex_unlock(&symbols.lock);
    mt_busy--;
}

bool mt_symbolize_cached(void *pc, mt_symbol_t *out)
{
    memset(out, 0, sizeof *out);
    if (pc == NULL || mt_mutex_trylock(&symbols.lock) != 0)
        return false;
    cache_entry_t *e = cache_find_locked((uintptr_t)pc);
    bool found = e != NULL && e->known >= KNOWN_SYMBOL;
    if (found)
        *out = e->sym;
    mt_mutex_unlock(&symbols.lock);
    return found && (out->symbol != NULL || out->file != NULL);
}

void mt_symbols_lock_all(void)
{
    pthread_mutex_lock(&symbols.lock);
}

void mt_symbols_unlock_all(void)
{
    pthread_mutex_unlock(&symbols.lock);
}
