/* dwarf_scopes.c - the functions around an address, for the symbolizer (symbolize.c).
 *
 * libdw's own way, dwarf_getscopes and then dwarf_getscopes_die for the inlined copies'
 * real parents, walks the compilation unit's tree for every address: in a unit of a few
 * dozen functions that was nine tenths of an exit report with 1,000 distinct stacks, and a
 * unit of thousands (an amalgamated library) costs thousands of times as much per address.
 * Here each unit's functions (DW_TAG_subprogram with code, at the unit's top level or in
 * the namespaces, classes and structures that hold them, and in the units it imports, as
 * libdw's walk goes) are listed once, sorted by address; an address then takes a
 * bisection, and a walk down the scopes of one function only (its lexical blocks and the
 * copies inlined into it that hold the address), as libdw's walk does there.
 *
 * The unit that holds an address is found the same way: libdw asks .debug_aranges, which
 * clang does not write; then each module's units are listed once, sorted by address, where
 * every unit's ranges were asked in turn for every address.
 *
 * The indexes live in the tracker's own memory for the life of the process, as libdw's
 * units do.
 */
#include "base/dwarf_scopes.h"
#include "base/heap_sort.h"

#ifdef MT_HAVE_LIBDW
#include <string.h>

#include "base/memory.h"

#define NESTING_MAX 16 /* namespaces and classes inside each other, imported units */

typedef struct fn_range {
    Dwarf_Addr low, high; /* [low, high) */
    Dwarf_Die die;
} fn_range_t;

typedef struct unit_index {
    const void *unit; /* the unit DIE's place in the debug information: the key; NULL: empty */
    fn_range_t *fns;  /* sorted by low */
    size_t n;
} unit_index_t;

static struct {
    unit_index_t *units; /* open addressing; size a power of two */
    size_t size, used;
} indexes;

typedef struct fn_list {
    fn_range_t *fns;
    size_t n, room;
    bool failed; /* out of memory: the list is incomplete */
} fn_list_t;

static void add_fn(fn_list_t *list, Dwarf_Addr low, Dwarf_Addr high, const Dwarf_Die *die)
{
    if (list->failed || high <= low)
        return;
    if (list->n == list->room) {
        size_t room = list->room != 0 ? 2 * list->room : 64;
        fn_range_t *more = mt_mem_alloc(room * sizeof *more);
        if (more == NULL) {
            list->failed = true;
            return;
        }
        if (list->n > 0)
            memcpy(more, list->fns, list->n * sizeof *more);
        mt_mem_free(list->fns);
        list->fns = more;
        list->room = room;
    }
    list->fns[list->n++] = (fn_range_t){low, high, *die};
}

/* Lists the functions with code among parent's children, and in the scopes that hold
 * functions without code of their own (namespaces, classes), as libdw's walk does. */
static void collect(Dwarf_Die *parent, fn_list_t *list, int nesting)
{
    Dwarf_Die child;
    if (mt_dw.dwarf_child(parent, &child) != 0)
        return;
    do {
        switch (mt_dw.dwarf_tag(&child)) {
        case DW_TAG_subprogram: {
            Dwarf_Addr base = 0, start = 0, end = 0;
            ptrdiff_t at = 0;
            while ((at = mt_dw.dwarf_ranges(&child, at, &base, &start, &end)) > 0)
                add_fn(list, start, end, &child);
            break;
        }
        case DW_TAG_namespace:
        case DW_TAG_class_type:
        case DW_TAG_structure_type:
        case DW_TAG_module:
            if (nesting < NESTING_MAX)
                collect(&child, list, nesting + 1);
            break;
        case DW_TAG_imported_unit: {
            Dwarf_Attribute attr;
            Dwarf_Die unit;
            if (nesting < NESTING_MAX &&
                mt_dw.dwarf_formref_die(mt_dw.dwarf_attr(&child, DW_AT_import, &attr), &unit) !=
                    NULL)
                collect(&unit, list, nesting + 1);
            break;
        }
        default: break;
        }
    } while (mt_dw.dwarf_siblingof(&child, &child) == 0);
}

/* By address (mt_heap_sort: no allocation, and no call into the C library's qsort, which
 * may allocate, from inside the tracker). */
static int by_low(const void *a, const void *b)
{
    Dwarf_Addr x = ((const fn_range_t *)a)->low, y = ((const fn_range_t *)b)->low;
    return (x > y) - (x < y);
}

static size_t slot_of(const void *unit, size_t size)
{
    uint64_t h = (uint64_t)(uintptr_t)unit * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h >> 32) & (size - 1);
}

/* The index of unit cu, built the first time; NULL when it cannot be kept (out of the
 * tracker's memory: the caller then finds nothing, and the report shows the symbol). */
static const unit_index_t *index_of(Dwarf_Die *cu)
{
    if (indexes.units != NULL)
        for (size_t i = slot_of(cu->addr, indexes.size);; i = (i + 1) & (indexes.size - 1)) {
            if (indexes.units[i].unit == cu->addr)
                return &indexes.units[i];
            if (indexes.units[i].unit == NULL)
                break;
        }
    if (indexes.units == NULL || (indexes.used + 1) * 4 > indexes.size * 3) {
        size_t size = indexes.size != 0 ? 2 * indexes.size : 64;
        unit_index_t *fresh = mt_mem_calloc(size, sizeof *fresh);
        if (fresh == NULL)
            return NULL;
        for (size_t i = 0; i < indexes.size; i++) {
            if (indexes.units[i].unit == NULL)
                continue;
            size_t j = slot_of(indexes.units[i].unit, size);
            while (fresh[j].unit != NULL)
                j = (j + 1) & (size - 1);
            fresh[j] = indexes.units[i];
        }
        mt_mem_free(indexes.units);
        indexes.units = fresh;
        indexes.size = size;
    }
    fn_list_t list = {NULL, 0, 0, false};
    collect(cu, &list, 0);
    if (list.failed) {
        mt_mem_free(list.fns);
        return NULL;
    }
    mt_heap_sort(list.fns, list.n, sizeof *list.fns, by_low);
    size_t i = slot_of(cu->addr, indexes.size);
    while (indexes.units[i].unit != NULL)
        i = (i + 1) & (indexes.size - 1);
    indexes.units[i] = (unit_index_t){cu->addr, list.fns, list.n};
    indexes.used++;
    return &indexes.units[i];
}

/* The function whose code holds addr, or NULL. */
static const fn_range_t *function_at(const unit_index_t *index, Dwarf_Addr addr)
{
    size_t lo = 0, hi = index->n; /* the first entry whose low is above addr: hi */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (index->fns[mid].low <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* Functions do not overlap; a few entries back are looked at all the same (one
     * function listed twice, through an imported unit). */
    for (size_t k = 0; k < 8 && hi > k; k++) {
        const fn_range_t *f = &index->fns[hi - 1 - k];
        if (addr < f->high)
            return f;
    }
    return NULL;
}

/* Scopes that may hold code, which libdw's walk goes into when they hold addr. */
static bool holds_code(int tag)
{
    switch (tag) {
    case DW_TAG_lexical_block:
    case DW_TAG_inlined_subroutine:
    case DW_TAG_subprogram:
    case DW_TAG_with_stmt:
    case DW_TAG_catch_block:
    case DW_TAG_try_block:
    case DW_TAG_entry_point: return true;
    default: return false;
    }
}

/* ---- the units of a module ------------------------------------------------------------ */

typedef struct unit_range {
    Dwarf_Addr low, high; /* [low, high), the module's addresses */
    Dwarf_Die *cu;        /* libdwfl's, alive as long as the module */
} unit_range_t;

typedef struct module_units {
    Dwfl_Module *mod; /* NULL: empty */
    Dwarf_Addr bias;
    unit_range_t *units; /* sorted by low; NULL when they could not be listed */
    size_t n;
} module_units_t;

#define MODULES_MAX 256u /* modules whose units were listed; more are searched as before */

static module_units_t modules[MODULES_MAX];

static int unit_by_low(const void *a, const void *b)
{
    Dwarf_Addr x = ((const unit_range_t *)a)->low, y = ((const unit_range_t *)b)->low;
    return (x > y) - (x < y);
}

/* The units of mod, listed the first time; NULL when there is no room. */
static const module_units_t *units_of(Dwfl_Module *mod)
{
    size_t k = 0;
    while (k < MODULES_MAX && modules[k].mod != NULL && modules[k].mod != mod)
        k++;
    if (k == MODULES_MAX)
        return NULL;
    if (modules[k].mod == mod)
        return &modules[k];
    module_units_t *m = &modules[k];
    size_t room = 0;
    Dwarf_Die *cu = NULL;
    Dwarf_Addr bias = 0;
    while ((cu = mt_dw.dwfl_module_nextcu(mod, cu, &bias)) != NULL) {
        Dwarf_Addr base = 0, start = 0, end = 0;
        ptrdiff_t at = 0;
        while ((at = mt_dw.dwarf_ranges(cu, at, &base, &start, &end)) > 0) {
            if (end <= start)
                continue;
            if (m->n == room) {
                room = room != 0 ? 2 * room : 64;
                unit_range_t *more = mt_mem_alloc(room * sizeof *more);
                if (more == NULL) {
                    mt_mem_free(m->units);
                    *m = (module_units_t){mod, bias, NULL, 0};
                    return m;
                }
                if (m->n > 0)
                    memcpy(more, m->units, m->n * sizeof *more);
                mt_mem_free(m->units);
                m->units = more;
            }
            m->units[m->n++] = (unit_range_t){start, end, cu};
        }
        m->bias = bias;
    }
    m->mod = mod;
    mt_heap_sort(m->units, m->n, sizeof *m->units, unit_by_low);
    return m;
}

Dwarf_Die *mt_dwarf_unit_at(Dwfl_Module *mod, Dwarf_Addr addr, Dwarf_Addr *bias)
{
    Dwarf_Die *cu = mt_dw.dwfl_module_addrdie(mod, addr, bias);
    if (cu != NULL && mt_dw.dwarf_haspc(cu, addr - *bias) > 0)
        return cu;
    const module_units_t *m = units_of(mod);
    if (m == NULL || m->units == NULL) { /* every unit asked in turn, as libdw would */
        cu = NULL;
        while ((cu = mt_dw.dwfl_module_nextcu(mod, cu, bias)) != NULL)
            if (mt_dw.dwarf_haspc(cu, addr - *bias) > 0)
                return cu;
        return NULL;
    }
    *bias = m->bias;
    Dwarf_Addr at = addr - m->bias;
    size_t lo = 0, hi = m->n; /* the first unit whose low is above at: hi */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->units[mid].low <= at)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = 0; k < 8 && hi > k; k++)
        if (at < m->units[hi - 1 - k].high)
            return m->units[hi - 1 - k].cu;
    return NULL;
}

/* ---- the functions of a unit ---------------------------------------------------------- */

int mt_dwarf_functions(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die *out, int max)
{
    const unit_index_t *index = index_of(cu);
    const fn_range_t *fn = index != NULL ? function_at(index, addr) : NULL;
    if (fn == NULL || max <= 0)
        return 0;
    /* The path down from the function to the innermost scope that holds addr. */
    Dwarf_Die path[MT_DWARF_DEEPEST];
    int depth = 0;
    path[depth++] = fn->die;
    while (depth < MT_DWARF_DEEPEST) {
        Dwarf_Die child;
        bool found = false;
        if (mt_dw.dwarf_child(&path[depth - 1], &child) == 0) {
            do
                found = holds_code(mt_dw.dwarf_tag(&child)) && mt_dw.dwarf_haspc(&child, addr) > 0;
            while (!found && mt_dw.dwarf_siblingof(&child, &child) == 0);
        }
        if (!found)
            break;
        path[depth++] = child;
    }
    /* Its function scopes, innermost first, down to the first real function. */
    int n = 0;
    for (int i = depth; i-- > 0 && n < max;) {
        int tag = mt_dw.dwarf_tag(&path[i]);
        if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
            continue;
        out[n++] = path[i];
        if (tag == DW_TAG_subprogram)
            break;
    }
    return n;
}
#else
typedef int mt_dwarf_scopes_unused_t; /* a translation unit holds a declaration */
#endif
