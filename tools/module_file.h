/* module_file.h - a program or library file read on the host, whatever machine it was built
 * for: its functions by name and its code's source lines from its DWARF, for frames a saved
 * report names by module, function and offset (saved_frames.c). ELF files (every Linux
 * target: libdw reads foreign machines' DWARF offline) and PE files (mingw-w64's gcc keeps
 * DWARF sections and a COFF symbol table in the .exe: pe_file.c).
 */
#ifndef MT_TOOLS_MODULE_FILE_H
#define MT_TOOLS_MODULE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A function of the symbol table: its name, link-time address and size (0: unknown). */
typedef struct module_symbol {
    const char *name;
    uint64_t addr, size;
} module_symbol_t;

typedef struct module_file module_file_t;

/* The file at path (a regular file, never a FIFO or a device), or NULL when it is not an
 * ELF or PE file this tool reads. Needs libdw (dw_lib.h). */
module_file_t *module_file_open(const char *path);
/* Closes it, and frees every string its answers gave. */
void module_file_close(module_file_t *m);

/* The functions named name that hold offset (a static function may have namesakes in
 * other files): up to max of them into out; returns how many there are. */
size_t module_file_functions(const module_file_t *m, const char *name, uint64_t offset,
                             module_symbol_t *out, size_t max);

/* One function the code at an address stands for: the innermost is the function the
 * address is in (its line the line table's); each next one is the function the previous
 * was inlined into (its line that of the inlined call). */
typedef struct code_level {
    const char *func, *file, *dir; /* dir: the unit's compilation directory, or NULL */
    long line;
} code_level_t;

/* The source of the code at link-time address addr (a return address minus one: the call),
 * innermost first, into levels[0..max); 0 when the DWARF says nothing of it. */
size_t module_file_lines(module_file_t *m, uint64_t addr, code_level_t *levels, size_t max);

/* The difference between the addresses a module ran at and its link-time ones, once a frame
 * found it (it tells a static function from its namesakes). */
bool module_file_bias(const module_file_t *m, uint64_t *bias);
void module_file_set_bias(module_file_t *m, uint64_t bias);

#endif /* MT_TOOLS_MODULE_FILE_H */
