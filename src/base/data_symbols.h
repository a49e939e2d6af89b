/* data_symbols.h - a data address turned into the variable that holds it (libdw, opened
 * lazily), for the leak report's holders: "held by g_cache at cache.c:12".
 */
#ifndef MT_DATA_SYMBOLS_H
#define MT_DATA_SYMBOLS_H

#include "base/platform.h"

typedef struct mt_data_symbol {
    const char *name; /* the variable (as declared, from the debug information; else the
                         symbol's name), NULL when none is known */
    uintptr_t start;  /* where the variable starts (addr - start: the word's offset) */
    const char *file; /* where it is declared, NULL without debug information */
    int line;
    const char *func;   /* a static variable declared inside a function: the function */
    bool external;      /* visible to other files (not static) */
    const char *module; /* the object file holding it (program or library), or NULL */
} mt_data_symbol_t;

/* Describes the variable holding addr (a word of a module's .data or .bss); true when a
 * name was found. Strings stay valid for the life of the process. Takes its own lock;
 * never allocates through the tracker. Not async-signal-safe. Option symbolize=0 keeps
 * it to the dynamic symbol table. */
bool mt_symbolize_data(uintptr_t addr, mt_data_symbol_t *out);
/* Around fork: its lock. */
void mt_data_symbols_lock_all(void);
void mt_data_symbols_unlock_all(void);

#endif /* MT_DATA_SYMBOLS_H */
