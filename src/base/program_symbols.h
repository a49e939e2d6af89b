/* program_symbols.h - the program's own functions by name from its file's symbol table,
 * where no libdw reads its debug information (the other targets, README "Platforms").
 */
#ifndef MT_PROGRAM_SYMBOLS_H
#define MT_PROGRAM_SYMBOLS_H

#include "base/platform.h"

/* The function of the program's own code that return address pc returns into: its name,
 * valid until the next call (the caller keeps a copy), with pc's offset from its start and
 * its size (0: unknown); NULL when no function the table names holds pc (a stripped
 * program, bare metal). ELF's .symtab (base/program_symbols_elf.c), the COFF symbol table
 * mingw-w64 leaves in a PE file (base/platform_windows.c). The caller serializes calls
 * (symbolize.c's lock). */
const char *mt_program_function(uintptr_t pc, uintptr_t *offset, size_t *size);

#endif /* MT_PROGRAM_SYMBOLS_H */
