/* site.h - where blocks are made and released (allocation kinds and sites, interned to
 * small ids).
 */
#ifndef MT_SITE_H
#define MT_SITE_H

#include "base/buf.h"
#include "base/platform.h"

/* ----------------------------------------------------------------------------------
 * Allocation kinds: how a block was made or released. One table; every printer uses it.
 * X(name, text, family): family is the kind of release that matches the allocation.
 * ---------------------------------------------------------------------------------- */
#define MT_KIND_LIST(X)                                                                            \
    X(MALLOC, "malloc", FREE)                                                                      \
    X(CALLOC, "calloc", FREE)                                                                      \
    X(REALLOC, "realloc", FREE)                                                                    \
    X(REALLOCARRAY, "reallocarray", FREE)                                                          \
    X(STRDUP, "strdup", FREE)                                                                      \
    X(STRNDUP, "strndup", FREE)                                                                    \
    X(ALIGNED_ALLOC, "aligned_alloc", FREE)                                                        \
    X(POSIX_MEMALIGN, "posix_memalign", FREE)                                                      \
    X(MEMALIGN, "memalign", FREE)                                                                  \
    X(VALLOC, "valloc", FREE)                                                                      \
    X(NEW, "new", DELETE)                                                                          \
    X(NEW_ARRAY, "new[]", DELETE_ARRAY)                                                            \
    X(POOL, "pool", POOL_FREE)                                                                     \
    X(ARENA, "arena", ARENA_RELEASE)                                                               \
    X(REGISTERED, "registered", UNREGISTER)                                                        \
    X(FREE, "free", NONE)                                                                          \
    X(DELETE, "delete", NONE)                                                                      \
    X(DELETE_ARRAY, "delete[]", NONE)                                                              \
    X(POOL_FREE, "pool free", NONE)                                                                \
    X(ARENA_RELEASE, "arena release", NONE)                                                        \
    X(UNREGISTER, "unregister", NONE)                                                              \
    /* where pool.c, arena.c and register.c find errors (never an allocation's kind) */            \
    X(POOL_ALLOC, "pool alloc", NONE)                                                              \
    X(POOL_CLEAR, "pool clear", NONE)                                                              \
    X(POOL_DESTROY, "pool destroy", NONE)                                                          \
    X(POOL_CHECK, "pool check", NONE)                                                              \
    X(ARENA_ALLOC, "arena alloc", NONE)                                                            \
    X(ARENA_RESET, "arena reset", NONE)                                                            \
    X(ARENA_REWIND, "arena rewind", NONE)                                                          \
    X(ARENA_DESTROY, "arena destroy", NONE)                                                        \
    X(REGISTER, "register", NONE)                                                                  \
    X(CHECK, "check", NONE)                                                                        \
    X(PERIODIC, "periodic check", NONE)                                                            \
    X(CRASH, "crash report", NONE)                                                                 \
    X(EXIT, "exit", NONE)                                                                          \
    X(NONE, "?", NONE)

typedef enum {
#define MT_KIND_ENUM(name, text, family) MT_KIND_##name,
    MT_KIND_LIST(MT_KIND_ENUM)
#undef MT_KIND_ENUM
        MT_KIND_COUNT
} mt_kind_t;

extern const char *const mt_kind_names[MT_KIND_COUNT];
extern const unsigned char mt_kind_release[MT_KIND_COUNT];

/* True for the kinds of sites that make owned blocks. */
static inline bool mt_kind_owned(mt_kind_t kind)
{
    return kind == MT_KIND_POOL || kind == MT_KIND_ARENA || kind == MT_KIND_REGISTERED;
}

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
} mt_site_t;

#define MT_SITE_NONE 0u /* id 0: an unknown site */
uint32_t mt_site_id(const char *file, int line, const char *func, mt_kind_t kind,
                    const char *owner);
uint32_t mt_site_pc(void *pc, mt_kind_t kind);
/* A site known by the caller's address, with an owner (a pool used by untracked code). */
uint32_t mt_site_pc_owner(void *pc, mt_kind_t kind, const char *owner);
const mt_site_t *mt_site_get(uint32_t id);
uint32_t mt_site_count(void);
/* True when two sites print the same (same file, line, function, kind and owner). */
bool mt_site_same(uint32_t a, uint32_t b);
void mt_sites_lock_all(void);
void mt_sites_unlock_all(void);

#endif /* MT_SITE_H */
