/* libdw.h - elfutils' libdw, opened on first use (base/libdw.c).
 */
#ifndef MT_LIBDW_H
#define MT_LIBDW_H

#include "base/platform.h"
#include "base/symbolize.h" /* MT_HAVE_LIBDW */

#ifdef MT_HAVE_LIBDW
#include <dwarf.h>
#include <elfutils/libdwfl.h>

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

/* The functions of libdw the symbolizer calls, found with dlsym when it is first opened. */
typedef struct mt_libdw {
    bool tried;
    Dwfl *dwfl; /* NULL when libdw could not be opened or started */
    Dwfl_Callbacks callbacks;
#define MT_DW_POINTER(name) __typeof__(name) *name;
    MT_DW_FUNCTIONS(MT_DW_POINTER)
#undef MT_DW_POINTER
} mt_libdw_t;
extern MT_HIDDEN mt_libdw_t mt_dw;

/* Each function below needs the symbols' lock held (mt_symbols_lock_all). */
/* Reports the process's mapped objects to libdwfl (again: dlopen()ed ones appear). */
bool mt_dw_report_modules_locked(void);
/* The module of addr in libdwfl's view of the process (libdw opened at the first call);
 * NULL without libdw. */
Dwfl_Module *mt_dw_module_locked(Dwarf_Addr addr);
/* The compilation unit whose code holds addr, and the bias of its addresses. */
Dwarf_Die *mt_dw_unit_locked(Dwfl_Module *mod, Dwarf_Addr addr, Dwarf_Addr *bias);
/* The function a scope names, kept and demangled (its linkage name when it has one). */
const char *mt_dw_scope_function_locked(Dwarf_Die *scope);
/* The scopes around addr in its unit, and among them (chain, innermost first) the chain of
 * inlined copies ending at the real function; returns the chain's length, 0 when none. The
 * caller frees *scopes (libdw's malloc, so the C library's) whatever the answer. */
enum { MT_DW_DEEPEST_CHAIN = 64 };
int mt_dw_scope_chain_locked(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die **scopes,
                             int chain[MT_DW_DEEPEST_CHAIN]);
#endif

#endif /* MT_LIBDW_H */
