/* kinds.h - allocation kinds: how a block was made or released, and where an error was found.
 * One table, X(name, text, family) (family: the kind of release that matches the
 * allocation); every printer, parser and the report tool use it. Nothing here calls
 * anything: the tool includes it too.
 */
#ifndef MT_KINDS_H
#define MT_KINDS_H

#include <stdbool.h>

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
    X(POOL_MARK, "pool mark", NONE)                                                                \
    X(ARENA_ALLOC, "arena alloc", NONE)                                                            \
    X(ARENA_RESET, "arena reset", NONE)                                                            \
    X(ARENA_REWIND, "arena rewind", NONE)                                                          \
    X(ARENA_DESTROY, "arena destroy", NONE)                                                        \
    X(REGISTER, "register", NONE)                                                                  \
    X(CHECK, "check", NONE)                                                                        \
    X(PERIODIC, "periodic check", NONE)                                                            \
    X(CRASH, "crash report", NONE)                                                                 \
    X(EXIT, "exit", NONE)                                                                          \
    X(PAGE_GUARD, "page guard", NONE) /* an access that faulted there (checks/page_guard.c) */     \
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

/* The kind whose text is name (as a report names it), or MT_KIND_NONE. */
mt_kind_t mt_kind_named(const char *name);

#endif /* MT_KINDS_H */
