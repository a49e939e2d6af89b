/* dw_lib.h - elfutils' libdw and libelf for the report tool, opened with dlopen() the first
 * time a saved report names a frame by module and offset (saved_frames.c): the tool runs
 * without them (the frames then stay as the program named them), as the library does, and
 * the package only recommends libdw1.
 */
#ifndef MT_TOOLS_DW_LIB_H
#define MT_TOOLS_DW_LIB_H

#include <stdbool.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>

#define DW_LIB_FUNCTIONS(X)                                                                        \
    X(elf_version)                                                                                 \
    X(elf_begin)                                                                                   \
    X(elf_memory)                                                                                  \
    X(elf_end)                                                                                     \
    X(elf_kind)                                                                                    \
    X(elf_nextscn)                                                                                 \
    X(elf_getdata)                                                                                 \
    X(elf_strptr)                                                                                  \
    X(gelf_getehdr)                                                                                \
    X(gelf_getshdr)                                                                                \
    X(gelf_getsym)                                                                                 \
    X(dwarf_begin_elf)                                                                             \
    X(dwarf_end)                                                                                   \
    X(dwarf_addrdie)                                                                               \
    X(dwarf_getsrc_die)                                                                            \
    X(dwarf_linesrc)                                                                               \
    X(dwarf_lineno)                                                                                \
    X(dwarf_child)                                                                                 \
    X(dwarf_siblingof)                                                                             \
    X(dwarf_haspc)                                                                                 \
    X(dwarf_tag)                                                                                   \
    X(dwarf_attr)                                                                                  \
    X(dwarf_attr_integrate)                                                                        \
    X(dwarf_formstring)                                                                            \
    X(dwarf_formudata)                                                                             \
    X(dwarf_getsrcfiles)                                                                           \
    X(dwarf_filesrc)

typedef struct dw_lib {
#define DW_LIB_POINTER(name) __typeof__(name) *name;
    DW_LIB_FUNCTIONS(DW_LIB_POINTER)
#undef DW_LIB_POINTER
} dw_lib_t;

/* libdw's and libelf's functions; valid once dw_lib_open() returned true. */
extern dw_lib_t dw;

/* Opens libdw (and libelf, which it needs) once; true when every function is there. */
bool dw_lib_open(void);

#endif /* MT_TOOLS_DW_LIB_H */
