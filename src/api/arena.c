/* arena.c - arenas: allocation is a pointer bump, release is all at once (an arena reset per game
 * level).
 *
 * Untracked (created by code built without MEMORY_CONTROL_ON), an arena is one block of
 * `capacity` bytes and an offset: alloc aligns the offset and adds the size, a mark is the
 * offset, rewind sets it back, reset sets it to zero. Nothing else runs.
 *
 * Tracked (created by code built with it), the arena's allocations are guarded, logged and
 * checked by arena_tracked.c; the types both sides share are in arena.h.
 */
#include <string.h>

#include "api/arena.h"

static bool power_of_two(size_t v)
{
    return v != 0 && (v & (v - 1)) == 0;
}

static void *untracked_alloc(memtrack_arena_t *a, size_t size, size_t align)
{
    size_t start = mt_arena_place(a, size, align);
    if (MT_UNLIKELY(start == SIZE_MAX))
        return NULL;
    a->offset = start + (size != 0 ? size : 1); /* distinct pointers, as malloc(0) */
    return a->base + start;
}

/* ---- the API -------------------------------------------------------------------------- */

static memtrack_arena_t *arena_create(const char *name, size_t capacity, bool tracked)
{
    if (capacity > SIZE_MAX / 4)
        return NULL;
    memtrack_arena_t *a = mt_libc_calloc(1, sizeof *a);
    if (a == NULL)
        return NULL;
    a->capacity = capacity;
    if (!tracked) {
        a->base = mt_libc_memalign(BASE_ALIGN, capacity != 0 ? capacity : 1);
        if (a->base == NULL) {
            mt_libc_free(a);
            return NULL;
        }
        return a;
    }
    if (!mt_arena_tracked_init(a, name)) {
        mt_libc_free(a);
        return NULL;
    }
    return a;
}

static void arena_destroy(memtrack_arena_t *a, uint32_t site)
{
    if (a->t != NULL)
        mt_arena_tracked_destroy(a, site);
    mt_libc_free(a->base);
    mt_libc_free(a);
}

#define PC __builtin_return_address(0)
/* The site of a tracked arena's entry point, with its stack (api/owned.h). */
#define TSITE(kind, arena)                                                                         \
    mt_owned_site(file, line, func, NULL, MT_KIND_##kind, (arena)->t->name, MT_OWNED_STACK())
#define PCSITE(kind, arena)                                                                        \
    mt_owned_site(NULL, 0, NULL, PC, MT_KIND_##kind, (arena)->t->name, MT_OWNED_STACK())

MT_EXPORT memtrack_arena_t *memtrack_arena_create(const char *name, size_t capacity)
{
    MT_ENTRY();
    return arena_create(name, capacity, false);
}

MT_EXPORT memtrack_arena_t *memtrack_arena_create_at(const char *name, size_t capacity,
                                                     const char *file, int line, const char *func)
{
    MT_ENTRY();
    return arena_create(name, capacity, true);
}

MT_EXPORT void *memtrack_arena_alloc(memtrack_arena_t *arena, size_t size)
{
    MT_ENTRY();
    if (MT_UNLIKELY(arena == NULL))
        return NULL;
    if (MT_LIKELY(arena->t == NULL))
        return untracked_alloc(arena, size, DEFAULT_ALIGN);
    return mt_arena_tracked_alloc_default(arena, size, ARENA_CALL(NULL, 0, NULL, PC));
}

MT_EXPORT void *memtrack_arena_alloc_at(memtrack_arena_t *arena, size_t size, const char *file,
                                        int line, const char *func)
{
    MT_ENTRY();
    if (MT_UNLIKELY(arena == NULL))
        return NULL;
    if (arena->t == NULL)
        return untracked_alloc(arena, size, DEFAULT_ALIGN);
    return mt_arena_tracked_alloc_default(arena, size, ARENA_CALL(file, line, func, NULL));
}

MT_EXPORT void *memtrack_arena_alloc_aligned(memtrack_arena_t *arena, size_t size, size_t alignment)
{
    MT_ENTRY();
    if (arena == NULL || !power_of_two(alignment))
        return NULL;
    if (arena->t == NULL)
        return untracked_alloc(arena, size, alignment);
    return mt_arena_tracked_alloc(arena, size, alignment, ARENA_CALL(NULL, 0, NULL, PC));
}

MT_EXPORT void *memtrack_arena_alloc_aligned_at(memtrack_arena_t *arena, size_t size,
                                                size_t alignment, const char *file, int line,
                                                const char *func)
{
    MT_ENTRY();
    if (arena == NULL || !power_of_two(alignment))
        return NULL;
    if (arena->t == NULL)
        return untracked_alloc(arena, size, alignment);
    return mt_arena_tracked_alloc(arena, size, alignment, ARENA_CALL(file, line, func, NULL));
}

MT_EXPORT size_t memtrack_arena_mark(const memtrack_arena_t *arena)
{
    MT_ENTRY();
    return arena != NULL ? arena->offset : 0;
}

MT_EXPORT void memtrack_arena_rewind(memtrack_arena_t *arena, size_t mark)
{
    MT_ENTRY();
    if (arena == NULL)
        return;
    if (arena->t != NULL)
        mt_arena_tracked_rewind(arena, mark, PCSITE(ARENA_REWIND, arena));
    else if (mark <= arena->offset)
        arena->offset = mark;
}

MT_EXPORT void memtrack_arena_rewind_at(memtrack_arena_t *arena, size_t mark, const char *file,
                                        int line, const char *func)
{
    MT_ENTRY();
    if (arena == NULL)
        return;
    if (arena->t != NULL)
        mt_arena_tracked_rewind(arena, mark, TSITE(ARENA_REWIND, arena));
    else if (mark <= arena->offset)
        arena->offset = mark;
}

MT_EXPORT void memtrack_arena_reset(memtrack_arena_t *arena)
{
    MT_ENTRY();
    if (arena == NULL)
        return;
    if (arena->t != NULL)
        mt_arena_tracked_reset(arena, PCSITE(ARENA_RESET, arena));
    arena->offset = 0;
}

MT_EXPORT void memtrack_arena_reset_at(memtrack_arena_t *arena, const char *file, int line,
                                       const char *func)
{
    MT_ENTRY();
    if (arena == NULL)
        return;
    if (arena->t != NULL)
        mt_arena_tracked_reset(arena, TSITE(ARENA_RESET, arena));
    arena->offset = 0;
}

MT_EXPORT void memtrack_arena_destroy(memtrack_arena_t *arena)
{
    MT_ENTRY();
    if (arena != NULL)
        arena_destroy(arena, arena->t != NULL ? PCSITE(ARENA_DESTROY, arena) : MT_SITE_NONE);
}

MT_EXPORT void memtrack_arena_destroy_at(memtrack_arena_t *arena, const char *file, int line,
                                         const char *func)
{
    MT_ENTRY();
    if (arena != NULL)
        arena_destroy(arena, arena->t != NULL ? TSITE(ARENA_DESTROY, arena) : MT_SITE_NONE);
}

MT_EXPORT size_t memtrack_arena_used(const memtrack_arena_t *arena)
{
    MT_ENTRY();
    return arena != NULL ? arena->offset : 0;
}

MT_EXPORT size_t memtrack_arena_capacity(const memtrack_arena_t *arena)
{
    MT_ENTRY();
    return arena != NULL ? arena->capacity : 0;
}
