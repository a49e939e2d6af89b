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
 * Tracked, a slot is laid out as guard.c draws a malloc'd block, so the tracker's checks
 * (memtrack_check(), exit) read pool objects as any other block:
 *
 *   slot                                                                   slot + stride
 *   |<-- front guard 0xFD -->|<---- object_size ---->|<-- back guard 0xFD -->| padding |
 *
 * Released slots wait in a ring, oldest reused first, outside the slots: a write through
 * a stale pointer cannot corrupt the pool, and the released slot, filled with 0xDD, is
 * checked when it is handed out again (and at clear, destroy, memtrack_pool_check() and
 * exit), as late as possible. Per-slot notes (sequence number, sites) name the object
 * that lived there in messages.
 */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/owned.h"
#include "records/stats.h"

#define DEFAULT_NAME "(unnamed)"

typedef struct slot_note {
    uint64_t seq;        /* the object's sequence number, 0 if it was not recorded */
    uint32_t alloc_site; /* where it was allocated */
    uint32_t free_site;  /* where it was released (released slots) */
} slot_note_t;

typedef struct slab {
    unsigned char *base; /* the first slot */
    size_t slots;
    uint32_t first;      /* the pool-wide number of its first slot */
    uint64_t *live;      /* bit i: slot i holds a live object */
    slot_note_t *notes;  /* tracked pools only */
} slab_t;

typedef struct pool_tracking {
    mt_owner_t owner;    /* in register.c's list, for the exit-time check */
    memtrack_pool_t *pool;
    const char *name;    /* interned */
    size_t front, back;  /* guard bytes before and after each object */
    void **ring;         /* released slots, oldest at ring[head] */
    size_t head, count, ring_size;
} pool_tracking_t;

struct memtrack_pool {
    /* the untracked fast path reads these */
    uint32_t *stack;          /* untracked: numbers of released slots, newest on top */
    size_t top;
    unsigned char *fresh;     /* the next never-used slot of slabs[fresh_index] */
    unsigned char *fresh_end;
    size_t stride;            /* bytes from one slot to the next */
    unsigned stride_shift;    /* stride = odd << stride_shift */
    uint64_t stride_inverse;  /* odd * stride_inverse == 1 (mod 2^64): exact division */
    slab_t *slabs;            /* in creation order */
    size_t nslabs;
    size_t live;
    pool_tracking_t *t;       /* NULL: untracked */
    /* the rest */
    size_t fresh_index;
    size_t *by_address;       /* slab indices sorted by base, for pools of several slabs */
    size_t slabs_size;        /* room in slabs and by_address */
    size_t capacity, object_size, align;
    size_t grow_by, max_objects;
};

/* ---- slots and slabs ----------------------------------------------------------------- */

static uint64_t odd_inverse(uint64_t odd)
{
    uint64_t x = odd; /* right to 3 bits; each Newton step doubles that */
    for (int i = 0; i < 5; i++)
        x *= 2 - odd * x;
    return x;
}

/* The slab holding address a, or NULL, in a pool of several slabs. */
static MT_NOINLINE slab_t *slab_search(const memtrack_pool_t *p, uintptr_t a)
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

/* The slab holding address a, or NULL. */
static inline slab_t *slab_of(const memtrack_pool_t *p, uintptr_t a)
{
    if (MT_LIKELY(p->nslabs == 1)) {
        slab_t *s = p->slabs;
        return a - (uintptr_t)s->base < s->slots * p->stride ? s : NULL;
    }
    return slab_search(p, a);
}

/* The index of the slot starting exactly at offset off of slab s, or SIZE_MAX. Exact
 * division by multiplication: off / stride when stride divides off, else a value past
 * any slab (Granlund and Montgomery). */
static size_t slot_at(const memtrack_pool_t *p, const slab_t *s, uintptr_t off)
{
    if (off & (((uintptr_t)1 << p->stride_shift) - 1))
        return SIZE_MAX;
    uint64_t i = (uint64_t)(off >> p->stride_shift) * p->stride_inverse;
    return i < s->slots ? (size_t)i : SIZE_MAX;
}

static bool slot_live(const slab_t *s, size_t i)
{
    return (s->live[i >> 6] >> (i & 63)) & 1u;
}

static void set_live(slab_t *s, size_t i)
{
    s->live[i >> 6] |= UINT64_C(1) << (i & 63);
}

static void clear_live(slab_t *s, size_t i)
{
    s->live[i >> 6] &= ~(UINT64_C(1) << (i & 63));
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

static size_t bitmap_words(size_t slots)
{
    return (slots + 63) / 64;
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
static MT_NOINLINE unsigned char *fresh_slot_slow(memtrack_pool_t *p)
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
    unsigned char *slot = p->fresh;
    p->fresh += p->stride;
    return slot;
}

/* Marks slot (of slab s, index i) live. */
static void mark_live(memtrack_pool_t *p, const unsigned char *slot, slab_t **s, size_t *i)
{
    *s = slab_of(p, (uintptr_t)slot);
    *i = slot_at(p, *s, (uintptr_t)(slot - (*s)->base));
    set_live(*s, *i);
    p->live++;
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
    } else if ((slot = fresh_slot_slow(p)) == NULL) {
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

/* ---- tracked -------------------------------------------------------------------------- */

#define SITE_OF(kind)                                                                    \
    mt_owned_site(file, line, func, pc, MT_KIND_##kind, p->t->name)

static unsigned char *slot_of_object(const memtrack_pool_t *p, const void *object)
{
    return (unsigned char *)object - p->t->front;
}

/* Reports a write after release to a released slot whose pattern changed, and fills it
 * again so the damage is reported once. */
static void report_released(memtrack_pool_t *p, unsigned char *slot, uint32_t found_site)
{
    size_t first = 0;
    size_t changed = mt_pattern_check(slot, p->stride, MT_FREE_FILL_BYTE, &first);
    slab_t *s = slab_of(p, (uintptr_t)slot);
    const slot_note_t *note = &s->notes[slot_at(p, s, (uintptr_t)(slot - s->base))];
    mt_error_t e = {.kind = MT_ERROR_POOL_WRITE_AFTER_RELEASE,
                    .addr = (uintptr_t)(slot + p->t->front), .size = p->object_size,
                    .seq = note->seq, .alloc_site = note->alloc_site,
                    .free_site = note->free_site, .found_site = found_site,
                    .changed = changed, .offset = (int64_t)first - (int64_t)p->t->front};
    mt_error_report(&e);
    memset(slot, MT_FREE_FILL_BYTE, p->stride);
}

static bool released_intact(const memtrack_pool_t *p, const unsigned char *slot)
{
    size_t first;
    return mt_pattern_check(slot, p->stride, MT_FREE_FILL_BYTE, &first) == 0;
}

/* Checks that a released slot still holds the pattern; returns 1 (reported) if not. */
static int check_released(memtrack_pool_t *p, unsigned char *slot, uint32_t found_site)
{
    if (MT_LIKELY(released_intact(p, slot)))
        return 0;
    report_released(p, slot, found_site);
    return 1;
}

static int check_ring(memtrack_pool_t *p, uint32_t found_site)
{
    int problems = 0;
    for (size_t k = 0; k < p->t->count; k++)
        problems += check_released(p, p->t->ring[(p->t->head + k) % p->t->ring_size],
                                   found_site);
    return problems;
}

static int owner_check(mt_owner_t *o, uint32_t found_site)
{
    pool_tracking_t *t = (pool_tracking_t *)o; /* owner is its first member */
    return check_ring(t->pool, found_site);
}

static bool owner_contains(mt_owner_t *o, uintptr_t addr)
{
    return slab_of(((pool_tracking_t *)o)->pool, addr) != NULL;
}

static void *tracked_alloc(memtrack_pool_t *p, const char *file, int line, const char *func,
                           void *pc)
{
    pool_tracking_t *t = p->t;
    unsigned char *slot;
    bool reused = false;
    /* Never-used slots first: a released one then waits as long as it can. */
    if (p->fresh < p->fresh_end) {
        slot = p->fresh;
        p->fresh += p->stride;
    } else if (t->count > 0) {
        slot = t->ring[t->head];
        t->head = (t->head + 1) % t->ring_size;
        t->count--;
        reused = true;
    } else if ((slot = fresh_slot_slow(p)) == NULL) {
        mt_stats_failed();
        return NULL;
    }
    if (reused && MT_UNLIKELY(!released_intact(p, slot)))
        report_released(p, slot, SITE_OF(POOL_ALLOC));
    uint32_t site = SITE_OF(POOL);
    unsigned char *object = slot + t->front;
    mt_guard_fill(object, p->object_size, t->front, t->back);
    memset(object, MT_ALLOC_FILL_BYTE, p->object_size);
    slab_t *s;
    size_t i;
    mark_live(p, slot, &s, &i);
    slot_note_t *note = &s->notes[i];
    note->seq = 0;
    note->alloc_site = site;
    note->free_site = MT_SITE_NONE;
    (void)mt_owned_insert(object, p->object_size, p->align, site, &note->seq);
    return object;
}

/* Reports a release of a pointer that is not a live object of the pool. */
static void bad_release(memtrack_pool_t *p, const void *object, slab_t *s, uint32_t site)
{
    mt_error_t e = {.kind = MT_ERROR_POOL_FOREIGN_RELEASE, .addr = (uintptr_t)object,
                    .found_site = site};
    mt_block_t b;
    if (s == NULL) { /* outside the pool: say whose it is, if anyone's */
        if (mt_block_peek(object, &b))
            mt_error_from_block(&e, &b);
        mt_error_report(&e);
        return;
    }
    uintptr_t off = (uintptr_t)object - (uintptr_t)s->base;
    size_t i = (size_t)(off / p->stride);
    const slot_note_t *note = &s->notes[i];
    if (!slot_live(s, i)) {
        mt_error_report(&e); /* inside a released slot */
        return;
    }
    e.kind = MT_ERROR_POOL_INTERIOR_RELEASE;
    e.addr = (uintptr_t)(s->base + i * p->stride + p->t->front);
    e.size = p->object_size;
    e.seq = note->seq;
    e.alloc_site = note->alloc_site;
    e.offset = (int64_t)(off - i * p->stride) - (int64_t)p->t->front;
    mt_error_report(&e);
}

static void tracked_free(memtrack_pool_t *p, void *object, const char *file, int line,
                         const char *func, void *pc)
{
    pool_tracking_t *t = p->t;
    uint32_t site = SITE_OF(POOL_FREE);
    slab_t *s = slab_of(p, (uintptr_t)object);
    size_t i = SIZE_MAX;
    if (s != NULL && (uintptr_t)object - (uintptr_t)s->base >= t->front)
        i = slot_at(p, s, (uintptr_t)object - (uintptr_t)s->base - t->front);
    if (i == SIZE_MAX) {
        bad_release(p, object, s, site);
        return;
    }
    slot_note_t *note = &s->notes[i];
    if (!slot_live(s, i)) {
        mt_error_t e = {.kind = MT_ERROR_POOL_DOUBLE_RELEASE, .addr = (uintptr_t)object,
                        .size = p->object_size, .seq = note->seq,
                        .alloc_site = note->alloc_site, .free_site = note->free_site,
                        .found_site = site};
        mt_error_report(&e);
        return;
    }
    mt_block_t b;
    (void)mt_owned_remove(object, site, &b); /* checks the guards */
    clear_live(s, i);
    p->live--;
    note->free_site = site;
    unsigned char *slot = slot_of_object(p, object);
    memset(slot, MT_FREE_FILL_BYTE, p->stride);
    t->ring[(t->head + t->count) % t->ring_size] = slot;
    t->count++;
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
        p->t->owner.check = owner_check;
        p->t->owner.contains = owner_contains;
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
    return pool_create(name, object_size, 0, capacity, false);
}

MT_EXPORT memtrack_pool_t *memtrack_pool_create_aligned(const char *name, size_t object_size,
                                                        size_t alignment, size_t capacity)
{
    return alignment == 0 ? NULL : pool_create(name, object_size, alignment, capacity, false);
}

MT_EXPORT memtrack_pool_t *memtrack_pool_create_at(const char *name, size_t object_size,
                                                   size_t capacity, const char *file,
                                                   int line, const char *func)
{
    return pool_create(name, object_size, 0, capacity, true);
}

MT_EXPORT memtrack_pool_t *memtrack_pool_create_aligned_at(const char *name,
                                                           size_t object_size,
                                                           size_t alignment, size_t capacity,
                                                           const char *file, int line,
                                                           const char *func)
{
    return alignment == 0 ? NULL : pool_create(name, object_size, alignment, capacity, true);
}

MT_EXPORT void memtrack_pool_set_growth(memtrack_pool_t *pool, size_t chunk_objects,
                                        size_t max_objects)
{
    if (pool == NULL)
        return;
    pool->grow_by = chunk_objects;
    pool->max_objects = max_objects;
}

MT_EXPORT void *memtrack_pool_alloc(memtrack_pool_t *pool)
{
    if (MT_UNLIKELY(pool == NULL))
        return NULL;
    if (MT_LIKELY(pool->t == NULL))
        return untracked_alloc(pool);
    return tracked_alloc(pool, NULL, 0, NULL, __builtin_return_address(0));
}

MT_EXPORT void *memtrack_pool_alloc_at(memtrack_pool_t *pool, const char *file, int line,
                                       const char *func)
{
    if (MT_UNLIKELY(pool == NULL))
        return NULL;
    if (pool->t == NULL)
        return untracked_alloc(pool);
    return tracked_alloc(pool, file, line, func, NULL);
}

MT_EXPORT void memtrack_pool_free(memtrack_pool_t *pool, void *object)
{
    if (MT_UNLIKELY(pool == NULL || object == NULL))
        return;
    if (MT_LIKELY(pool->t == NULL))
        untracked_free(pool, object);
    else
        tracked_free(pool, object, NULL, 0, NULL, __builtin_return_address(0));
}

MT_EXPORT void memtrack_pool_free_at(memtrack_pool_t *pool, void *object, const char *file,
                                     int line, const char *func)
{
    if (MT_UNLIKELY(pool == NULL || object == NULL))
        return;
    if (pool->t == NULL)
        untracked_free(pool, object);
    else
        tracked_free(pool, object, file, line, func, NULL);
}

/* Calls fn(pool, slot) for every live slot; fn may release any of them. */
static void each_live(memtrack_pool_t *p, void (*fn)(memtrack_pool_t *, unsigned char *, void *),
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
    c->fn(slot + (p->t != NULL ? p->t->front : 0), c->ctx);
}

MT_EXPORT void memtrack_pool_foreach(memtrack_pool_t *pool, void (*fn)(void *object, void *ctx),
                                     void *ctx)
{
    foreach_ctx_t c = {fn, ctx};
    if (pool != NULL && fn != NULL)
        each_live(pool, visit, &c);
}

/* Releases one live slot of a tracked pool (clear, destroy). */
static void release_tracked_slot(memtrack_pool_t *p, unsigned char *slot, void *ctx)
{
    uint32_t site = *(const uint32_t *)ctx;
    slab_t *s = slab_of(p, (uintptr_t)slot);
    size_t i = slot_at(p, s, (uintptr_t)(slot - s->base));
    mt_block_t b;
    (void)mt_owned_remove(slot + p->t->front, site, &b);
    clear_live(s, i);
    p->live--;
    s->notes[i].free_site = site;
    memset(slot, MT_FREE_FILL_BYTE, p->stride);
    p->t->ring[(p->t->head + p->t->count) % p->t->ring_size] = slot;
    p->t->count++;
}

static void pool_clear(memtrack_pool_t *p, uint32_t site)
{
    if (p->t != NULL) {
        (void)check_ring(p, site);
        each_live(p, release_tracked_slot, &site);
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
    if (pool == NULL)
        return;
    pool_clear(pool, pool->t == NULL ? MT_SITE_NONE
                                     : mt_site_pc_owner(__builtin_return_address(0),
                                                        MT_KIND_POOL_CLEAR, pool->t->name));
}

MT_EXPORT void memtrack_pool_clear_at(memtrack_pool_t *pool, const char *file, int line,
                                      const char *func)
{
    if (pool == NULL)
        return;
    pool_clear(pool, pool->t == NULL ? MT_SITE_NONE
                                     : mt_owned_site(file, line, func, NULL,
                                                     MT_KIND_POOL_CLEAR, pool->t->name));
}

/* ---- destroy: live objects are reported by site ---------------------------------------- */

typedef struct live_object {
    uint32_t site;
    uint64_t seq;
} live_object_t;

typedef struct destroy_ctx {
    live_object_t *objects;
    size_t n;
    uint32_t site;
} destroy_ctx_t;

static void note_and_release(memtrack_pool_t *p, unsigned char *slot, void *ctx)
{
    destroy_ctx_t *c = ctx;
    slab_t *s = slab_of(p, (uintptr_t)slot);
    const slot_note_t *note = &s->notes[slot_at(p, s, (uintptr_t)(slot - s->base))];
    if (c->objects != NULL) {
        c->objects[c->n].site = note->alloc_site;
        c->objects[c->n].seq = note->seq;
        c->n++;
    }
    release_tracked_slot(p, slot, &c->site);
}

static int by_site_then_seq(const void *a, const void *b)
{
    const live_object_t *x = a, *y = b;
    if (x->site != y->site)
        return x->site < y->site ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static int by_first_seq(const void *a, const void *b)
{
    const mt_error_t *x = a, *y = b;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* One error per allocation site of the objects still live, oldest site first. */
static void report_live_at_destroy(memtrack_pool_t *p, live_object_t *objects, size_t n,
                                   uint32_t site)
{
    qsort(objects, n, sizeof *objects, by_site_then_seq);
    mt_error_t *groups = mt_libc_malloc(n * sizeof *groups);
    size_t ngroups = 0;
    if (groups == NULL)
        return;
    for (size_t i = 0; i < n; i++) {
        if (ngroups > 0 && groups[ngroups - 1].alloc_site == objects[i].site) {
            groups[ngroups - 1].changed++;
            groups[ngroups - 1].size += p->object_size;
            continue;
        }
        mt_error_t e = {.kind = MT_ERROR_POOL_LIVE_AT_DESTROY, .size = p->object_size,
                        .seq = objects[i].seq, .alloc_site = objects[i].site,
                        .found_site = site, .changed = 1};
        groups[ngroups++] = e;
    }
    qsort(groups, ngroups, sizeof *groups, by_first_seq);
    for (size_t g = 0; g < ngroups; g++)
        mt_error_report(&groups[g]);
    mt_libc_free(groups);
}

static void pool_destroy(memtrack_pool_t *p, uint32_t site)
{
    if (p->t != NULL) {
        mt_owner_remove(&p->t->owner);
        (void)check_ring(p, site);
        if (p->live > 0) {
            destroy_ctx_t c = {mt_libc_malloc(p->live * sizeof(live_object_t)), 0, site};
            each_live(p, note_and_release, &c);
            if (c.objects != NULL)
                report_live_at_destroy(p, c.objects, c.n, site);
            mt_libc_free(c.objects);
        }
        mt_libc_free(p->t->ring);
        mt_libc_free(p->t);
    }
    for (size_t k = 0; k < p->nslabs; k++)
        slab_release(&p->slabs[k]);
    mt_libc_free(p->slabs);
    mt_libc_free(p->by_address);
    mt_libc_free(p->stack);
    mt_libc_free(p);
}

MT_EXPORT void memtrack_pool_destroy(memtrack_pool_t *pool)
{
    if (pool == NULL)
        return;
    pool_destroy(pool, pool->t == NULL ? MT_SITE_NONE
                                       : mt_site_pc_owner(__builtin_return_address(0),
                                                          MT_KIND_POOL_DESTROY, pool->t->name));
}

MT_EXPORT void memtrack_pool_destroy_at(memtrack_pool_t *pool, const char *file, int line,
                                        const char *func)
{
    if (pool == NULL)
        return;
    pool_destroy(pool, pool->t == NULL ? MT_SITE_NONE
                                       : mt_owned_site(file, line, func, NULL,
                                                       MT_KIND_POOL_DESTROY, pool->t->name));
}

/* ---- queries and checks -------------------------------------------------------------- */

MT_EXPORT size_t memtrack_pool_live(const memtrack_pool_t *pool)
{
    return pool != NULL ? pool->live : 0;
}

MT_EXPORT size_t memtrack_pool_capacity(const memtrack_pool_t *pool)
{
    return pool != NULL ? pool->capacity : 0;
}

MT_EXPORT size_t memtrack_pool_object_size(const memtrack_pool_t *pool)
{
    return pool != NULL ? pool->object_size : 0;
}

MT_EXPORT int memtrack_pool_owns(const memtrack_pool_t *pool, const void *ptr)
{
    if (pool == NULL || ptr == NULL)
        return 0;
    size_t front = pool->t != NULL ? pool->t->front : 0;
    const slab_t *s = slab_of(pool, (uintptr_t)ptr);
    if (s == NULL || (uintptr_t)ptr - (uintptr_t)s->base < front)
        return 0;
    size_t i = slot_at(pool, s, (uintptr_t)ptr - (uintptr_t)s->base - front);
    return i != SIZE_MAX && slot_live(s, i);
}

typedef struct check_ctx {
    uint32_t site;
    int problems;
} check_ctx_t;

static void check_live(memtrack_pool_t *p, unsigned char *slot, void *ctx)
{
    check_ctx_t *c = ctx;
    c->problems += mt_owned_check(slot + p->t->front, c->site);
}

static int pool_check(memtrack_pool_t *p, uint32_t site)
{
    check_ctx_t c = {site, 0};
    if (p->t == NULL)
        return 0;
    each_live(p, check_live, &c);
    return c.problems + check_ring(p, site);
}

MT_EXPORT int memtrack_pool_check(memtrack_pool_t *pool)
{
    if (pool == NULL || pool->t == NULL)
        return 0;
    return pool_check(pool, mt_site_pc_owner(__builtin_return_address(0), MT_KIND_POOL_CHECK,
                                             pool->t->name));
}

MT_EXPORT int memtrack_pool_check_at(memtrack_pool_t *pool, const char *file, int line,
                                     const char *func)
{
    if (pool == NULL || pool->t == NULL)
        return 0;
    return pool_check(pool, mt_owned_site(file, line, func, NULL, MT_KIND_POOL_CHECK,
                                          pool->t->name));
}
