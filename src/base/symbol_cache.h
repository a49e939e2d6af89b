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

#ifdef MT_HAVE_LIBDW
/* The level the cache describes return address pc at (0: not at all), filling *out then;
 * path and base are pc's module as dladdr names it. Callers serialize (the symbols' lock). */
int mt_symbol_cache_find(const char *path, uintptr_t base, uintptr_t pc, mt_symbol_t *out);
/* Notes pc's description at level, to be kept by mt_symbol_cache_save. */
void mt_symbol_cache_note(const char *path, uintptr_t base, uintptr_t pc, int level,
                          const mt_symbol_t *sym);
/* The allocation-wrapper rule's answer kept for function number level of return address pc
 * (making: for a place that makes a block, else one that releases it): 0 or 1, -1 when
 * none is kept. */
int mt_symbol_cache_find_wrapper(const char *path, uintptr_t base, uintptr_t pc, unsigned level,
                                 bool making);
/* Notes that answer, to be kept by mt_symbol_cache_save. */
void mt_symbol_cache_note_wrapper(const char *path, uintptr_t base, uintptr_t pc, unsigned level,
                                  bool making, bool answer);
/* Appends what was noted since the last save to the modules' files; silent on failure (a
 * cache that cannot be written is only slower next time). */
void mt_symbol_cache_save(void);

#else /* elsewhere symbols come from dladdr alone: nothing worth keeping */
static inline int mt_symbol_cache_find(const char *path, uintptr_t base, uintptr_t pc,
                                       mt_symbol_t *out)
{
    (void)path, (void)base, (void)pc, (void)out;
    return 0;
}
static inline void mt_symbol_cache_note(const char *path, uintptr_t base, uintptr_t pc, int level,
                                        const mt_symbol_t *sym)
{
    (void)path, (void)base, (void)pc, (void)level, (void)sym;
}
static inline int mt_symbol_cache_find_wrapper(const char *path, uintptr_t base, uintptr_t pc,
                                               unsigned level, bool making)
{
    (void)path, (void)base, (void)pc, (void)level, (void)making;
    return -1;
}
static inline void mt_symbol_cache_note_wrapper(const char *path, uintptr_t base, uintptr_t pc,
                                                unsigned level, bool making, bool answer)
{
    (void)path, (void)base, (void)pc, (void)level, (void)making, (void)answer;
}
static inline void mt_symbol_cache_save(void)
{
}
#endif

#endif /* MT_SYMBOL_CACHE_H */
