/* libdw.c - elfutils' libdw, opened with dlopen() the first time a symbol is asked for: a
 * tracked program pays nothing for it at start, and a program linked with libmemtrack.a needs
 * no extra library. The functions the symbolizer uses (base/symbolize.c, the names and lines
 * of return addresses; base/symbolize_code.c, what a function's code is) and the few steps
 * both take: the module and the unit of an address, the scopes around it.
 *
 * Not thread-safe, as libdw is not: callers hold the symbols' lock (mt_symbols_lock_all).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <unistd.h>

#include "base/libdw.h"
#include "base/symbol_names.h"

#ifdef MT_HAVE_LIBDW

mt_libdw_t mt_dw;

/* Reports the process's mapped objects to libdwfl (again: dlopen()ed ones appear). */
bool mt_dw_report_modules_locked(void)
{
    mt_dw.dwfl_report_begin_add(mt_dw.dwfl);
    int rc = mt_dw.dwfl_linux_proc_report(mt_dw.dwfl, getpid());
    return mt_dw.dwfl_report_end(mt_dw.dwfl, NULL, NULL) == 0 && rc == 0;
}

static void open_locked(void)
{
    mt_dw.tried = true;
    void *lib = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL)
        return;
#define MT_DW_RESOLVE(name)                                                                        \
    if ((*(void **)&mt_dw.name = dlsym(lib, #name)) == NULL)                                       \
        return;
    MT_DW_FUNCTIONS(MT_DW_RESOLVE)
#undef MT_DW_RESOLVE
    mt_dw.callbacks.find_elf = mt_dw.dwfl_linux_proc_find_elf;
    /* Separate debug information by build id only (/usr/lib/debug/.build-id), never through
     * debuginfod, which dwfl_standard_find_debuginfo tries last: its client starts libcurl,
     * whose set-up runs OpenSSL's, and at exit a program's OpenSSL may be cleaned up already
     * (that crashed the report, seen under ASan). A report at exit must not start a network
     * client in someone else's process either. */
    mt_dw.callbacks.find_debuginfo = mt_dw.dwfl_build_id_find_debuginfo;
    mt_dw.dwfl = mt_dw.dwfl_begin(&mt_dw.callbacks);
    if (mt_dw.dwfl != NULL)
        (void)mt_dw_report_modules_locked();
}

/* The compilation unit whose code holds addr, and the bias of its addresses. libdw finds
 * it through .debug_aranges, which clang does not write (and in a program that mixes
 * compilers, libdw may then answer with a neighbouring unit): unless the unit found
 * really holds addr, every unit's ranges are asked in turn. */
Dwarf_Die *mt_dw_unit_locked(Dwfl_Module *mod, Dwarf_Addr addr, Dwarf_Addr *bias)
{
    Dwarf_Die *cu = mt_dw.dwfl_module_addrdie(mod, addr, bias);
    if (cu != NULL && mt_dw.dwarf_haspc(cu, addr - *bias) > 0)
        return cu;
    cu = NULL;
    while ((cu = mt_dw.dwfl_module_nextcu(mod, cu, bias)) != NULL)
        if (mt_dw.dwarf_haspc(cu, addr - *bias) > 0)
            return cu;
    return NULL;
}

/* The function a scope names: its linkage name when it has one (an inlined copy's come
 * from its abstract definition), else its name. Kept, demangled. */
const char *mt_dw_scope_function_locked(Dwarf_Die *scope)
{
    Dwarf_Attribute attr;
    const char *name = NULL;
    if (mt_dw.dwarf_attr_integrate(scope, DW_AT_linkage_name, &attr) != NULL ||
        mt_dw.dwarf_attr_integrate(scope, DW_AT_MIPS_linkage_name, &attr) != NULL)
        name = mt_dw.dwarf_formstring(&attr);
    if (name == NULL)
        name = mt_dw.dwarf_diename(scope);
    return mt_keep_function(name);
}

/* The scopes around addr in its unit, and among them (chain, innermost first) the chain of
 * inlined copies ending at the real function; returns the chain's length, 0 when none.
 * The caller frees *scopes (libdw's malloc, so the C library's) whatever the answer. */
int mt_dw_scope_chain_locked(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die **scopes,
                             int chain[MT_DW_DEEPEST_CHAIN])
{
    *scopes = NULL;
    int n = mt_dw.dwarf_getscopes(cu, addr, scopes);
    if (n <= 0)
        return 0;
    /* Past an inlined copy, dwarf_getscopes goes on into the scopes of its abstract
     * definition (for variables); the copies that hold addr are the innermost scope's own
     * parents in the unit. */
    Dwarf_Die innermost = (*scopes)[0];
    mt_libc_free(*scopes);
    *scopes = NULL;
    n = mt_dw.dwarf_getscopes_die(&innermost, scopes);

    /* Function scopes, innermost first: a chain of inlined copies ending at the real
     * function. DWARF may nest deeper than is kept: the innermost and the real one stay. */
    int depth = 0;
    for (int i = 0; i < n && depth < MT_DW_DEEPEST_CHAIN; i++) {
        int tag = mt_dw.dwarf_tag(&(*scopes)[i]);
        if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
            continue;
        chain[depth++] = i;
        if (tag == DW_TAG_subprogram)
            break;
    }
    return depth;
}

/* The module of addr in libdwfl's view of the process; NULL without libdw. */
Dwfl_Module *mt_dw_module_locked(Dwarf_Addr addr)
{
    if (!mt_dw.tried)
        open_locked();
    if (mt_dw.dwfl == NULL)
        return NULL;
    Dwfl_Module *mod = mt_dw.dwfl_addrmodule(mt_dw.dwfl, addr);
    if (mod == NULL && mt_dw_report_modules_locked()) /* loaded since we last looked? */
        mod = mt_dw.dwfl_addrmodule(mt_dw.dwfl, addr);
    return mod;
}

#endif /* MT_HAVE_LIBDW */
