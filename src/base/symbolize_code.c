/* symbolize_code.c - what a function's code is, from the debug information, for the
 * allocation-wrapper rule (records/wrapper.c): its ranges and size, what it returns, whether
 * it takes a pointer; found by a return address and the function's level there (0 the
 * innermost inlined copy), or by a source line and name, for a function whose frame is not
 * on the stack (it jumped to the allocation). Under the symbols' lock, as every use of libdw
 * (base/libdw.c).
 */
#define _GNU_SOURCE
#include <string.h>

#include "base/dwarf_scopes.h"
#include "base/libdw.h"
#include "base/options.h"
#include "base/symbol_names.h"
#include "base/symbolize.h"

#ifdef MT_HAVE_LIBDW
/* What the function of scope `fn` returns, from its type (an inlined copy's and a
 * declaration's through their abstract origin or specification). */
static mt_returns_t returns_locked(Dwarf_Die *fn)
{
    Dwarf_Attribute attr;
    Dwarf_Die type;
    if (mt_dw.dwarf_attr_integrate(fn, DW_AT_type, &attr) == NULL)
        return MT_RETURNS_OTHER; /* void */
    if (mt_dw.dwarf_formref_die(&attr, &type) == NULL || mt_dw.dwarf_peel_type(&type, &type) != 0)
        return MT_RETURNS_UNKNOWN;
    int tag = mt_dw.dwarf_tag(&type);
    return tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
                   tag == DW_TAG_rvalue_reference_type
               ? MT_RETURNS_POINTER
               : MT_RETURNS_OTHER;
}

static bool is_pointer_type_locked(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    Dwarf_Die type;
    if (mt_dw.dwarf_attr_integrate(die, DW_AT_type, &attr) == NULL ||
        mt_dw.dwarf_formref_die(&attr, &type) == NULL || mt_dw.dwarf_peel_type(&type, &type) != 0)
        return false;
    int tag = mt_dw.dwarf_tag(&type);
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
        if ((mt_dw.dwarf_attr(&origin, DW_AT_abstract_origin, &attr) != NULL ||
             mt_dw.dwarf_attr(&origin, DW_AT_specification, &attr) != NULL) &&
            mt_dw.dwarf_formref_die(&attr, &origin) == NULL)
            return false;
    if (mt_dw.dwarf_child(&origin, &child) != 0)
        return false;
    for (int n = 0; n < 64; n++) {
        if (mt_dw.dwarf_tag(&child) == DW_TAG_formal_parameter && is_pointer_type_locked(&child))
            return true;
        if (mt_dw.dwarf_siblingof(&child, &child) != 0)
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
    out->func = mt_dw_scope_function_locked(fn);
    out->inlined = mt_dw.dwarf_tag(fn) == DW_TAG_inlined_subroutine;
    while ((at = mt_dw.dwarf_ranges(fn, at, &base, &start, &end)) > 0) {
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

#ifdef MT_HAVE_LIBDW
/* One question, asked on the symbolizer's deep stack (mt_symbols_run_deep_locked). */
typedef struct question {
    void *pc; /* mt_symbolize_function's, or NULL for mt_symbolize_source's */
    unsigned level;
    const char *file, *func;
    int line;
    const void *in_module;
    mt_function_code_t *out;
    bool found;
} question_t;

static void function_at_locked(void *arg)
{
    question_t *q = arg;
    Dwarf_Addr addr = (Dwarf_Addr)(uintptr_t)q->pc - 1, bias = 0;
    Dwfl_Module *mod = mt_dw_module_locked(addr);
    Dwarf_Die *cu = mod != NULL ? mt_dwarf_unit_at(mod, addr, &bias) : NULL;
    Dwarf_Die chain[MT_DWARF_DEEPEST];
    int depth = cu != NULL ? mt_dwarf_functions(cu, addr - bias, chain, MT_DWARF_DEEPEST) : 0;
    int at = depth > 0 ? chain_index((int)q->level, depth) : -1;
    if (at >= 0) {
        describe_locked(&chain[at], addr - bias, bias, q->out);
        q->found = true;
    }
}

static void function_of_source_locked(void *arg)
{
    question_t *q = arg;
    Dwfl_Module *mod = mt_dw_module_locked((Dwarf_Addr)(uintptr_t)q->in_module);
    /* The line table names files by their full path: a relative __FILE__ is looked up by
     * its last component, and the lines found must end with the whole of it. */
    const char *file = q->file, *base = mt_base_name(file);
    Dwfl_Line **lines = NULL;
    size_t nlines = 0;
    if (mod == NULL || mt_dw.dwfl_module_getsrc_file(mod, file[0] == '/' ? file : base, q->line, 0,
                                                     &lines, &nlines) != 0)
        nlines = 0;
    size_t flen = strlen(file);
    for (size_t i = 0; i < nlines && !q->found; i++) {
        Dwarf_Addr addr = 0, bias = 0;
        const char *name = mt_dw.dwfl_lineinfo(lines[i], &addr, NULL, NULL, NULL, NULL);
        size_t nlen = name != NULL ? strlen(name) : 0;
        if (nlen < flen || strcmp(name + nlen - flen, file) != 0 ||
            (nlen > flen && name[nlen - flen - 1] != '/'))
            continue;
        Dwarf_Die *cu = mt_dwarf_unit_at(mod, addr, &bias);
        Dwarf_Die chain[MT_DWARF_DEEPEST];
        int depth = cu != NULL ? mt_dwarf_functions(cu, addr - bias, chain, MT_DWARF_DEEPEST) : 0;
        if (depth > 0 && named(mt_dw.dwarf_diename(&chain[0]), q->func)) {
            describe_locked(&chain[0], addr - bias, bias, q->out);
            q->found = true;
        }
    }
    mt_libc_free(lines);
}

static bool ask(void (*fn)(void *), question_t *q)
{
    mt_busy++;
    mt_symbols_lock_all();
    mt_symbols_run_deep_locked(fn, q);
    mt_symbols_unlock_all();
    mt_busy--;
    return q->found;
}
#endif

bool mt_symbolize_function(void *pc, unsigned level, mt_function_code_t *out)
{
    memset(out, 0, sizeof *out);
#ifdef MT_HAVE_LIBDW
    mt_options_init();
    if (pc == NULL || !mt_opt.symbolize)
        return false;
    question_t q = {.pc = pc, .level = level, .out = out};
    return ask(function_at_locked, &q);
#else
    (void)pc;
    (void)level;
    return false;
#endif
}

bool mt_symbolize_source(const char *file, int line, const char *func, const void *in_module,
                         mt_function_code_t *out)
{
    memset(out, 0, sizeof *out);
#ifdef MT_HAVE_LIBDW
    mt_options_init();
    if (file == NULL || func == NULL || line <= 0 || in_module == NULL || !mt_opt.symbolize)
        return false;
    question_t q = {.file = file, .func = func, .line = line, .in_module = in_module, .out = out};
    return ask(function_of_source_locked, &q);
#else
    (void)file;
    (void)line;
    (void)func;
    (void)in_module;
    return false;
#endif
}
