/* symbol_cache.h - symbolized addresses kept on disk by module build id (option
 * symbol_cache), so that the next process of the same program names them without opening
 * libdw (base/symbol_cache.c).
 */
#ifndef MT_SYMBOL_CACHE_H
#define MT_SYMBOL_CACHE_H

#include "base/symbolize.h"

/* How far an address was described: its symbol, or its lines too (symbolize.c's levels). */
#define MT_CACHED_SYMBOL 1
#define MT_CACHED_LINES 2

/* The level the cache describes return address pc at (0: not at all), filling *out then;
 * path and base are pc's module as dladdr names it. Callers serialize (the symbols' lock). */
int mt_symbol_cache_find(const char *path, uintptr_t base, uintptr_t pc, mt_symbol_t *out);
/* Notes pc's description at level, to be kept by mt_symbol_cache_save. */
void mt_symbol_cache_note(const char *path, uintptr_t base, uintptr_t pc, int level,
                          const mt_symbol_t *sym);
/* Appends what was noted since the last save to the modules' files; silent on failure (a
 * cache that cannot be written is only slower next time). */
void mt_symbol_cache_save(void);

#endif /* MT_SYMBOL_CACHE_H */
