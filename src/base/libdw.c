/* libdw.c - elfutils' libdw, opened on first use (base/libdw.h), and the steps both
 * symbolizers take (base/symbolize.c, the names and lines of return addresses;
 * base/symbolize_code.c, what a function's code is): libdwfl's view of the process, the
 * module of an address, the name of a scope's function.
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

bool mt_libdw_open(void)
{
    static bool tried, opened;
    if (tried)
        return opened;
    tried = true;
    void *lib = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL)
        return false;
#define MT_DW_RESOLVE(name)                                                                        \
    if ((*(void **)&mt_dw.name = dlsym(lib, #name)) == NULL)                                       \
        return false;
    MT_DW_FUNCTIONS(MT_DW_RESOLVE)
#undef MT_DW_RESOLVE
    opened = true;
    return true;
}

bool mt_dw_report_modules_locked(void)
{
    mt_dw.dwfl_report_begin_add(mt_dw.dwfl);
    int rc = mt_dw.dwfl_linux_proc_report(mt_dw.dwfl, getpid());
    return mt_dw.dwfl_report_end(mt_dw.dwfl, NULL, NULL) == 0 && rc == 0;
}

static void start_dwfl_locked(void)
{
    mt_dw.tried = true;
    if (!mt_libdw_open())
        return;
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

Dwfl_Module *mt_dw_module_locked(Dwarf_Addr addr)
{
    if (!mt_dw.tried)
        start_dwfl_locked();
    if (mt_dw.dwfl == NULL)
        return NULL;
    Dwfl_Module *mod = mt_dw.dwfl_addrmodule(mt_dw.dwfl, addr);
    if (mod == NULL && mt_dw_report_modules_locked()) /* loaded since we last looked? */
        mod = mt_dw.dwfl_addrmodule(mt_dw.dwfl, addr);
    return mod;
}

/* Its linkage name when it has one (an inlined copy's come from its abstract definition),
 * else its name. */
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
#else
typedef int mt_libdw_unused_t; /* a translation unit holds a declaration */
#endif
