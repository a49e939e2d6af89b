/* words.h - the kinds of heap error and of bad pointer, each named once: X(name, text).
 * Every message, report and the report tool use these words. Nothing here calls anything.
 */
#ifndef MT_WORDS_H
#define MT_WORDS_H

#define MT_ERROR_LIST(X)                                                                           \
    X(OVERRUN, "overrun")                                                                          \
    X(UNDERRUN, "underrun")                                                                        \
    /* pools, arenas and registered blocks (pool.c, arena.c, register.c) */                        \
    X(POOL_DOUBLE_RELEASE, "pool double release")                                                  \
    X(POOL_INTERIOR_RELEASE, "pool release of an interior pointer")                                \
    X(POOL_FOREIGN_RELEASE, "pool release of a foreign pointer")                                   \
    X(POOL_WRITE_AFTER_RELEASE, "pool write after release")                                        \
    X(POOL_LIVE_AT_DESTROY, "pool destroyed with live objects")                                    \
    X(POOL_LIVE_AT_MARK, "pool objects left at a mark")                                            \
    X(ARENA_WRITE_AFTER_RELEASE, "arena write after release")                                      \
    X(ARENA_BAD_MARK, "arena rewind to a bad mark")                                                \
    X(OWNED_FREE, "free of pool, arena or registered memory")                                      \
    X(REGISTER_CONFLICT, "register over a live block")                                             \
    X(UNREGISTER_UNKNOWN, "unregister of an unknown block")                                        \
    X(UNREGISTER_OWNER, "unregister by another owner")                                             \
    MT_ERROR_LIST_CXX(X)                                                                           \
    /* freed blocks and pointers the tracker never made */                                         \
    X(DOUBLE_FREE, "double free") /* also realloc of a freed block */                              \
    X(WRITE_AFTER_FREE, "write after free")                                                        \
    X(INVALID_FREE, "invalid free")     /* free or realloc of a pointer: see what */               \
    X(USE_AFTER_FREE, "use after free") /* an access that faulted at a page guard */

/* A block released by the wrong family: new[] by delete, new by free... (mismatch.c);
 * a sized delete given another size than the block's (the object deleted through a base
 * class without a virtual destructor): its error's extent is the size given. */
#define MT_ERROR_LIST_CXX(X)                                                                       \
    X(MISMATCH, "mismatch")                                                                        \
    X(DELETE_SIZE, "delete size")

typedef enum {
#define MT_ERROR_ENUM(name, text) MT_ERROR_##name,
    MT_ERROR_LIST(MT_ERROR_ENUM)
#undef MT_ERROR_ENUM
        MT_ERROR_COUNT
} mt_error_kind_t;

extern const char *const mt_error_names[MT_ERROR_COUNT];

/* What a pointer released by tracked code turned out to be (foreign.c). For INSIDE_LIVE
 * and INSIDE_FREED the error's block fields name the block it points into. */
#define MT_POINTER_CLASS_LIST(X)                                                                   \
    X(UNKNOWN, "a pointer")                                                                        \
    X(INSIDE_LIVE, "a pointer inside a block")                                                     \
    X(INSIDE_FREED, "a pointer inside a freed block")                                              \
    X(STACK, "a stack address")                                                                    \
    X(STATIC, "a static address")                                                                  \
    X(WILD, "a wild pointer")                                                                      \
    X(NOT_HEAP, "an address the C library did not allocate")                                       \
    X(RELEASED, "a block the C library already has back")

typedef enum {
#define MT_POINTER_ENUM(name, text) MT_POINTER_##name,
    MT_POINTER_CLASS_LIST(MT_POINTER_ENUM)
#undef MT_POINTER_ENUM
        MT_POINTER_COUNT
} mt_pointer_class_t;

extern const char *const mt_pointer_class_names[MT_POINTER_COUNT];

/* The error kind whose text is name, or MT_ERROR_COUNT; the pointer class, or
 * MT_POINTER_COUNT. */
mt_error_kind_t mt_error_kind_named(const char *name);
mt_pointer_class_t mt_pointer_class_named(const char *name);

#endif /* MT_WORDS_H */
