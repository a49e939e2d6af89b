/* site.h - where blocks are made and released (allocation kinds and sites, interned to
 * small ids).
 */
#ifndef MT_SITE_H
#define MT_SITE_H

#include "base/buf.h"
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
    uint32_t stack; /* the calls that led here (records/stack.h), or 0 */
    uint32_t base;  /* the same place's site without a stack (itself when it has none) */
    /* What it was looked up by: its key's pointers (file and func are copies) and its id,
     * so that a cache entry holding the site can check a place against it (mt_site_here). */
    const char *file_key, *func_key;
    uint32_t id;
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
/* Site id with the given stack instead of its own (id itself when stack is 0). */
uint32_t mt_site_with_stack(uint32_t id, uint32_t stack);
/* The site of id's place without its stack: what message caps count by. */
uint32_t mt_site_place(uint32_t id);
const mt_site_t *mt_site_get(uint32_t id);
/* Bit 1 << kind for every kind some site has had, set before the site's id is published:
 * a check that needs two kinds to meet (checks/mismatch.c) knows when none have. */
extern _Atomic uint64_t mt_site_kinds_made;
uint32_t mt_site_count(void);
/* True when two sites print the same (same file, line, function, kind, owner and stack). */
bool mt_site_same(uint32_t a, uint32_t b);
void mt_sites_lock_all(void);
void mt_sites_unlock_all(void);

#endif /* MT_SITE_H */
