/* site.h - where blocks are made and released (allocation kinds and sites, interned to
 * small ids).
 */
#ifndef MT_SITE_H
#define MT_SITE_H

#include "base/buf.h"
#include "base/code_map.h"
#include "base/platform.h"
#include "records/kinds.h"

/* ----------------------------------------------------------------------------------
 * Sites: where blocks are made and released, interned to small ids.
 * ---------------------------------------------------------------------------------- */
typedef struct mt_site {
    const char *file;  /* NULL when only the caller's address is known */
    const char *func;  /* may be NULL */
    const char *owner; /* pool, arena or registrar name, or NULL */
    void *pc;          /* caller's return address for sites without a file */
    int line;
    mt_kind_t kind;
    uint32_t stack;   /* the calls that led here (records/stack.h), or 0 */
    uint32_t base;    /* the same place's site without a stack (itself when it has none) */
#ifndef MT_BARE_METAL /* (where a site is as small as it can be: records/stack.h) */
    /* What it was looked up by: its key's pointers (file and func are copies) and its id,
     * so that a cache entry holding the site can check a place against it (mt_site_here,
     * mt_owned_site_found). */
    const char *file_key, *func_key, *owner_key;
    uint32_t id;
    /* Whose code it lies in (mt_code_owner_t, base/code_map.h), for a site known by a
     * return address: a system library's blocks are counted apart from the program's, and
     * the C++ runtime's listed apart at exit. Never on bare metal, whose C library's blocks
     * are never sited by address (its malloc stays the program's). */
    unsigned char library;
#endif
} mt_site_t;

#define MT_SITE_NONE 0u /* id 0: an unknown site */
uint32_t mt_site_id(const char *file, int line, const char *func, mt_kind_t kind,
                    const char *owner);
uint32_t mt_site_pc(void *pc, mt_kind_t kind);
/* A site known by the caller's address, with an owner (a pool used by untracked code). */
uint32_t mt_site_pc_owner(void *pc, mt_kind_t kind, const char *owner);
/* The same, with the stack that led there (records/stack.h): one site per place and stack. */
uint32_t mt_site_stacked(const char *file, int line, const char *func, mt_kind_t kind,
                         const char *owner, uint32_t stack);
uint32_t mt_site_pc_stacked(void *pc, mt_kind_t kind, const char *owner, uint32_t stack);
/* The site of id's place without its stack: what message caps count by. */
uint32_t mt_site_place(uint32_t id);
const mt_site_t *mt_site_get(uint32_t id);
/* True when site id lies inside a system library or the C++ runtime: its live blocks are
 * listed apart from the program's leaks (unless system_leaks), as records/place.c says. */
static inline bool mt_site_listed_apart(uint32_t id)
{
#ifdef MT_BARE_METAL
    (void)id;
    return false;
#else
    return mt_site_get(id)->library != MT_CODE_PROGRAM;
#endif
}
/* The library of each of the first MT_SITE_SYSTEM_FLAGS sites, one byte a site (site.c):
 * asked inline by every allocation of code built without the flag. */
#define MT_SITE_SYSTEM_FLAGS MT_SMALL(4096u, 1u)
extern MT_HIDDEN unsigned char mt_site_system_flags[MT_SITE_SYSTEM_FLAGS];
/* True when site id lies inside a system library whose blocks are not the program's (the
 * C library's, the loader's: MT_CODE_SYSTEM), counted apart. */
static inline bool mt_site_system(uint32_t id)
{
#ifdef MT_BARE_METAL
    (void)id;
    return false;
#else
    if (MT_LIKELY(id < MT_SITE_SYSTEM_FLAGS))
        return mt_site_system_flags[id] == MT_CODE_SYSTEM;
    return mt_site_get(id)->library == MT_CODE_SYSTEM;
#endif
}
/* Bit 1 << kind for every kind some site has had, set before the site's id is published:
 * a check that needs two kinds to meet (checks/mismatch.c) knows when none have. */
extern MT_HIDDEN _Atomic uint64_t mt_site_kinds_made;
uint32_t mt_site_count(void);
/* True when two sites print the same (same file, line, function, kind, owner and stack). */
bool mt_site_same(uint32_t a, uint32_t b);
/* ---- this thread's cache of sites (site.c), its hit inline in mt_site_at ---------------- */

/* 128 entries, 8 KiB a thread (bare metal: 8, 256 bytes): the places of frees and of
 * allocations without stacks, and the sites of stacks the stacks' cache (records/stack.c)
 * has not kept. An allocation with a stack finds its site in the stack's entry there, so
 * with 256 entries (and 16 KiB more a thread) a churn over 200 places cost 1.5% less a
 * pair, over 64 places 1.7% less. */
#define MT_SITE_CACHE_BITS MT_SMALL(7, 3)

/* An entry's size a power of two (64 bytes, 32 on 32-bit targets), so that a slot's
 * address is its number shifted, not multiplied by 48. A key's kind (plus one) and stack
 * are one word, so that a hit compares them at once; 0 in an empty entry, which no key's is
 * (site.c, key_kind: never -1). */
#define MT_SITE_CACHE_ENTRY_BYTES (UINTPTR_MAX > 0xFFFFFFFFu ? 64u : 32u)
typedef union mt_site_cache_entry {
    struct {
        const char *file, *func, *owner;
        void *pc;
        uint64_t kind_stack;
        int line;
        uint32_t id;
    };
    char room[MT_SITE_CACHE_ENTRY_BYTES];
} mt_site_cache_entry_t;
_Static_assert(sizeof(mt_site_cache_entry_t) == MT_SITE_CACHE_ENTRY_BYTES,
               "a cache entry is a power of two");
/* Never NULL: before a thread's first miss, an empty cache that is never written. */
extern MT_TLS mt_site_cache_entry_t *mt_site_cache;

static inline uint64_t mt_site_kind_stack(int kind, uint32_t stack)
{
    return (uint32_t)(kind + 1) | (uint64_t)stack << 32;
}

/* The cache slot of a key, from its fields: the fields are combined in one chain (each step
 * on the last one's result, so the hit needs no register beyond the arguments' and the
 * cache's), one multiply mixes them upwards, and its top bits are the slot. Lines 131 apart
 * before the kind is added: a kind is below 64. */
static inline unsigned mt_site_cache_slot(const char *file, const void *pc, const char *owner,
                                          int line, int kind, uint32_t stack)
{
    uint32_t h = (stack * 0x85EBCA77u + (unsigned)line) * 131u + (unsigned)kind;
    h ^= (uint32_t)((uintptr_t)file ^ (uintptr_t)pc ^ (uintptr_t)owner);
    return (h * 0x9E3779B1u) >> (32 - MT_SITE_CACHE_BITS);
}

/* mt_site_id(file, line, func, kind, NULL) with its cache's hit inline: an entry point's
 * place when it takes no stack (a free, or stacks off). */
static inline uint32_t mt_site_at(const char *file, int line, const char *func, mt_kind_t kind)
{
    const mt_site_cache_entry_t *e =
        &mt_site_cache[mt_site_cache_slot(file, NULL, NULL, line, (int)kind, 0)];
    if (MT_LIKELY(e->file == file && e->line == line && e->func == func &&
                  e->kind_stack == mt_site_kind_stack((int)kind, 0) && e->owner == NULL))
        return e->id;
    return mt_site_id(file, line, func, kind, NULL);
}

void mt_sites_lock_all(void);
void mt_sites_unlock_all(void);

#endif /* MT_SITE_H */
