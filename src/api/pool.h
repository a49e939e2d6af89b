/* pool.h - the pools' shared parts: their types and the small helpers both sides use
 * (pool.c: slabs, the untracked fast path and the API; pool_tracked.c: the tracked side).
 */
#ifndef MT_POOL_H
#define MT_POOL_H

#include "api/api.h"
#include "api/owned.h"
#include "records/stats.h"

#include <string.h>

#define DEFAULT_NAME "(unnamed)"

typedef struct slot_note {
    uint64_t seq;        /* the object's sequence number, 0 if it was not recorded */
    uint32_t alloc_site; /* where it was allocated */
    uint32_t free_site;  /* where it was released (released slots) */
    uint32_t period;     /* the pool's marks before it was made (memtrack_pool_mark) */
    uint32_t paged;      /* the object is against a guard page (owned_paged.c), elsewhere: the
                            slot, reserved for it, keeps its address in its first bytes */
    size_t size;         /* the size asked for (memtrack_pool_alloc_size), or the pool's */
} slot_note_t;

typedef struct slab {
    unsigned char *base; /* the first slot */
    size_t slots;
    uint32_t first;     /* the pool-wide number of its first slot */
    uint64_t *live;     /* bit i: slot i holds a live object */
    slot_note_t *notes; /* tracked pools only */
} slab_t;

typedef struct pool_tracking {
    mt_owner_t owner; /* in register.c's list, for the exit-time check */
    memtrack_pool_t *pool;
    const char *name;   /* interned */
    size_t front, back; /* guard bytes before and after each object */
    void **ring;        /* released slots, oldest at ring[head] */
    size_t head, count, ring_size;
    uint32_t period; /* marks so far: objects made since the last have this period */
    /* live page-guarded objects -> their reserved slots (pool_tracked.c), open addressing:
     * a key 0 is free, 1 a removed entry */
    uintptr_t *paged_objects;
    unsigned char **paged_slots;
    size_t paged_size, paged_used;
    bool wholesale; /* destroyed with its objects in it by design: no error then */
} pool_tracking_t;

struct memtrack_pool {
    /* the untracked fast path reads these */
    uint32_t *stack; /* untracked: numbers of released slots, newest on top */
    size_t top;
    unsigned char *fresh; /* the next never-used slot of slabs[fresh_index] */
    unsigned char *fresh_end;
    size_t stride;           /* bytes from one slot to the next */
    unsigned stride_shift;   /* stride = odd << stride_shift */
    uint64_t stride_inverse; /* odd * stride_inverse == 1 (mod 2^64): exact division */
    slab_t *slabs;           /* in creation order */
    size_t nslabs;
    size_t live;
    pool_tracking_t *t; /* NULL: untracked */
    /* the rest */
    size_t fresh_index;
    size_t *by_address; /* slab indices sorted by base, for pools of several slabs */
    size_t slabs_size;  /* room in slabs and by_address */
    size_t capacity, object_size, align;
    size_t grow_by, max_objects;
};

/* The slab holding address a, or NULL, in a pool of several slabs. */
slab_t *mt_pool_slab_search(const memtrack_pool_t *p, uintptr_t a);
/* The slab holding address a, or NULL. */
static inline slab_t *slab_of(const memtrack_pool_t *p, uintptr_t a)
{
    if (MT_LIKELY(p->nslabs == 1)) {
        slab_t *s = p->slabs;
        return a - (uintptr_t)s->base < s->slots * p->stride ? s : NULL;
    }
    return mt_pool_slab_search(p, a);
}

/* The index of the slot starting exactly at offset off of slab s, or SIZE_MAX. Exact
 * division by multiplication: off / stride when stride divides off, else a value past
 * any slab (Granlund and Montgomery). */
static inline size_t slot_at(const memtrack_pool_t *p, const slab_t *s, uintptr_t off)
{
    if (off & (((uintptr_t)1 << p->stride_shift) - 1))
        return SIZE_MAX;
    uint64_t i = (uint64_t)(off >> p->stride_shift) * p->stride_inverse;
    return i < s->slots ? (size_t)i : SIZE_MAX;
}

static inline bool slot_live(const slab_t *s, size_t i)
{
    return (s->live[i >> 6] >> (i & 63)) & 1u;
}

static inline void set_live(slab_t *s, size_t i)
{
    s->live[i >> 6] |= UINT64_C(1) << (i & 63);
}

static inline void clear_live(slab_t *s, size_t i)
{
    s->live[i >> 6] &= ~(UINT64_C(1) << (i & 63));
}

static inline size_t bitmap_words(size_t slots)
{
    return (slots + 63) / 64;
}

/* Marks slot (of slab s, index i) live. */
static inline void mark_live(memtrack_pool_t *p, const unsigned char *slot, slab_t **s, size_t *i)
{
    *s = slab_of(p, (uintptr_t)slot);
    *i = slot_at(p, *s, (uintptr_t)(slot - (*s)->base));
    set_live(*s, *i);
    p->live++;
}

/* The object a live slot holds: the slot's own bytes past the front guard, or (tracked) the
 * page-guarded object the slot is reserved for. */
static inline unsigned char *mt_pool_object_of(const memtrack_pool_t *p, unsigned char *slot)
{
    if (p->t == NULL)
        return slot;
    const slab_t *s = slab_of(p, (uintptr_t)slot);
    if (MT_LIKELY(!s->notes[slot_at(p, s, (uintptr_t)(slot - s->base))].paged))
        return slot + p->t->front;
    unsigned char *object;
    memcpy(&object, slot, sizeof object);
    return object;
}

/* pool.c */
/* A never-used slot, from the next untouched slab or a new one; NULL when full. */
unsigned char *mt_pool_fresh_slot_slow(memtrack_pool_t *p);
/* Calls fn(pool, slot) for every live slot; fn may release any of them. */
void mt_pool_each_live(memtrack_pool_t *p, void (*fn)(memtrack_pool_t *, unsigned char *, void *),
                       void *ctx);

/* pool_tracked.c */
/* An object of `size` bytes (at most the pool's object size; the bytes after it up to
 * the slot's end are checked as its back guard). */
void *mt_pool_tracked_alloc(memtrack_pool_t *p, size_t size, const char *file, int line,
                            const char *func, void *pc, mt_stack_found_t found);
void mt_pool_tracked_free(memtrack_pool_t *p, void *object, const char *file, int line,
                          const char *func, void *pc, mt_stack_found_t found);
/* A level's or a frame's end: reports the objects made since the last mark still live, by
 * site; returns how many. */
size_t mt_pool_tracked_mark(memtrack_pool_t *p, uint32_t site);
/* Checks the released slots, then releases every live object (clear). */
void mt_pool_tracked_clear(memtrack_pool_t *p, uint32_t site);
/* Unlists the pool, checks its released slots, reports and releases its live objects by
 * site and frees its tracking (destroy). */
void mt_pool_tracked_destroy(memtrack_pool_t *p, uint32_t site);
/* Checks every live object's guards and every released slot (memtrack_pool_check). */
int mt_pool_tracked_check(memtrack_pool_t *p, uint32_t site);
/* The slot reserved for the live page-guarded object at object (owned_paged.c), or NULL. */
unsigned char *mt_pool_paged_slot(const memtrack_pool_t *p, const void *object);
/* The owner's hooks for the exit-time check (register.c). */
int mt_pool_owner_check(mt_owner_t *o, uint32_t found_site);
bool mt_pool_owner_contains(mt_owner_t *o, uintptr_t addr);

#endif /* MT_POOL_H */
