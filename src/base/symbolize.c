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

#include "base/memory.h"
#include "base/libdw.h"
#include "base/options.h"
#include "base/program_symbols.h"
#include "base/symbol_names.h"
#include "base/symbolize.h"

typedef struct cache_entry {
    uintptr_t pc; /* 0: empty */
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
    Dwarf_Die *scopes;
    int chain[MT_DW_DEEPEST_CHAIN];
    int depth = mt_dw_scope_chain_locked(cu, addr, &scopes, chain);
    if (depth > 0) {
        out->func = mt_dw_scope_function_locked(&scopes[chain[0]]);
        if (mt_dw.dwarf_tag(&scopes[chain[0]]) == DW_TAG_inlined_subroutine)
            copy_span_locked(&scopes[chain[0]], bias, out);
    }
    int outer = depth - 1 < MT_INLINE_MAX ? depth - 1 : MT_INLINE_MAX;
    mt_inline_t *kept = outer > 0 ? mt_mem_calloc((size_t)outer, sizeof *kept) : NULL;
    for (int k = 0; kept != NULL && k < outer; k++) {
        /* the last kept is the real function, called from the outermost copy's call */
        int level = k == outer - 1 ? depth - 1 : k + 1;
        call_site_locked(cu, &scopes[chain[level - 1]], &kept[k]);
        kept[k].func = mt_dw_scope_function_locked(&scopes[chain[level]]);
    }
    if (kept != NULL) {
        out->inlined = kept;
        out->ninlined = (unsigned)outer;
    }
    mt_libc_free(scopes);
}

#endif

static void resolve_locked(uintptr_t pc, mt_symbol_t *out)
{
    Dl_info info;
    bool found = dladdr((void *)pc, &info) != 0;
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
        symbol = mt_dw.dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
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

    /* File, line and the functions (inlined ones too) from the debug information. */
#ifdef MT_HAVE_LIBDW
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = mod != NULL ? mt_dw_unit_locked(mod, addr, &bias) : NULL;
    if (cu != NULL) {
        out->dir = comp_dir_locked(cu);
        dwarf_line_locked(cu, addr - bias, out);
        dwarf_functions_locked(cu, addr - bias, bias, out);
    }
#endif
    if (out->func == NULL)
        out->func = out->symbol;
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

/* Keeps the result; when the cache cannot grow, the result is simply not kept. */
static void cache_add_locked(uintptr_t pc, const mt_symbol_t *sym)
{
    if (symbols.cache == NULL || (symbols.cache_used + 1) * 4 > symbols.cache_size * 3) {
        size_t size = symbols.cache_size != 0 ? symbols.cache_size * 2 : 256;
        cache_entry_t *fresh = mt_mem_calloc(size, sizeof *fresh);
        if (fresh == NULL)
            return;
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
    symbols.cache[i].pc = pc;
    symbols.cache[i].sym = *sym;
    symbols.cache_used++;
}

bool mt_symbolize(void *pc, mt_symbol_t *out)
{
    memset(out, 0, sizeof *out);
    if (pc == NULL)
        return false;
    mt_options_init();
    mt_busy++;
    pthread_mutex_lock(&symbols.lock);
    cache_entry_t *e = mt_opt.symbolize ? cache_find_locked((uintptr_t)pc) : NULL;
    if (!mt_opt.symbolize) {
        resolve_locked((uintptr_t)pc, out); /* the symbol tables only: not kept */
    } else if (e != NULL) {
        *out = e->sym;
    } else {
        resolve_locked((uintptr_t)pc, out);
        cache_add_locked((uintptr_t)pc, out);
    }
    pthread_mutex_unlock(&symbols.lock);
    mt_busy--;
    return out->symbol != NULL || out->file != NULL;
}

void mt_symbols_lock_all(void)
{
    pthread_mutex_lock(&symbols.lock);
}

void mt_symbols_unlock_all(void)
{
    pthread_mutex_unlock(&symbols.lock);
}
