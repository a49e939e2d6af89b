/* pe_file.h - what the report tool reads of a PE file (a Windows .exe or .dll) built by
 * mingw-w64's gcc with -g: the functions its COFF symbol table names, and its DWARF, which
 * GNU ld keeps in sections named through the COFF string table (.debug_info...), handed to
 * libdw as an ELF image in memory that holds those sections alone. Every offset and size is
 * checked against the file: a damaged or hostile file gives nothing, never a bad read.
 */
#ifndef MT_TOOLS_PE_FILE_H
#define MT_TOOLS_PE_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "module_file.h"

typedef struct pe_file {
    module_symbol_t *syms; /* malloc'd; names point into names */
    size_t nsyms;
    char *names;              /* malloc'd, the names one after another */
    unsigned char *debug_elf; /* malloc'd ELF image of the .debug_* sections, or NULL */
    size_t debug_elf_size;
} pe_file_t;

/* True when image (size bytes) is a PE file; out then holds what it has (freed with
 * pe_file_free, even when it has no symbols or no DWARF). */
bool pe_file_read(const unsigned char *image, size_t size, pe_file_t *out);
void pe_file_free(pe_file_t *pe);

#endif /* MT_TOOLS_PE_FILE_H */
