/* libdw.h - elfutils' libdw and libdwfl, opened with dlopen() the first time a report needs
 * a line (base/symbolize.c): a tracked program pays nothing for them at start, and one
 * linked with libmemtrack.a needs no extra library. Their functions are called through
 * mt_dw.
 */
#ifndef MT_LIBDW_H
#define MT_LIBDW_H

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
    X(dwarf_diename)

typedef struct mt_libdw {
#define MT_DW_POINTER(name) __typeof__(name) *name;
    MT_DW_FUNCTIONS(MT_DW_POINTER)
#undef MT_DW_POINTER
} mt_libdw_t;

/* libdw's functions; valid once mt_libdw_open() returned true. */
extern mt_libdw_t mt_dw;

/* Opens libdw and finds every function in it; true when all are there. Tried once; callers
 * serialize (the symbols' lock). */
bool mt_libdw_open(void);
#endif

#endif /* MT_LIBDW_H */
