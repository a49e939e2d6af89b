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
#include "base/options.h"
#include "base/symbol_names.h"
#include "base/symbolize.h"

#ifdef MT_HAVE_LIBDW /* symbolize.h */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#endif

#ifdef MT_HAVE_LIBDW
/* ---- libdw, opened on first use -------------------------------------------------------- */

#define MT_DW_FUNCTIONS(X)                                                                         \
    X(dwfl_begin)                                                                                  \
    X(dwfl_report_begin_add)                                                                       \
    X(dwfl_linux_proc_report)                                                                      \
    X(dwfl_report_end)                                                                             \
    X(dwfl_linux_proc_find_elf)                                                                    \
    X(dwfl_build_id_find_debuginfo)                                                                \
    X(dwfl_addrmodule)                                                                             \
    X(dwfl_module_addrdie)                                                                         \
    X(dwfl_module_nextcu)                                                                          \
    X(dwfl_module_addrinfo)                                                                        \
    X(dwarf_haspc)                                                                                 \
    X(dwarf_getsrc_die)                                                                            \
    X(dwarf_linesrc)                                                                               \
    X(dwarf_lineno)                                                                                \
    X(dwarf_attr)                                                                                  \
    X(dwarf_getscopes)                                                                             \
    X(dwarf_getscopes_die)                                                                         \
    X(dwarf_formudata)                                                                             \
    X(dwarf_getsrcfiles)                                                                           \
    X(dwarf_filesrc)                                                                               \
    X(dwarf_ranges)                                                                                \
    X(dwarf_tag)                                                                                   \
    X(dwarf_attr_integrate)                                                                        \
    X(dwarf_formstring)                                                                            \
    X(dwarf_diename)                                                                               \
    X(dwarf_formref_die)                                                                           \
    X(dwarf_peel_type)                                                                             \
    X(dwfl_module_getsrc_file)                                                                     \
    X(dwfl_lineinfo)                                                                               \
    X(dwarf_child)                                                                                 \
    X(dwarf_siblingof)

#endif

typedef struct cache_entry {
    uintptr_t pc; /* 0: empty */
    mt_symbol_t sym;
} cache_entry_t;

static struct {
    pthread_mutex_t lock;
#ifdef MT_HAVE_LIBDW
    bool dw_tried;
    Dwfl *dwfl; /* NULL when libdw could not be opened or started */
    Dwfl_Callbacks callbacks;
#define MT_DW_POINTER(name) __typeof__(name) *name;
    MT_DW_FUNCTIONS(MT_DW_POINTER)
#undef MT_DW_POINTER
#endif
    cache_entry_t *cache;
    size_t cache_size, cache_used; /* cache_size is a power of two */
} symbols = {.lock = PTHREAD_MUTEX_INITIALIZER};

#ifdef MT_HAVE_LIBDW
/* Reports the process's mapped objects to libdwfl (again: dlopen()ed ones appear). */
static bool report_modules_locked(void)
{
    symbols.dwfl_report_begin_add(symbols.dwfl);
    int rc = symbols.dwfl_linux_proc_report(symbols.dwfl, getpid());
    return symbols.dwfl_report_end(symbols.dwfl, NULL, NULL) == 0 && rc == 0;
}

static void open_libdw_locked(void)
{
    symbols.dw_tried = true;
    void *lib = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL)
        return;
#define MT_DW_RESOLVE(name)                                                                        \
    if ((*(void **)&symbols.name = dlsym(lib, #name)) == NULL)                                     \
        return;
    MT_DW_FUNCTIONS(MT_DW_RESOLVE)
#undef MT_DW_RESOLVE
    symbols.callbacks.find_elf = symbols.dwfl_linux_proc_find_elf;
    /* Separate debug information by build id only (/usr/lib/debug/.build-id), never through
     * debuginfod, which dwfl_standard_find_debuginfo tries last: its client starts libcurl,
     * whose set-up runs OpenSSL's, and at exit a program's OpenSSL may be cleaned up already
     * (that crashed the report, seen under ASan). A report at exit must not start a network
     * client in someone else's process either. */
    symbols.callbacks.find_debuginfo = symbols.dwfl_build_id_find_debuginfo;
    symbols.dwfl = symbols.dwfl_begin(&symbols.callbacks);
    if (symbols.dwfl != NULL)
        (void)report_modules_locked();
}
#endif

/* ---- resolving one address ------------------------------------------------------------- */

#ifdef MT_HAVE_LIBDW
/* The compilation unit whose code holds addr, and the bias of its addresses. libdw finds
 * it through .debug_aranges, which clang does not write (and in a program that mixes
 * compilers, libdw may then answer with a neighbouring unit): unless the unit found
 * really holds addr, every unit's ranges are asked in turn. */
static Dwarf_Die *unit_of_locked(Dwfl_Module *mod, Dwarf_Addr addr, Dwarf_Addr *bias)
{
    Dwarf_Die *cu = symbols.dwfl_module_addrdie(mod, addr, bias);
    if (cu != NULL && symbols.dwarf_haspc(cu, addr - *bias) > 0)
        return cu;
    cu = NULL;
    while ((cu = symbols.dwfl_module_nextcu(mod, cu, bias)) != NULL)
        if (symbols.dwarf_haspc(cu, addr - *bias) > 0)
            return cu;
    return NULL;
}

/* A source path as the compiler was given it (what __FILE__ says): relative to the unit's
 * compilation directory when inside it, else absolute (a system header). Kept. */
static const char *keep_source_path(Dwarf_Die *cu, const char *file)
{
    Dwarf_Attribute attr;
    const char *dir = symbols.dwarf_attr(cu, DW_AT_comp_dir, &attr) != NULL
                          ? symbols.dwarf_formstring(&attr)
                          : NULL;
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
    const char *dir = symbols.dwarf_attr(cu, DW_AT_comp_dir, &attr) != NULL
                          ? symbols.dwarf_formstring(&attr)
                          : NULL;
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
    Dwarf_Line *line = symbols.dwarf_getsrc_die(cu, addr);
    int lineno = 0;
    if (line == NULL || symbols.dwarf_lineno(line, &lineno) != 0 || lineno <= 0)
        return;
    const char *file = symbols.dwarf_linesrc(line, NULL, NULL);
    if (file == NULL)
        return;
    out->file = keep_source_path(cu, file);
    out->line = lineno;
}

/* The function a scope names: its linkage name when it has one (an inlined copy's come
 * from its abstract definition), else its name. Kept, demangled. */
static const char *scope_function_locked(Dwarf_Die *scope)
{
    Dwarf_Attribute attr;
    const char *name = NULL;
    if (symbols.dwarf_attr_integrate(scope, DW_AT_linkage_name, &attr) != NULL ||
        symbols.dwarf_attr_integrate(scope, DW_AT_MIPS_linkage_name, &attr) != NULL)
        name = symbols.dwarf_formstring(&attr);
    if (name == NULL)
        name = symbols.dwarf_diename(scope);
    return mt_keep_function(name);
}

/* Where an inlined copy was inlined: the call's file and line (DW_AT_call_file indexes the
 * unit's file table). */
static void call_site_locked(Dwarf_Die *cu, Dwarf_Die *copy, mt_inline_t *out)
{
    Dwarf_Attribute attr;
    Dwarf_Word index = 0, line = 0;
    Dwarf_Files *files = NULL;
    size_t nfiles = 0;
    if (symbols.dwarf_formudata(symbols.dwarf_attr(copy, DW_AT_call_file, &attr), &index) == 0 &&
        symbols.dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && index < nfiles) {
        const char *file = symbols.dwarf_filesrc(files, (size_t)index, NULL, NULL);
        if (file != NULL)
            out->file = keep_source_path(cu, file);
    }
    if (symbols.dwarf_formudata(symbols.dwarf_attr(copy, DW_AT_call_line, &attr), &line) == 0 &&
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
    while ((at = symbols.dwarf_ranges(copy, at, &base, &start, &end)) > 0) {
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

/* The scopes around addr in its unit, and among them (chain, innermost first) the chain of
 * inlined copies ending at the real function; returns the chain's length, 0 when none.
 * The caller frees *scopes (libdw's malloc, so the C library's) whatever the answer. */
enum { DEEPEST_CHAIN = 64 };
static int scope_chain_locked(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die **scopes,
                              int chain[DEEPEST_CHAIN])
{
    *scopes = NULL;
    int n = symbols.dwarf_getscopes(cu, addr, scopes);
    if (n <= 0)
        return 0;
    /* Past an inlined copy, dwarf_getscopes goes on into the scopes of its abstract
     * definition (for variables); the copies that hold addr are the innermost scope's own
     * parents in the unit. */
    Dwarf_Die innermost = (*scopes)[0];
    mt_libc_free(*scopes);
    *scopes = NULL;
    n = symbols.dwarf_getscopes_die(&innermost, scopes);

    /* Function scopes, innermost first: a chain of inlined copies ending at the real
     * function. DWARF may nest deeper than is kept: the innermost and the real one stay. */
    int depth = 0;
    for (int i = 0; i < n && depth < DEEPEST_CHAIN; i++) {
        int tag = symbols.dwarf_tag(&(*scopes)[i]);
        if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
            continue;
        chain[depth++] = i;
        if (tag == DW_TAG_subprogram)
            break;
    }
    return depth;
}

/* The functions around addr: the innermost (an inlined one when addr is in inlined code,
 * to match the line, which is the inlined code's) in out->func, and the functions its code
 * was inlined into, each at the line of the inlined call, in out->inlined. */
static void dwarf_functions_locked(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Addr bias,
                                   mt_symbol_t *out)
{
    Dwarf_Die *scopes;
    int chain[DEEPEST_CHAIN];
    int depth = scope_chain_locked(cu, addr, &scopes, chain);
    if (depth > 0) {
        out->func = scope_function_locked(&scopes[chain[0]]);
        if (symbols.dwarf_tag(&scopes[chain[0]]) == DW_TAG_inlined_subroutine)
            copy_span_locked(&scopes[chain[0]], bias, out);
    }
    int outer = depth - 1 < MT_INLINE_MAX ? depth - 1 : MT_INLINE_MAX;
    mt_inline_t *kept = outer > 0 ? mt_mem_calloc((size_t)outer, sizeof *kept) : NULL;
    for (int k = 0; kept != NULL && k < outer; k++) {
        /* the last kept is the real function, called from the outermost copy's call */
        int level = k == outer - 1 ? depth - 1 : k + 1;
        call_site_locked(cu, &scopes[chain[level - 1]], &kept[k]);
        kept[k].func = scope_function_locked(&scopes[chain[level]]);
    }
    if (kept != NULL) {
        out->inlined = kept;
        out->ninlined = (unsigned)outer;
    }
    mt_libc_free(scopes);
}

/* The module of addr in libdwfl's view of the process; NULL without libdw. */
static Dwfl_Module *module_of_locked(Dwarf_Addr addr)
{
    if (!symbols.dw_tried)
        open_libdw_locked();
    if (symbols.dwfl == NULL)
        return NULL;
    Dwfl_Module *mod = symbols.dwfl_addrmodule(symbols.dwfl, addr);
    if (mod == NULL && report_modules_locked()) /* loaded since we last looked? */
        mod = symbols.dwfl_addrmodule(symbols.dwfl, addr);
    return mod;
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
    Dwfl_Module *mod = mt_opt.symbolize ? module_of_locked(addr) : NULL;

    /* The symbol around pc: from the full symbol table when libdw reads it (it knows
     * static functions), else from the dynamic one (dladdr). */
    if (mod != NULL) {
        GElf_Off off = 0;
        GElf_Sym sym;
        symbol = symbols.dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
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
    Dwarf_Die *cu = mod != NULL ? unit_of_locked(mod, addr, &bias) : NULL;
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

/* ---- a function's code, for the allocation-wrapper rule --------------------------------- */

#ifdef MT_HAVE_LIBDW
/* What the function of scope `fn` returns, from its type (an inlined copy's and a
 * declaration's through their abstract origin or specification). */
static mt_returns_t returns_locked(Dwarf_Die *fn)
{
    Dwarf_Attribute attr;
    Dwarf_Die type;
    if (symbols.dwarf_attr_integrate(fn, DW_AT_type, &attr) == NULL)
        return MT_RETURNS_OTHER; /* void */
    if (symbols.dwarf_formref_die(&attr, &type) == NULL ||
        symbols.dwarf_peel_type(&type, &type) != 0)
        return MT_RETURNS_UNKNOWN;
    int tag = symbols.dwarf_tag(&type);
    return tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
                   tag == DW_TAG_rvalue_reference_type
               ? MT_RETURNS_POINTER
               : MT_RETURNS_OTHER;
}

static bool is_pointer_type_locked(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    Dwarf_Die type;
    if (symbols.dwarf_attr_integrate(die, DW_AT_type, &attr) == NULL ||
        symbols.dwarf_formref_die(&attr, &type) == NULL ||
        symbols.dwarf_peel_type(&type, &type) != 0)
        return false;
    int tag = symbols.dwarf_tag(&type);
    return tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
           tag == DW_TAG_rvalue_reference_type;
}

/* True when the function of scope fn takes a pointer (its declaration's parameters: an
 * inlined copy's and an out-of-line copy's through their abstract origin). */
static bool takes_pointer_locked(Dwarf_Die *fn)
{
    Dwarf_Attribute attr;
    Dwarf_Die origin = *fn, child;
    for (int hops = 0; hops < 2; hops++) /* an abstract origin may have a specification */
        if ((symbols.dwarf_attr(&origin, DW_AT_abstract_origin, &attr) != NULL ||
             symbols.dwarf_attr(&origin, DW_AT_specification, &attr) != NULL) &&
            symbols.dwarf_formref_die(&attr, &origin) == NULL)
            return false;
    if (symbols.dwarf_child(&origin, &child) != 0)
        return false;
    for (int n = 0; n < 64; n++) {
        if (symbols.dwarf_tag(&child) == DW_TAG_formal_parameter && is_pointer_type_locked(&child))
            return true;
        if (symbols.dwarf_siblingof(&child, &child) != 0)
            break;
    }
    return false;
}

/* Describes scope `fn` (a function or an inlined copy) of a unit whose addresses are biased
 * by bias: its code (all its ranges, and the one holding addr), what it returns and takes. */
static void describe_locked(Dwarf_Die *fn, Dwarf_Addr addr, Dwarf_Addr bias,
                            mt_function_code_t *out)
{
    Dwarf_Addr base = 0, start = 0, end = 0;
    ptrdiff_t at = 0;
    out->func = scope_function_locked(fn);
    out->inlined = symbols.dwarf_tag(fn) == DW_TAG_inlined_subroutine;
    while ((at = symbols.dwarf_ranges(fn, at, &base, &start, &end)) > 0) {
        out->bytes += (size_t)(end - start);
        if (addr >= start && addr < end) {
            out->start = (uintptr_t)(start + bias);
            out->size = (size_t)(end - start);
        }
    }
    out->returns = returns_locked(fn);
    out->takes_pointer = takes_pointer_locked(fn);
}

/* True when a scope's name is the __func__ a site was given: the same, or a C++ qualified
 * name ending with it. */
static bool named(const char *scope_name, const char *func)
{
    size_t a = scope_name != NULL ? strlen(scope_name) : 0, b = strlen(func);
    return a >= b && strcmp(scope_name + a - b, func) == 0 &&
           (a == b || (a > b + 1 && scope_name[a - b - 1] == ':'));
}

/* The function chain's level as mt_symbol_t numbers them (levels_of in records/place.c:
 * 0 the innermost, then the functions of `inlined`, the last the real function). */
static int chain_index(int level, int depth)
{
    int outer = depth - 1 < MT_INLINE_MAX ? depth - 1 : MT_INLINE_MAX;
    if (level == 0)
        return 0;
    if (level > outer)
        return -1;
    return level == outer ? depth - 1 : level;
}
#endif

bool mt_symbolize_function(void *pc, unsigned level, mt_function_code_t *out)
{
    memset(out, 0, sizeof *out);
    bool found = false;
#ifdef MT_HAVE_LIBDW
    mt_options_init();
    if (pc == NULL || !mt_opt.symbolize)
        return false;
    mt_busy++;
    pthread_mutex_lock(&symbols.lock);
    Dwarf_Addr addr = (Dwarf_Addr)(uintptr_t)pc - 1, bias = 0;
    Dwfl_Module *mod = module_of_locked(addr);
    Dwarf_Die *cu = mod != NULL ? unit_of_locked(mod, addr, &bias) : NULL;
    Dwarf_Die *scopes = NULL;
    int chain[DEEPEST_CHAIN];
    int depth = cu != NULL ? scope_chain_locked(cu, addr - bias, &scopes, chain) : 0;
    int at = depth > 0 ? chain_index((int)level, depth) : -1;
    if (at >= 0) {
        describe_locked(&scopes[chain[at]], addr - bias, bias, out);
        found = true;
    }
    mt_libc_free(scopes);
    pthread_mutex_unlock(&symbols.lock);
    mt_busy--;
#else
    (void)pc;
    (void)level;
#endif
    return found;
}

bool mt_symbolize_source(const char *file, int line, const char *func, const void *in_module,
                         mt_function_code_t *out)
{
    memset(out, 0, sizeof *out);
    bool found = false;
#ifdef MT_HAVE_LIBDW
    mt_options_init();
    if (file == NULL || func == NULL || line <= 0 || in_module == NULL || !mt_opt.symbolize)
        return false;
    mt_busy++;
    pthread_mutex_lock(&symbols.lock);
    Dwfl_Module *mod = module_of_locked((Dwarf_Addr)(uintptr_t)in_module);
    /* The line table names files by their full path: a relative __FILE__ is looked up by
     * its last component, and the lines found must end with the whole of it. */
    const char *base = mt_base_name(file);
    Dwfl_Line **lines = NULL;
    size_t nlines = 0;
    if (mod == NULL || symbols.dwfl_module_getsrc_file(mod, file[0] == '/' ? file : base, line, 0,
                                                       &lines, &nlines) != 0)
        nlines = 0;
    size_t flen = strlen(file);
    for (size_t i = 0; i < nlines && !found; i++) {
        Dwarf_Addr addr = 0, bias = 0;
        const char *name = symbols.dwfl_lineinfo(lines[i], &addr, NULL, NULL, NULL, NULL);
        size_t nlen = name != NULL ? strlen(name) : 0;
        if (nlen < flen || strcmp(name + nlen - flen, file) != 0 ||
            (nlen > flen && name[nlen - flen - 1] != '/'))
            continue;
        Dwarf_Die *cu = unit_of_locked(mod, addr, &bias);
        Dwarf_Die *scopes = NULL;
        int chain[DEEPEST_CHAIN];
        int depth = cu != NULL ? scope_chain_locked(cu, addr - bias, &scopes, chain) : 0;
        if (depth > 0 && named(symbols.dwarf_diename(&scopes[chain[0]]), func)) {
            describe_locked(&scopes[chain[0]], addr - bias, bias, out);
            found = true;
        }
        mt_libc_free(scopes);
    }
    mt_libc_free(lines);
    pthread_mutex_unlock(&symbols.lock);
    mt_busy--;
#else
    (void)file;
    (void)line;
    (void)func;
    (void)in_module;
#endif
    return found;
}

void mt_symbols_lock_all(void)
{
    pthread_mutex_lock(&symbols.lock);
}

void mt_symbols_unlock_all(void)
{
    pthread_mutex_unlock(&symbols.lock);
}
