/* libdw.h - elfutils' libdw and libdwfl, opened with dlopen() the first time a report needs
 * a line (base/symbolize.c) or what a function's code is (base/symbolize_code.c): a tracked
 * program pays nothing for them at start, and one linked with libmemtrack.a needs no extra
 * library. Their functions are called through mt_dw; the steps both symbolizers take (the
 * module of an address, the name a scope gives its function) are here too.
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
    X(dwfl_module_getsymtab)                                                                       \
    X(dwfl_module_getsymtab_first_global)                                                          \
    X(dwfl_module_getsym_info)                                                                     \
    X(dwfl_module_getsrc_file)                                                                     \
    X(dwfl_lineinfo)                                                                               \
    X(dwarf_haspc)                                                                                 \
    X(dwarf_hasattr)                                                                               \
    X(dwarf_getsrc_die)                                                                            \
    X(dwarf_linesrc)                                                                               \
    X(dwarf_lineno)                                                                                \
    X(dwarf_attr)                                                                                  \
    X(dwarf_formudata)                                                                             \
    X(dwarf_formref_die)                                                                           \
    X(dwarf_getsrcfiles)                                                                           \
    X(dwarf_filesrc)                                                                               \
    X(dwarf_ranges)                                                                                \
    X(dwarf_tag)                                                                                   \
    X(dwarf_child)                                                                                 \
    X(dwarf_siblingof)                                                                             \
    X(dwarf_attr_integrate)                                                                        \
    X(dwarf_formstring)                                                                            \
    X(dwarf_diename)                                                                               \
    X(dwarf_peel_type)

/* libdw's functions, and libdwfl's view of the process once a symbolizer opened it. */
typedef struct mt_libdw {
    bool tried; /* mt_dw_module_locked tried to open libdw and start dwfl */
    Dwfl *dwfl; /* NULL when libdw could not be opened or started */
    Dwfl_Callbacks callbacks;
#define MT_DW_POINTER(name) __typeof__(name) *name;
    MT_DW_FUNCTIONS(MT_DW_POINTER)
#undef MT_DW_POINTER
} mt_libdw_t;

/* libdw's functions; valid once mt_libdw_open() returned true. */
extern MT_HIDDEN mt_libdw_t mt_dw;

/* Opens libdw and finds every function in it; true when all are there. Tried once; callers
 * serialize (the symbols' lock). */
bool mt_libdw_open(void);

/* Each function below needs the symbols' lock held (mt_symbols_lock_all). */
/* Reports the process's mapped objects to libdwfl (again: dlopen()ed ones appear). */
bool mt_dw_report_modules_locked(void);
/* The module of addr in libdwfl's view of the process (libdw opened and the process's
 * modules reported at the first call); NULL without libdw. */
Dwfl_Module *mt_dw_module_locked(Dwarf_Addr addr);
/* The function a scope names, kept and demangled (its linkage name when it has one). */
const char *mt_dw_scope_function_locked(Dwarf_Die *scope);
#endif

#endif /* MT_LIBDW_H */
