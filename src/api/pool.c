/* pool.c - pools of same-sized objects: allocate and release in O(1) at any fill level.
 *
 * Memory comes in slabs (the first holds `capacity` objects, later ones are the chunks a
 * growing pool adds), each a run of equal slots with a bitmap of the live ones: foreach
 * visits exactly those, and a second release of a slot is refused. Slots never used yet
 * are taken in address order (so creating a big pool touches none of its memory);
 * released ones are reused. Invariant: slabs before `fresh_index` have handed out every
 * slot, the slab at `fresh_index` hands out [fresh, fresh_end), and later slabs (after a
 * clear) are untouched.
 *
 * Untracked (created by code built without MEMORY_CONTROL_ON), a slot is the object
 * rounded up to its alignment, and released slots wait on a stack of slot numbers, the
 * most recently released (the warmest in cache) reused first. Seed 004 threads its free
 * list through the free slots instead; that costs no memory, but releasing then writes
 * into the object and allocating reads it, a cache miss each when the object is cold, and
 * the per-frame benchmark ran at about half the speed of this stack (README, "Pools and
 * arenas"). The stack costs 4 bytes per slot. Nothing else runs: no tracker call, no
 * guard byte.
 *
 */
#include <stdlib.h>
#include <string.h>

#include "api/pool.h"

/* ---- slots and slabs ----------------------------------------------------------------- */

static uint64_t odd_inverse(uint64_t odd)
{
    uint64_t x = odd; /* right to 3 bits; each Newton step doubles that */
    for (int i = 0; i < 5; i++)
        x *= 2 - odd * x;
    return x;
}

/* The slab holding address a, or NULL, in a pool of several slabs. */
MT_NOINLINE slab_t *mt_pool_slab_search(const memtrack_pool_t *p, uintptr_t a)
{
    size_t lo = 0, hi = p->nslabs;
    while (lo < hi) { /* the last slab whose base is <= a */
        size_t mid = lo + (hi - lo) / 2;
        if ((uintptr_t)p->slabs[p->by_address[mid]].base <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    slab_t *s = &p->slabs[p->by_address[lo - 1]];
    return a - (uintptr_t)s->base < s->slots * p->stride ? s : NULL;
}

/* The slab holding slot number id (slabs are numbered in creation order). */
static slab_t *slab_of_number(const memtrack_pool_t *p, uint32_t id)
{
    size_t lo = 0, hi = p->nslabs;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->slabs[mid].first <= id)
            lo = mid;
        else
            hi = mid;
    }
    return &p->slabs[lo];
}

static void slab_release(slab_t *s)
{
    mt_libc_free(s->base);
    mt_libc_free(s->live);
    mt_libc_free(s->notes);
}

/* Adds a slab of n slots; it becomes the one fresh slots come from. */
static bool add_slab(memtrack_pool_t *p, size_t n)
{
    if (n == 0 || n > SIZE_MAX / p->stride || n > UINT32_MAX - p->capacity)
        return false; /* slot numbers are 32 bits */
    if (p->nslabs == p->slabs_size) {
        size_t size = p->slabs_size != 0 ? p->slabs_size * 2 : 4;
        slab_t *slabs = mt_libc_realloc(p->slabs, size * sizeof *slabs);
        if (slabs == NULL)
            return false;
        p->slabs = slabs;
        size_t *order = mt_libc_realloc(p->by_address, size * sizeof *order);
        if (order == NULL)
            return false;
        p->by_address = order;
        p->slabs_size = size;
    }
    if (p->t == NULL) { /* the stack must hold every slot */
        uint32_t *stack = mt_libc_realloc(p->stack, (p->capacity + n) * sizeof *stack);
        if (stack == NULL)
            return false;
        p->stack = stack;
    } else { /* so must the ring */
        size_t size = p->capacity + n;
        void **ring = mt_libc_malloc(size * sizeof *ring);
        if (ring == NULL)
            return false;
        for (size_t i = 0; i < p->t->count; i++)
            ring[i] = p->t->ring[(p->t->head + i) % p->t->ring_size];
        mt_libc_free(p->t->ring);
        p->t->ring = ring;
        p->t->head = 0;
        p->t->ring_size = size;
    }
    slab_t s = {.slots = n, .first = (uint32_t)p->capacity};
    s.base = mt_libc_memalign(p->align > 64 ? p->align : 64, n * p->stride);
    s.live = mt_libc_calloc(bitmap_words(n), sizeof(uint64_t));
    if (p->t != NULL)
        s.notes = mt_libc_calloc(n, sizeof(slot_note_t));
    if (s.base == NULL || s.live == NULL || (p->t != NULL && s.notes == NULL)) {
        slab_release(&s);
        return false;
    }
    size_t at = p->nslabs;
    while (at > 0 && p->slabs[p->by_address[at - 1]].base > s.base) {
        p->by_address[at] = p->by_address[at - 1];
        at--;
    }
    p->by_address[at] = p->nslabs;
    p->slabs[p->nslabs] = s;
    p->fresh_index = p->nslabs++;
    p->fresh = s.base;
    p->fresh_end = s.base + n * p->stride;
    p->capacity += n;
    return true;
}

/* A never-used slot, from the next untouched slab or a new one; NULL when full. */
MT_NOINLINE unsigned char *mt_pool_fresh_slot_slow(memtrack_pool_t *p)
{
    if (p->fresh_index + 1 < p->nslabs) { /* untouched since a clear */
        slab_t *s = &p->slabs[++p->fresh_index];
        p->fresh = s->base;
        p->fresh_end = s->base + s->slots * p->stride;
    } else {
        size_t n = p->grow_by;
        if (p->max_objects != 0)
            n = p->capacity < p->max_objects ? p->max_objects - p->capacity : 0;
        if (p->grow_by != 0 && n > p->grow_by)
            n = p->grow_by;
        if (p->grow_by == 0 || !add_slab(p, n))
            return NULL;
    }
    /* the fresh-index invariant: fresh slots come from [fresh, fresh_end) of that slab */
    MT_ASSERT(p->fresh_index < p->nslabs && p->fresh == p->slabs[p->fresh_index].base &&
              p->fresh_end == p->fresh + p->slabs[p->fresh_index].slots * p->stride);
    unsigned char *slot = p->fresh;
    p->fresh += p->stride;
    return slot;
}

/* ---- untracked ------------------------------------------------------------------------ */

static void *untracked_alloc(memtrack_pool_t *p)
{
    unsigned char *slot;
    slab_t *s;
    size_t i;
    if (MT_LIKELY(p->top != 0)) {
        uint32_t id = p->stack[--p->top];
        s = MT_LIKELY(p->nslabs == 1) ? p->slabs : slab_of_number(p, id);
        i = id - s->first;
        set_live(s, i);
        p->live++;
        return s->base + i * p->stride;
    }
    if (MT_LIKELY(p->fresh < p->fresh_end)) {
        slot = p->fresh;
        p->fresh += p->stride;
    } else if ((slot = mt_pool_fresh_slot_slow(p)) == NULL) {
        return NULL;
    }
    mark_live(p, slot, &s, &i);
    return slot;
}

static void untracked_free(memtrack_pool_t *p, void *object)
{
    slab_t *s = slab_of(p, (uintptr_t)object);
    if (MT_UNLIKELY(s == NULL))
        return; /* not this pool's: the tracked build reports it */
    size_t i = slot_at(p, s, (uintptr_t)object - (uintptr_t)s->base);
    if (MT_UNLIKELY(i == SIZE_MAX || !slot_live(s, i)))
        return; /* inside an object, or released already */
    clear_live(s, i);
    p->stack[p->top++] = s->first + (uint32_t)i;
    p->live--;
}

/* ---- creation ------------------------------------------------------------------------ */

static void pool_destroy(memtrack_pool_t *p, uint32_t site);

static bool power_of_two(size_t v)
{
    return v != 0 && (v & (v - 1)) == 0;
}

/* alignment 0: the strictest any type of object_size may need, at most malloc's. */
static memtrack_pool_t *pool_create(const char *name, size_t object_size, size_t alignment,
                                    size_t capacity, bool tracked)
{
    if (object_size == 0)
        object_size = 1;
    if (alignment == 0) { /* a type's alignment divides its size */
        alignment = object_size & (~object_size + 1);
        if (alignment > MT_MIN_ALIGN)
            alignment = MT_MIN_ALIGN;
    }
    if (!power_of_two(alignment) || object_size > SIZE_MAX / 4 || alignment > SIZE_MAX / 4)
        return NULL;
    memtrack_pool_t *p = mt_libc_calloc(1, sizeof *p);
    if (p == NULL)
        return NULL;
    p->object_size = object_size;
    p->align = alignment;
    size_t front = 0, back = 0;
    if (tracked) {
        size_t guard = mt_guard_size();
        front = mt_front_size(guard, alignment);
        back = guard;
        p->t = mt_libc_calloc(1, sizeof *p->t);
        if (p->t == NULL || front > SIZE_MAX / 4 || back > SIZE_MAX / 4) {
            mt_libc_free(p->t);
            mt_libc_free(p);
            return NULL;
        }
        p->t->pool = p;
        p->t->name = mt_owner_intern(name != NULL ? name : DEFAULT_NAME);
        p->t->front = front;
        p->t->back = back;
        p->t->owner.check = mt_pool_owner_check;
        p->t->owner.contains = mt_pool_owner_contains;
        p->t->owner.name = p->t->name;
        p->t->owner.kind = MT_KIND_POOL;
    }
    size_t bytes = front + object_size + back;
    p->stride = (bytes + alignment - 1) / alignment * alignment;
    p->stride_shift = (unsigned)__builtin_ctzll(p->stride);
    p->stride_inverse = odd_inverse((uint64_t)p->stride >> p->stride_shift);
    if (capacity != 0 && !add_slab(p, capacity)) {
        pool_destroy(p, MT_SITE_NONE);
        return NULL;
    }
    if (p->t != NULL)
        mt_owner_add(&p->t->owner);
    return p;
}

/* ---- the API -------------------------------------------------------------------------- */

MT_EXPORT memtrack_pool_t *memtrack_pool_create(const char *name, size_t object_size,
                                                size_t capacity)
{
    MT_ENTRY();
    return pool_create(name, object_size, 0, capacity, false);
}

MT_EXPORT memtrack_pool_t *memtrack_pool_create_aligned(const char *name, size_t object_size,
                                                        size_t alignment, size_t capacity)
{
    MT_ENTRY();
    return alignment == 0 ? NULL : pool_create(name, object_size, alignment, capacity, false);
}

MT_EXPORT memtrack_pool_t *memtrack_pool_create_at(const char *name, size_t object_size,
                                                   size_t capacity, const char *file, int line,
                                                   const char *func)
{
    MT_ENTRY();
    return pool_create(name, object_size, 0, capacity, true);
}

MT_EXPORT memtrack_pool_t *memtrack_pool_create_aligned_at(const char *name, size_t object_size,
                                                           size_t alignment, size_t capacity,
                                                           const char *file, int line,
                                                           const char *func)
{
    MT_ENTRY();
    return alignment == 0 ? NULL : pool_create(name, object_size, alignment, capacity, true);
}

MT_EXPORT void memtrack_pool_set_wholesale(memtrack_pool_t *pool, int wholesale)
{
    MT_ENTRY();
    if (pool != NULL && pool->t != NULL)
        pool->t->wholesale = wholesale != 0;
}

MT_EXPORT void memtrack_pool_set_growth(memtrack_pool_t *pool, size_t chunk_objects,
                                        size_t max_objects)
{
    MT_ENTRY();
    if (pool == NULL)
        return;
    pool->grow_by = chunk_objects;
    pool->max_objects = max_objects;
}

MT_EXPORT void *memtrack_pool_alloc(memtrack_pool_t *pool)
{
    MT_ENTRY();
    if (MT_UNLIKELY(pool == NULL))
        return NULL;
    if (MT_LIKELY(pool->t == NULL))
        return untracked_alloc(pool);
    return mt_pool_tracked_alloc(pool, pool->object_size, NULL, 0, NULL,
                                 __builtin_return_address(0), MT_OWNED_FOUND());
}

MT_EXPORT void *memtrack_pool_alloc_at(memtrack_pool_t *pool, const char *file, int line,
                                       const char *func)
{
    MT_ENTRY();
    if (MT_UNLIKELY(pool == NULL))
        return NULL;
    if (pool->t == NULL)
        return untracked_alloc(pool);
    return mt_pool_tracked_alloc(pool, pool->object_size, file, line, func, NULL, MT_OWNED_FOUND());
}

MT_EXPORT void *memtrack_pool_alloc_size(memtrack_pool_t *pool, size_t size)
{
    MT_ENTRY();
    if (MT_UNLIKELY(pool == NULL))
        return NULL;
    if (MT_LIKELY(pool->t == NULL))
        return size <= pool->object_size ? untracked_alloc(pool) : NULL;
    return mt_pool_tracked_alloc(pool, size, NULL, 0, NULL, __builtin_return_address(0),
                                 MT_OWNED_FOUND());
}

MT_EXPORT void *memtrack_pool_alloc_size_at(memtrack_pool_t *pool, size_t size, const char *file,
                                            int line, const char *func)
{
    MT_ENTRY();
    if (MT_UNLIKELY(pool == NULL))
        return NULL;
    if (pool->t == NULL)
        return size <= pool->object_size ? untracked_alloc(pool) : NULL;
    return mt_pool_tracked_alloc(pool, size, file, line, func, NULL, MT_OWNED_FOUND());
}

MT_EXPORT void memtrack_pool_free(memtrack_pool_t *pool, void *object)
{
    MT_ENTRY();
    if (MT_UNLIKELY(pool == NULL || object == NULL))
        return;
    if (MT_LIKELY(pool->t == NULL))
        untracked_free(pool, object);
    else
        mt_pool_tracked_free(pool, object, NULL, 0, NULL, __builtin_return_address(0),
                             MT_OWNED_FOUND());
}

MT_EXPORT void memtrack_pool_free_at(memtrack_pool_t *pool, void *object, const char *file,
                                     int line, const char *func)
{
    MT_ENTRY();
    if (MT_UNLIKELY(pool == NULL || object == NULL))
        return;
    if (pool->t == NULL)
        untracked_free(pool, object);
    else
        mt_pool_tracked_free(pool, object, file, line, func, NULL, MT_OWNED_FOUND());
}

/* The site of a tracked pool's entry point, with its stack (api/owned.h). */
#define PC_SITE(kind)                                                                              \
    mt_owned_site(NULL, 0, NULL, __builtin_return_address(0), MT_KIND_##kind, pool->t->name,       \
                  MT_OWNED_STACK())
#define AT_SITE(kind)                                                                              \
    mt_owned_site(file, line, func, NULL, MT_KIND_##kind, pool->t->name, MT_OWNED_STACK())

/* Calls fn(pool, slot) for every live slot; fn may release any of them. */
void mt_pool_each_live(memtrack_pool_t *p, void (*fn)(memtrack_pool_t *, unsigned char *, void *),
                       void *ctx)
{
    for (size_t k = 0; k < p->nslabs; k++) {
        size_t words = bitmap_words(p->slabs[k].slots);
        for (size_t w = 0; w < words; w++) {
            uint64_t bits = p->slabs[k].live[w];
            while (bits != 0) {
                unsigned bit = (unsigned)__builtin_ctzll(bits);
                fn(p, p->slabs[k].base + (w * 64 + bit) * p->stride, ctx);
                /* Read again: fn may have released (or allocated) any object. */
                bits = bit == 63 ? 0 : p->slabs[k].live[w] & (~UINT64_C(0) << (bit + 1));
            }
        }
    }
}

typedef struct foreach_ctx {
    void (*fn)(void *object, void *ctx);
    void *ctx;
} foreach_ctx_t;

static void visit(memtrack_pool_t *p, unsigned char *slot, void *ctx)
{
    foreach_ctx_t *c = ctx;
    c->fn(mt_pool_object_of(p, slot), c->ctx);
}

MT_EXPORT void memtrack_pool_foreach(memtrack_pool_t *pool, void (*fn)(void *object, void *ctx),
                                     void *ctx)
{
    MT_ENTRY();
    foreach_ctx_t c = {fn, ctx};
    if (pool != NULL && fn != NULL)
        mt_pool_each_live(pool, visit, &c);
}

static void pool_clear(memtrack_pool_t *p, uint32_t site)
{
    if (p->t != NULL) {
        mt_pool_tracked_clear(p, site);
        return;
    }
    for (size_t k = 0; k < p->nslabs; k++)
        memset(p->slabs[k].live, 0, bitmap_words(p->slabs[k].slots) * sizeof(uint64_t));
    p->top = 0;
    p->live = 0;
    if (p->nslabs > 0) { /* every slab is untouched again */
        p->fresh_index = 0;
        p->fresh = p->slabs[0].base;
        p->fresh_end = p->slabs[0].base + p->slabs[0].slots * p->stride;
    }
}

MT_EXPORT void memtrack_pool_clear(memtrack_pool_t *pool)
{
    MT_ENTRY();
    if (pool == NULL)
        return;
    pool_clear(pool, pool->t == NULL ? MT_SITE_NONE : PC_SITE(POOL_CLEAR));
}

MT_EXPORT void memtrack_pool_clear_at(memtrack_pool_t *pool, const char *file, int line,
                                      const char *func)
{
    MT_ENTRY();
    if (pool == NULL)
        return;
    pool_clear(pool, pool->t == NULL ? MT_SITE_NONE : AT_SITE(POOL_CLEAR));
}

/* ---- destroy: live objects are reported by site ---------------------------------------- */

static void pool_destroy(memtrack_pool_t *p, uint32_t site)
{
    if (p->t != NULL)
        mt_pool_tracked_destroy(p, site);
    for (size_t k = 0; k < p->nslabs; k++)
        slab_release(&p->slabs[k]);
    mt_libc_free(p->slabs);
    mt_libc_free(p->by_address);
    mt_libc_free(p->stack);
    mt_libc_free(p);
}

MT_EXPORT void memtrack_pool_destroy(memtrack_pool_t *pool)
{
    MT_ENTRY();
    if (pool == NULL)
        return;
    pool_destroy(pool, pool->t == NULL ? MT_SITE_NONE : PC_SITE(POOL_DESTROY));
}

MT_EXPORT void memtrack_pool_destroy_at(memtrack_pool_t *pool, const char *file, int line,
                                        const char *func)
{
    MT_ENTRY();
    if (pool == NULL)
        return;
    pool_destroy(pool, pool->t == NULL ? MT_SITE_NONE : AT_SITE(POOL_DESTROY));
}

/* ---- queries and checks -------------------------------------------------------------- */

MT_EXPORT size_t memtrack_pool_live(const memtrack_pool_t *pool)
{
    MT_ENTRY();
    return pool != NULL ? pool->live : 0;
}

MT_EXPORT size_t memtrack_pool_capacity(const memtrack_pool_t *pool)
{
    MT_ENTRY();
    return pool != NULL ? pool->capacity : 0;
}

MT_EXPORT size_t memtrack_pool_object_size(const memtrack_pool_t *pool)
{
    MT_ENTRY();
    return pool != NULL ? pool->object_size : 0;
}

MT_EXPORT int memtrack_pool_owns(const memtrack_pool_t *pool, const void *ptr)
{
    MT_ENTRY();
    if (pool == NULL || ptr == NULL)
        return 0;
    size_t front = pool->t != NULL ? pool->t->front : 0;
    const slab_t *s = slab_of(pool, (uintptr_t)ptr);
    if (s == NULL && pool->t != NULL)
        return mt_pool_paged_slot(pool, ptr) != NULL;
    if (s == NULL || (uintptr_t)ptr - (uintptr_t)s->base < front)
        return 0;
    size_t i = slot_at(pool, s, (uintptr_t)ptr - (uintptr_t)s->base - front);
    return i != SIZE_MAX && slot_live(s, i);
}

MT_EXPORT int memtrack_pool_check(memtrack_pool_t *pool)
{
    MT_ENTRY();
    if (pool == NULL || pool->t == NULL)
        return 0;
    return mt_pool_tracked_check(pool, PC_SITE(POOL_CHECK));
}

MT_EXPORT int memtrack_pool_check_at(memtrack_pool_t *pool, const char *file, int line,
                                     const char *func)
{
    MT_ENTRY();
    if (pool == NULL || pool->t == NULL)
        return 0;
    return mt_pool_tracked_check(pool, AT_SITE(POOL_CHECK));
}

MT_EXPORT size_t memtrack_pool_mark(memtrack_pool_t *pool)
{
    MT_ENTRY();
    if (pool == NULL || pool->t == NULL)
        return 0;
    return mt_pool_tracked_mark(pool, PC_SITE(POOL_MARK));
}

MT_EXPORT size_t memtrack_pool_mark_at(memtrack_pool_t *pool, const char *file, int line,
                                       const char *func)
{
    MT_ENTRY();
    if (pool == NULL || pool->t == NULL)
        return 0;
    return mt_pool_tracked_mark(pool, AT_SITE(POOL_MARK));
}
