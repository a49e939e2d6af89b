/* data_symbols.c - a data address turned into the variable that holds it: its name and
 * where it is declared, for the leak report's holders ("held by g_cache at cache.c:12").
 *
 * The symbol tables give the variable around an address (static ones too, with libdw, as
 * for code); the debug information gives its declaration: each module's variables with a
 * fixed address (a DW_OP_addr location) are read once into an index sorted by address, in
 * the tracker's memory, and a lookup is a bisection there. A static variable declared in a
 * function is named with it ("cache" in remember(), where the symbol table says
 * "cache.0").
 *
 * libdw is opened with dlopen, as symbolize.c opens it, in a session of its own: the two
 * files share no state and no lock (this one's is taken alone, never with another of the
 * tracker's). Lookups happen only while a report names what holds its leaks.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
#ifdef __GLIBC__
#include <link.h>
#endif
#include <unistd.h>

#include "base/data_symbols.h"
#include "base/memory.h"
#include "base/options.h"
#include "base/symbolize.h" /* MT_HAVE_LIBDW */

#ifdef MT_HAVE_LIBDW
#include <dwarf.h>
#include <elfutils/libdwfl.h>

#define MT_DATA_DW_FUNCTIONS(X)                                                                    \
    X(dwfl_begin)                                                                                  \
    X(dwfl_report_begin_add)                                                                       \
    X(dwfl_linux_proc_report)                                                                      \
    X(dwfl_report_end)                                                                             \
    X(dwfl_linux_proc_find_elf)                                                                    \
    X(dwfl_build_id_find_debuginfo)                                                                \
    X(dwfl_addrmodule)                                                                             \
    X(dwfl_module_addrinfo)                                                                        \
    X(dwfl_module_getdwarf)                                                                        \
    X(dwfl_module_info)                                                                            \
    X(dwarf_nextcu)                                                                                \
    X(dwarf_offdie)                                                                                \
    X(dwarf_child)                                                                                 \
    X(dwarf_siblingof)                                                                             \
    X(dwarf_tag)                                                                                   \
    X(dwarf_attr)                                                                                  \
    X(dwarf_attr_integrate)                                                                        \
    X(dwarf_hasattr_integrate)                                                                     \
    X(dwarf_getlocation)                                                                           \
    X(dwarf_formstring)                                                                            \
    X(dwarf_diename)                                                                               \
    X(dwarf_dieoffset)                                                                             \
    X(dwarf_diecu)                                                                                 \
    X(dwarf_decl_file)                                                                             \
    X(dwarf_decl_line)

/* A variable with a fixed address, as the index keeps it. */
typedef struct variable {
    Dwarf_Addr addr;     /* in the module's file (add the bias for the process's address) */
    Dwarf_Off die, func; /* its DIE, and its function's when declared in one (else 0) */
} variable_t;

typedef struct module_index {
    Dwfl_Module *mod;
    variable_t *vars; /* sorted by addr */
    size_t n, cap;
    struct module_index *next;
} module_index_t;

static struct {
    pthread_mutex_t lock;
    bool tried;
    Dwfl *dwfl;
    Dwfl_Callbacks callbacks;
    module_index_t *indexes;
#define MT_DATA_DW_POINTER(name) __typeof__(name) *name;
    MT_DATA_DW_FUNCTIONS(MT_DATA_DW_POINTER)
#undef MT_DATA_DW_POINTER
} dw = {.lock = PTHREAD_MUTEX_INITIALIZER};

static bool report_modules_locked(void)
{
    dw.dwfl_report_begin_add(dw.dwfl);
    int rc = dw.dwfl_linux_proc_report(dw.dwfl, getpid());
    return dw.dwfl_report_end(dw.dwfl, NULL, NULL) == 0 && rc == 0;
}

static void open_locked(void)
{
    dw.tried = true;
    void *lib = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL)
        return;
#define MT_DATA_DW_RESOLVE(name)                                                                   \
    if ((*(void **)&dw.name = dlsym(lib, #name)) == NULL)                                          \
        return;
    MT_DATA_DW_FUNCTIONS(MT_DATA_DW_RESOLVE)
#undef MT_DATA_DW_RESOLVE
    /* Separate debug information by build id, never through debuginfod (symbolize.c). */
    dw.callbacks.find_elf = dw.dwfl_linux_proc_find_elf;
    dw.callbacks.find_debuginfo = dw.dwfl_build_id_find_debuginfo;
    dw.dwfl = dw.dwfl_begin(&dw.callbacks);
    if (dw.dwfl != NULL)
        (void)report_modules_locked();
}

/* ---- the index of a module's variables --------------------------------------------------- */

static void index_add(module_index_t *x, Dwarf_Addr addr, Dwarf_Off die, Dwarf_Off func)
{
    if (x->n == x->cap) {
        size_t more = x->cap != 0 ? x->cap * 2 : 256;
        variable_t *fresh = mt_mem_alloc(more * sizeof *fresh);
        if (fresh == NULL)
            return;
        if (x->vars != NULL)
            memcpy(fresh, x->vars, x->n * sizeof *fresh);
        mt_mem_free(x->vars);
        x->vars = fresh;
        x->cap = more;
    }
    x->vars[x->n++] = (variable_t){addr, die, func};
}

/* The address of a variable whose location is one DW_OP_addr, or 0. */
static Dwarf_Addr fixed_address_locked(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    Dwarf_Op *expr;
    size_t n;
    if (dw.dwarf_attr(die, DW_AT_location, &attr) == NULL ||
        dw.dwarf_getlocation(&attr, &expr, &n) != 0 || n != 1 || expr[0].atom != DW_OP_addr)
        return 0;
    return (Dwarf_Addr)expr[0].number;
}

/* Every variable under die (its children, their children...), with the function each is
 * declared in. Iterative: a DIE tree may nest deeper than a thread's stack allows. */
static void index_unit_locked(module_index_t *x, Dwarf_Die *unit)
{
    enum { DEEPEST = 64 };
    Dwarf_Die at[DEEPEST];
    Dwarf_Off func[DEEPEST];
    int depth = 0;
    if (dw.dwarf_child(unit, &at[0]) != 0)
        return;
    func[0] = 0;
    for (;;) {
        Dwarf_Die *d = &at[depth];
        int tag = dw.dwarf_tag(d);
        if (tag == DW_TAG_variable) {
            Dwarf_Addr addr = fixed_address_locked(d);
            if (addr != 0)
                index_add(x, addr, dw.dwarf_dieoffset(d), func[depth]);
        }
        /* Down into functions and their blocks (static locals), namespaces and the like. */
        if ((tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block || tag == DW_TAG_namespace) &&
            depth + 1 < DEEPEST && dw.dwarf_child(d, &at[depth + 1]) == 0) {
            func[depth + 1] = tag == DW_TAG_subprogram ? dw.dwarf_dieoffset(d) : func[depth];
            depth++;
            continue;
        }
        while (dw.dwarf_siblingof(&at[depth], &at[depth]) != 0) {
            if (depth == 0)
                return;
            depth--;
        }
    }
}

static void sort_index(variable_t *v, size_t n)
{
    /* Shell sort: no recursion, no allocation; units list their variables mostly in order. */
    for (size_t gap = n / 2; gap > 0; gap /= 2)
        for (size_t i = gap; i < n; i++) {
            variable_t t = v[i];
            size_t j = i;
            for (; j >= gap && v[j - gap].addr > t.addr; j -= gap)
                v[j] = v[j - gap];
            v[j] = t;
        }
}

static module_index_t *index_of_locked(Dwfl_Module *mod)
{
    for (module_index_t *x = dw.indexes; x != NULL; x = x->next)
        if (x->mod == mod)
            return x;
    module_index_t *x = mt_mem_calloc(1, sizeof *x);
    if (x == NULL)
        return NULL;
    x->mod = mod;
    Dwarf_Addr bias;
    Dwarf *dbg = dw.dwfl_module_getdwarf(mod, &bias);
    Dwarf_Off off = 0, next;
    size_t header;
    while (dbg != NULL && dw.dwarf_nextcu(dbg, off, &next, &header, NULL, NULL, NULL) == 0) {
        Dwarf_Die unit;
        if (dw.dwarf_offdie(dbg, off + header, &unit) != NULL)
            index_unit_locked(x, &unit);
        off = next;
    }
    sort_index(x->vars, x->n);
    x->next = dw.indexes;
    dw.indexes = x;
    return x;
}

static const variable_t *variable_at(const module_index_t *x, Dwarf_Addr addr)
{
    size_t low = 0, high = x->n;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        if (x->vars[mid].addr < addr)
            low = mid + 1;
        else
            high = mid;
    }
    return low < x->n && x->vars[low].addr == addr ? &x->vars[low] : NULL;
}

/* ---- naming -------------------------------------------------------------------------------- */

static const char *keep(const char *s)
{
    if (s == NULL)
        return NULL;
    size_t n = strlen(s);
    char *copy = mt_mem_alloc(n + 1);
    if (copy != NULL)
        memcpy(copy, s, n + 1);
    return copy;
}

/* A declaration's file as the compiler was given it: relative to its unit's directory when
 * inside it (as sites name files). */
static const char *decl_file_locked(Dwarf_Die *die)
{
    const char *file = dw.dwarf_decl_file(die);
    Dwarf_Die unit;
    Dwarf_Attribute attr;
    const char *dir = file != NULL && dw.dwarf_diecu(die, &unit, NULL, NULL) != NULL &&
                              dw.dwarf_attr(&unit, DW_AT_comp_dir, &attr) != NULL
                          ? dw.dwarf_formstring(&attr)
                          : NULL;
    size_t dn = dir != NULL ? strlen(dir) : 0;
    if (dn > 0 && strncmp(file, dir, dn) == 0 && file[dn] == '/')
        file += dn + 1;
    while (file != NULL && file[0] == '.' && file[1] == '/')
        file += 2;
    return keep(file);
}

static void describe_locked(Dwfl_Module *mod, Dwarf_Addr start, mt_data_symbol_t *out)
{
    Dwarf_Addr bias;
    Dwarf *dbg = dw.dwfl_module_getdwarf(mod, &bias);
    module_index_t *x = dbg != NULL ? index_of_locked(mod) : NULL;
    const variable_t *v = x != NULL ? variable_at(x, start - bias) : NULL;
    Dwarf_Die die, func;
    if (v == NULL || dw.dwarf_offdie(dbg, v->die, &die) == NULL)
        return;
    Dwarf_Attribute attr;
    const char *name = dw.dwarf_attr_integrate(&die, DW_AT_name, &attr) != NULL
                           ? dw.dwarf_formstring(&attr)
                           : NULL;
    if (name != NULL)
        out->name = keep(name);
    out->file = decl_file_locked(&die);
    if (out->file == NULL || dw.dwarf_decl_line(&die, &out->line) != 0)
        out->line = 0;
    out->external = dw.dwarf_hasattr_integrate(&die, DW_AT_external) != 0;
    if (v->func != 0 && dw.dwarf_offdie(dbg, v->func, &func) != NULL)
        out->func = keep(dw.dwarf_diename(&func));
}

/* Results by address of the variable: a report names each holder once. */
typedef struct named {
    uintptr_t start;
    mt_data_symbol_t sym;
    struct named *next;
} named_t;
static named_t *named;

static bool resolve_locked(uintptr_t addr, mt_data_symbol_t *out)
{
    if (!dw.tried)
        open_locked();
    Dwfl_Module *mod = dw.dwfl != NULL ? dw.dwfl_addrmodule(dw.dwfl, addr) : NULL;
    if (mod == NULL && dw.dwfl != NULL && report_modules_locked()) /* loaded since? */
        mod = dw.dwfl_addrmodule(dw.dwfl, addr);
    if (mod == NULL)
        return false;
    void **userdata; /* the module's name, kept once in libdwfl's slot for it */
    const char *path = dw.dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
    if (*userdata == NULL && path != NULL) {
        const char *slash = strrchr(path, '/');
        *userdata = (void *)keep(slash != NULL ? slash + 1 : path);
    }
    out->module = *userdata;
    GElf_Off off = 0;
    GElf_Sym sym;
    const char *symbol = dw.dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
    if (symbol == NULL || (sym.st_size != 0 ? off >= sym.st_size : off != 0))
        return false;
    out->start = addr - (uintptr_t)off;
    for (named_t *n = named; n != NULL; n = n->next)
        if (n->start == out->start) {
            *out = n->sym;
            return true;
        }
    out->external = GELF_ST_BIND(sym.st_info) != STB_LOCAL;
    if (mt_opt.symbolize)
        describe_locked(mod, (Dwarf_Addr)out->start, out);
    if (out->name == NULL)
        out->name = keep(symbol);
    named_t *n = mt_mem_alloc(sizeof *n);
    if (n != NULL) {
        *n = (named_t){out->start, *out, named};
        named = n;
    }
    return out->name != NULL;
}
#endif /* MT_HAVE_LIBDW */

void mt_data_symbols_lock_all(void)
{
#ifdef MT_HAVE_LIBDW
    pthread_mutex_lock(&dw.lock);
#endif
}

void mt_data_symbols_unlock_all(void)
{
#ifdef MT_HAVE_LIBDW
    pthread_mutex_unlock(&dw.lock);
#endif
}

bool mt_symbolize_data(uintptr_t addr, mt_data_symbol_t *out)
{
    memset(out, 0, sizeof *out);
    bool found = false;
    mt_busy++;
#ifdef MT_HAVE_LIBDW
    pthread_mutex_lock(&dw.lock);
    found = resolve_locked(addr, out);
    pthread_mutex_unlock(&dw.lock);
#endif
#ifdef __GLIBC__ /* without libdw: the dynamic symbol table's, exported variables only */
    Dl_info info;
    const ElfW(Sym) *entry = NULL;
    if (!found && dladdr1((void *)addr, &info, (void **)&entry, RTLD_DL_SYMENT) != 0 &&
        info.dli_sname != NULL && entry != NULL &&
        addr - (uintptr_t)info.dli_saddr < (entry->st_size != 0 ? entry->st_size : 1)) {
        out->name = info.dli_sname;
        out->start = (uintptr_t)info.dli_saddr;
        out->external = true;
        found = true;
    }
#endif
    mt_busy--;
    return found;
}
