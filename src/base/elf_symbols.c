/* elf_symbols.c - the symbol around an address, for the symbolizer (symbolize.c).
 *
 * libdwfl's dwfl_module_addrinfo reads every entry of the module's symbol table for each
 * address it is asked: in a program of 3,000 functions that was 1 M instructions an
 * address, nine tenths of an exit report with 200 leak stacks. Here a module's symbols with
 * a size are listed once, sorted by address, and an address takes a bisection and a look
 * at the few symbols that cover it, which are then weighed in the symbol table's order by
 * libdwfl's own rules (elfutils' dwfl_module_addrsym.c): the global symbols first, the
 * local ones only when no global one covers the address; the symbol that starts closest
 * to it; a stronger binding (global, weak, local) over a weaker; at the same start, the
 * shorter symbol at no weaker binding; else the first found. A symbol without a size
 * (an assembly label) is only ever chosen when no sized one covers the address: those
 * cases, and the ones the index cannot settle, are left to libdwfl.
 *
 * Listing a module costs about what one libdwfl search does, so a module is indexed from
 * its third address on: a report that names one frame of the C library never lists it.
 */
#include "base/elf_symbols.h"

#ifdef MT_HAVE_LIBDW
#include <string.h>

#include "base/memory.h"

#define INDEX_AFTER 2      /* addresses looked up in a module before it is indexed */
#define MODULES_MAX 256u   /* modules followed; more are searched by libdwfl */
#define CANDIDATES_MAX 32u /* sized symbols covering one address (aliases, nesting) */
#define SCAN_MAX 256u      /* symbols looked at below an address for those covering it */

typedef struct symbol {
    GElf_Addr value; /* in the process */
    GElf_Addr reach; /* the highest end of this symbol and every one sorted before it */
    GElf_Sym sym;
    const char *name;
    int ndx; /* in the module's symbol table */
} symbol_t;

typedef struct module_symbols {
    Dwfl_Module *mod; /* NULL: empty */
    unsigned lookups;
    bool indexed, unusable; /* unusable: libdwfl's search for every address */
    int first_global;
    symbol_t *sized; /* sorted by value */
    size_t nsized;
    GElf_Addr *sizeless_globals; /* values, sorted */
    size_t nsizeless;
} module_symbols_t;

static module_symbols_t modules[MODULES_MAX];

unsigned long mt_module_symbols_indexed;

static int binding_value(const GElf_Sym *s)
{
    switch (GELF_ST_BIND(s->st_info)) {
    case STB_GLOBAL: return 3;
    case STB_WEAK: return 2;
    case STB_LOCAL: return 1;
    default: return 0;
    }
}

static void sift_symbols(symbol_t *a, size_t root, size_t n)
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && a[child].value < a[child + 1].value)
            child++;
        if (a[root].value >= a[child].value)
            return;
        symbol_t t = a[root];
        a[root] = a[child];
        a[child] = t;
        root = child;
    }
}

static void sift_values(GElf_Addr *a, size_t root, size_t n)
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && a[child] < a[child + 1])
            child++;
        if (a[root] >= a[child])
            return;
        GElf_Addr t = a[root];
        a[root] = a[child];
        a[child] = t;
        root = child;
    }
}

/* Lists m's symbols as libdwfl's search considers them; false (the module unusable) when
 * memory is short or a value is not the symbol's own (function descriptors, ET_REL). */
static bool index_module(module_symbols_t *m)
{
    int count = mt_dw.dwfl_module_getsymtab(m->mod);
    m->first_global = mt_dw.dwfl_module_getsymtab_first_global(m->mod);
    if (count <= 1 || m->first_global < 0)
        return false;
    m->sized = mt_mem_alloc((size_t)count * sizeof *m->sized);
    m->sizeless_globals = mt_mem_alloc((size_t)count * sizeof *m->sizeless_globals);
    if (m->sized == NULL || m->sizeless_globals == NULL)
        return false;
    for (int i = 1; i < count; i++) {
        GElf_Sym sym;
        GElf_Addr value = 0;
        GElf_Word shndx = 0;
        Elf *elf = NULL;
        Dwarf_Addr bias = 0;
        const char *name =
            mt_dw.dwfl_module_getsym_info(m->mod, i, &sym, &value, &shndx, &elf, &bias);
        if (name == NULL || name[0] == '\0' || sym.st_shndx == SHN_UNDEF ||
            GELF_ST_TYPE(sym.st_info) == STT_SECTION || GELF_ST_TYPE(sym.st_info) == STT_FILE ||
            GELF_ST_TYPE(sym.st_info) == STT_TLS)
            continue;
        if (value != sym.st_value + bias)
            return false; /* a resolved value: libdwfl matches both, which we do not */
        if (sym.st_size != 0)
            m->sized[m->nsized++] = (symbol_t){value, 0, sym, name, i};
        else if (m->first_global == 0 || i >= m->first_global) {
            m->sizeless_globals[m->nsizeless++] = value;
        }
    }
    for (size_t i = m->nsized / 2; i-- > 0;)
        sift_symbols(m->sized, i, m->nsized);
    for (size_t end = m->nsized; end-- > 1;) {
        symbol_t t = m->sized[0];
        m->sized[0] = m->sized[end];
        m->sized[end] = t;
        sift_symbols(m->sized, 0, end);
    }
    for (size_t i = 0; i < m->nsized; i++) {
        GElf_Addr end = m->sized[i].value + m->sized[i].sym.st_size;
        m->sized[i].reach = i > 0 && m->sized[i - 1].reach > end ? m->sized[i - 1].reach : end;
    }
    for (size_t i = m->nsizeless / 2; i-- > 0;)
        sift_values(m->sizeless_globals, i, m->nsizeless);
    for (size_t end = m->nsizeless; end-- > 1;) {
        GElf_Addr t = m->sizeless_globals[0];
        m->sizeless_globals[0] = m->sizeless_globals[end];
        m->sizeless_globals[end] = t;
        sift_values(m->sizeless_globals, 0, end);
    }
    return true;
}

static module_symbols_t *module_entry(Dwfl_Module *mod)
{
    for (size_t k = 0; k < MODULES_MAX; k++) {
        if (modules[k].mod == mod)
            return &modules[k];
        if (modules[k].mod == NULL) {
            modules[k].mod = mod;
            return &modules[k];
        }
    }
    return NULL;
}

/* The first of the n sorted values above addr. */
static size_t first_above(const symbol_t *a, size_t n, GElf_Addr addr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid].value <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return hi;
}

static bool sizeless_global_at(const module_symbols_t *m, GElf_Addr addr)
{
    size_t lo = 0, hi = m->nsizeless;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->sizeless_globals[mid] < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->nsizeless && m->sizeless_globals[lo] == addr;
}

/* libdwfl's choice among the sized symbols covering the address, in table order, from
 * those whose index is in [from, to). */
static const symbol_t *closest_of(const symbol_t *const *c, size_t n, int from, int to)
{
    const symbol_t *closest = NULL;
    for (size_t i = 0; i < n; i++) {
        const symbol_t *s = c[i];
        if (s->ndx < from || s->ndx >= to)
            continue;
        if (closest == NULL || closest->value < s->value ||
            binding_value(&closest->sym) < binding_value(&s->sym))
            closest = s;
        else if (closest->value == s->value &&
                 ((closest->sym.st_size > s->sym.st_size &&
                   binding_value(&closest->sym) <= binding_value(&s->sym)) ||
                  (closest->sym.st_size >= s->sym.st_size &&
                   binding_value(&closest->sym) < binding_value(&s->sym))))
            closest = s;
    }
    return closest;
}

/* The index's answer, or NULL when it cannot tell (libdwfl's search then). */
static const symbol_t *indexed_symbol(const module_symbols_t *m, GElf_Addr addr)
{
    const symbol_t *c[CANDIDATES_MAX];
    size_t n = 0;
    size_t i = first_above(m->sized, m->nsized, addr);
    for (unsigned scanned = 0; i-- > 0; scanned++) {
        const symbol_t *s = &m->sized[i];
        if (s->reach <= addr)
            break; /* no symbol from here down reaches addr */
        if (scanned == SCAN_MAX || (addr - s->value < s->sym.st_size && n == CANDIDATES_MAX))
            return NULL;
        if (addr - s->value < s->sym.st_size)
            c[n++] = s;
    }
    for (size_t a = 1; a < n; a++) /* the symbol table's order */
        for (size_t b = a; b > 0 && c[b - 1]->ndx > c[b]->ndx; b--) {
            const symbol_t *t = c[b];
            c[b] = c[b - 1];
            c[b - 1] = t;
        }
    int count = mt_dw.dwfl_module_getsymtab(m->mod);
    int first = m->first_global == 0 ? 1 : m->first_global;
    const symbol_t *found = closest_of(c, n, first, count);
    if (found != NULL || m->first_global <= 1)
        return found;
    if (sizeless_global_at(m, addr)) /* libdwfl may stop at it: its own search decides */
        return NULL;
    return closest_of(c, n, 1, m->first_global);
}

const char *mt_module_symbol(Dwfl_Module *mod, Dwarf_Addr addr, GElf_Off *off, GElf_Sym *sym)
{
    module_symbols_t *m = module_entry(mod);
    if (m != NULL && !m->indexed && !m->unusable && ++m->lookups > INDEX_AFTER) {
        m->indexed = index_module(m);
        m->unusable = !m->indexed;
    }
    const symbol_t *s = m != NULL && m->indexed ? indexed_symbol(m, addr) : NULL;
    if (s == NULL)
        return mt_dw.dwfl_module_addrinfo(mod, addr, off, sym, NULL, NULL, NULL);
    mt_module_symbols_indexed++;
    *off = addr - s->value;
    *sym = s->sym;
    return s->name;
}
#else
typedef int mt_elf_symbols_unused_t; /* a translation unit holds a declaration */
#endif
