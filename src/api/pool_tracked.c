/* pool_tracked.c - the tracked side of pools (created by code built with MEMORY_CONTROL_ON).
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

#include "api/fail.h"
#include "api/pool.h"
#include "checks/page_guard.h" /* (its functions alone: test/e2e/pool_nocalls.sh) */

/* A site of the entry point's place and stack; the allocation's and the release's own come
 * from the stack's cache entry (api/owned.h), the others (errors) are looked up. */
#define SITE_OF(kind) mt_owned_site(file, line, func, pc, MT_KIND_##kind, p->t->name, found.stack)
#define FOUND_SITE(kind)                                                                           \
    mt_owned_site_found(file, line, func, pc, MT_KIND_##kind, p->t->name, found)

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
                    .addr = (uintptr_t)(slot + p->t->front),
                    .size = note->size,
                    .seq = note->seq,
                    .alloc_site = note->alloc_site,
                    .free_site = note->free_site,
                    .found_site = found_site,
                    .changed = changed,
                    .offset = (int64_t)first - (int64_t)p->t->front};
    mt_error_report(&e);
    memset(slot, MT_FREE_FILL_BYTE, p->stride);
}

/* (no locating of what changed, which report_released does; inline, as every allocation of
 * a released slot asks) */
static bool released_intact(const memtrack_pool_t *p, const unsigned char *slot)
{
    return mt_pattern_intact_inline(slot, p->stride, MT_FREE_FILL_BYTE);
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
        problems += check_released(p, p->t->ring[(p->t->head + k) % p->t->ring_size], found_site);
    return problems;
}

/* An object smaller than its slot (memtrack_pool_alloc_size) has spare bytes, filled as
 * its back guard. The record's guard check covers one guard's worth past the object's end;
 * this covers the rest, to the slot's end. Damage there is an overrun of the object,
 * reported once: the whole back area is filled again, so the record's check that follows
 * finds nothing more. Returns 1 when reported. */
static MT_NOINLINE int check_spare_slow(memtrack_pool_t *p, unsigned char *object, size_t size,
                                        uint32_t found_site)
{
    size_t covered = size + p->t->back, end = p->object_size + p->t->back, first;
    if (MT_LIKELY(covered >= end) ||
        mt_pattern_check(object + covered, end - covered, MT_GUARD_BYTE, &first) == 0)
        return 0;
    size_t last = end;
    while (last > covered && object[last - 1] == MT_GUARD_BYTE)
        last--;
    mt_guard_damage_t under = {0, 0};
    mt_guard_damage_t over = {mt_pattern_check(object + size, end - size, MT_GUARD_BYTE, &first),
                              last - size};
    mt_block_t b;
    if (mt_block_peek(object, &b))
        mt_report_guard_damage(&b, found_site, &under, &over);
    memset(object + size, MT_GUARD_BYTE, end - size);
    return 1;
}

/* Objects of the pool's own size (no spare bytes) cost one compare. */
static inline int check_spare(memtrack_pool_t *p, unsigned char *object, size_t size,
                              uint32_t found_site)
{
    return MT_LIKELY(size == p->object_size) ? 0 : check_spare_slow(p, object, size, found_site);
}

/* ---- page-guarded objects ---------------------------------------------------------------- */

/* A page-guarded object (api/owned_paged.c) lies outside the pool; the slot it was to take
 * stays reserved for it, so the pool fills up as it would untracked, and the pool finds
 * the slot again by the object's address here: a table of open addressing, sized to twice
 * the live ones at least. */
#define PAGED_FREE ((uintptr_t)0)
#define PAGED_GONE ((uintptr_t)1)

static size_t paged_home(const pool_tracking_t *t, uintptr_t object)
{
    return (size_t)((object >> 4) * UINT64_C(0x9E3779B97F4A7C15) >> 20) & (t->paged_size - 1);
}

/* The entry of object, or (not there) SIZE_MAX. */
static size_t paged_find(const pool_tracking_t *t, uintptr_t object)
{
    if (t->paged_size == 0)
        return SIZE_MAX;
    for (size_t k = paged_home(t, object), n = 0; n < t->paged_size;
         k = (k + 1) & (t->paged_size - 1), n++) {
        if (t->paged_objects[k] == object)
            return k;
        if (t->paged_objects[k] == PAGED_FREE)
            break;
    }
    return SIZE_MAX;
}

static void paged_put(pool_tracking_t *t, uintptr_t object, unsigned char *slot)
{
    size_t k = paged_home(t, object);
    while (t->paged_objects[k] > PAGED_GONE)
        k = (k + 1) & (t->paged_size - 1);
    t->paged_used += t->paged_objects[k] == PAGED_FREE;
    t->paged_objects[k] = object;
    t->paged_slots[k] = slot;
}

/* Room for one more entry (removed ones dropped as the table is made again); false when
 * there is no memory. */
static bool paged_room(pool_tracking_t *t)
{
    if (2 * (t->paged_used + 1) <= t->paged_size)
        return true;
    size_t size = t->paged_size != 0 ? t->paged_size * 2 : 64;
    uintptr_t *objects = mt_libc_calloc(size, sizeof *objects);
    unsigned char **slots = mt_libc_calloc(size, sizeof *slots);
    if (objects == NULL || slots == NULL) {
        mt_libc_free(objects);
        mt_libc_free(slots);
        return false;
    }
    uintptr_t *old_objects = t->paged_objects;
    unsigned char **old_slots = t->paged_slots;
    size_t old_size = t->paged_size;
    t->paged_objects = objects;
    t->paged_slots = slots;
    t->paged_size = size;
    t->paged_used = 0;
    for (size_t k = 0; k < old_size; k++)
        if (old_objects[k] > PAGED_GONE)
            paged_put(t, old_objects[k], old_slots[k]);
    mt_libc_free(old_objects);
    mt_libc_free(old_slots);
    return true;
}

unsigned char *mt_pool_paged_slot(const memtrack_pool_t *p, const void *object)
{
    size_t k = paged_find(p->t, (uintptr_t)object);
    return k != SIZE_MAX ? p->t->paged_slots[k] : NULL;
}

/* The object for slot, against a guard page when the options choose it (asked when
 * mt_owned_paged_due): the slot then keeps its address. NULL when it goes in the slot. */
static MT_NOINLINE unsigned char *paged_object(memtrack_pool_t *p, unsigned char *slot, size_t size,
                                               uint32_t site, uint64_t *seq)
{
    if (!paged_room(p->t))
        return NULL;
    unsigned char *object = mt_owned_paged_alloc(size, p->align, site, seq);
    if (object != NULL) {
        paged_put(p->t, (uintptr_t)object, slot);
        memcpy(slot, &object, sizeof object);
    }
    return object;
}

/* The slot of the page-guarded object at object, its entry taken out. */
static void paged_forget(pool_tracking_t *t, const void *object)
{
    size_t k = paged_find(t, (uintptr_t)object);
    if (k != SIZE_MAX)
        t->paged_objects[k] = PAGED_GONE;
}

int mt_pool_owner_check(mt_owner_t *o, uint32_t found_site)
{
    pool_tracking_t *t = (pool_tracking_t *)o; /* owner is its first member */
    return check_ring(t->pool, found_site);
}

bool mt_pool_owner_contains(mt_owner_t *o, uintptr_t addr)
{
    return slab_of(((pool_tracking_t *)o)->pool, addr) != NULL;
}

void *mt_pool_tracked_alloc(memtrack_pool_t *p, size_t size, const char *file, int line,
                            const char *func, void *pc, mt_stack_found_t found)
{
    pool_tracking_t *t = p->t;
    unsigned char *slot;
    bool reused = false;
    if (size > p->object_size) {
        mt_stats_failed();
        return NULL;
    }
    uint32_t site = FOUND_SITE(POOL);
    /* Allocations made to fail (api/fail.c) are chosen where page guards are, as malloc's
     * are: while a fail_ option is set every allocation is due. */
    bool due = mt_owned_paged_due();
    if (MT_UNLIKELY(due) && mt_fail_owned(site, size)) {
        mt_stats_failed(); /* on purpose (api/fail.c): as when the pool is full */
        return NULL;
    }
    /* Never-used slots first: a released one then waits as long as it can. */
    if (p->fresh < p->fresh_end) {
        slot = p->fresh;
        p->fresh += p->stride;
    } else if (t->count > 0) {
        slot = t->ring[t->head];
        t->head = (t->head + 1) % t->ring_size;
        t->count--;
        reused = true;
    } else if ((slot = mt_pool_fresh_slot_slow(p)) == NULL) {
        mt_stats_failed();
        return NULL;
    }
    if (reused && MT_UNLIKELY(!released_intact(p, slot)))
        report_released(p, slot, SITE_OF(POOL_ALLOC));
    slab_t *s;
    size_t i;
    mark_live(p, slot, &s, &i);
    slot_note_t *note = &s->notes[i];
    note->seq = 0;
    note->alloc_site = site;
    note->free_site = MT_SITE_NONE;
    note->period = t->period;
    note->size = size;
    unsigned char *object = NULL;
    if (MT_UNLIKELY(due))
        object = paged_object(p, slot, size, site, &note->seq);
    note->paged = object != NULL;
    if (MT_LIKELY(object == NULL)) {
        object = slot + t->front;
        mt_guard_fill(object, size, t->front, t->back + (p->object_size - size));
        memset(object, MT_ALLOC_FILL_BYTE, size);
        (void)mt_owned_insert(object, size, p->align, site, &note->seq);
    }
    return object;
}

/* Reports a release of a pointer that is not a live object of the pool. */
static void bad_release(memtrack_pool_t *p, const void *object, slab_t *s, uint32_t site)
{
    mt_error_t e = {
        .kind = MT_ERROR_POOL_FOREIGN_RELEASE, .addr = (uintptr_t)object, .found_site = site};
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
    e.size = note->size;
    e.seq = note->seq;
    e.alloc_site = note->alloc_site;
    e.offset = (int64_t)(off - i * p->stride) - (int64_t)p->t->front;
    mt_error_report(&e);
}

/* A slot whose object was released: noted, filled, queued. */
static inline void release_slot(memtrack_pool_t *p, slab_t *s, size_t i, unsigned char *slot,
                                uint32_t site)
{
    pool_tracking_t *t = p->t;
    clear_live(s, i);
    p->live--;
    s->notes[i].free_site = site;
    s->notes[i].paged = 0;
    memset(slot, MT_FREE_FILL_BYTE, p->stride);
    t->ring[(t->head + t->count) % t->ring_size] = slot;
    t->count++;
}

/* The release of a pointer in the page guards' region: a live page-guarded object of the
 * pool (its pages made inaccessible), one released already, or someone else's. */
static void paged_free(memtrack_pool_t *p, void *object, uint32_t site)
{
    unsigned char *slot = mt_pool_paged_slot(p, object);
    mt_block_t b;
    if (slot == NULL) {
        const char *made_by = NULL;
        if (mt_page_guard_freed_record(object, &b))
            made_by = mt_site_get(b.site)->owner; /* (a site's own copy of the name) */
        if (made_by != NULL && strcmp(made_by, p->t->name) == 0) {
            mt_error_t e = {.kind = MT_ERROR_POOL_DOUBLE_RELEASE,
                            .addr = (uintptr_t)object,
                            .size = b.size,
                            .seq = MT_META_SEQ(b.meta),
                            .alloc_site = b.site,
                            .free_site = b.free_site,
                            .found_site = site};
            mt_error_report(&e);
        } else {
            bad_release(p, object, NULL, site);
        }
        return;
    }
    slab_t *s = slab_of(p, (uintptr_t)slot);
    paged_forget(p->t, object);
    (void)mt_owned_remove_paged(object, site, &b); /* checks the guards, closes the pages */
    release_slot(p, s, slot_at(p, s, (uintptr_t)(slot - s->base)), slot, site);
}

void mt_pool_tracked_free(memtrack_pool_t *p, void *object, const char *file, int line,
                          const char *func, void *pc, mt_stack_found_t found)
{
    pool_tracking_t *t = p->t;
    uint32_t site = FOUND_SITE(POOL_FREE);
    slab_t *s = slab_of(p, (uintptr_t)object);
    size_t i = SIZE_MAX;
    if (s != NULL && (uintptr_t)object - (uintptr_t)s->base >= t->front)
        i = slot_at(p, s, (uintptr_t)object - (uintptr_t)s->base - t->front);
    if (s == NULL && MT_UNLIKELY(mt_owned_paged_at(object))) {
        paged_free(p, object, site);
        return;
    }
    if (i == SIZE_MAX) {
        bad_release(p, object, s, site);
        return;
    }
    slot_note_t *note = &s->notes[i];
    if (!slot_live(s, i)) {
        mt_error_t e = {.kind = MT_ERROR_POOL_DOUBLE_RELEASE,
                        .addr = (uintptr_t)object,
                        .size = note->size,
                        .seq = note->seq,
                        .alloc_site = note->alloc_site,
                        .free_site = note->free_site,
                        .found_site = site};
        mt_error_report(&e);
        return;
    }
    (void)check_spare(p, object, note->size, site);
    (void)mt_owned_remove(object, site, NULL); /* checks the guards */
    release_slot(p, s, i, slot_of_object(p, object), site);
}

/* ---- clear, destroy and check ---------------------------------------------------------- */

/* Releases one live slot of a tracked pool (clear, destroy). */
static void release_tracked_slot(memtrack_pool_t *p, unsigned char *slot, void *ctx)
{
    uint32_t site = *(const uint32_t *)ctx;
    slab_t *s = slab_of(p, (uintptr_t)slot);
    size_t i = slot_at(p, s, (uintptr_t)(slot - s->base));
    unsigned char *object = mt_pool_object_of(p, slot);
    mt_block_t b;
    if (MT_UNLIKELY(s->notes[i].paged)) {
        paged_forget(p->t, object);
        (void)mt_owned_remove_paged(object, site, &b);
    } else {
        (void)check_spare(p, object, s->notes[i].size, site);
        (void)mt_owned_remove(object, site, &b);
    }
    release_slot(p, s, i, slot, site);
}

void mt_pool_tracked_clear(memtrack_pool_t *p, uint32_t site)
{
    (void)check_ring(p, site);
    mt_pool_each_live(p, release_tracked_slot, &site);
}

/* Destroy and marks: live objects are reported by site. */
typedef struct live_object {
    uint32_t site;
    uint64_t seq;
    size_t size;
} live_object_t;

typedef struct destroy_ctx {
    live_object_t *objects;
    size_t n;
    uint32_t site;
    bool release; /* destroy: release them too (a mark only notes them) */
} destroy_ctx_t;

static void note_and_release(memtrack_pool_t *p, unsigned char *slot, void *ctx)
{
    destroy_ctx_t *c = ctx;
    slab_t *s = slab_of(p, (uintptr_t)slot);
    const slot_note_t *note = &s->notes[slot_at(p, s, (uintptr_t)(slot - s->base))];
    if (c->objects != NULL && (c->release || note->period == p->t->period)) {
        c->objects[c->n].site = note->alloc_site;
        c->objects[c->n].seq = note->seq;
        c->objects[c->n].size = note->size;
        c->n++;
    }
    if (c->release)
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

/* One error of kind `kind` per allocation site of the objects still live, oldest site
 * first. */
static void report_live(memtrack_pool_t *p, mt_error_kind_t kind, live_object_t *objects, size_t n,
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
            groups[ngroups - 1].size += objects[i].size;
            continue;
        }
        mt_error_t e = {.kind = kind,
                        .size = objects[i].size,
                        .seq = objects[i].seq,
                        .alloc_site = objects[i].site,
                        .found_site = site,
                        .changed = 1};
        groups[ngroups++] = e;
    }
    qsort(groups, ngroups, sizeof *groups, by_first_seq);
    for (size_t g = 0; g < ngroups; g++)
        mt_error_report(&groups[g]);
    mt_libc_free(groups);
}

void mt_pool_tracked_destroy(memtrack_pool_t *p, uint32_t site)
{
    mt_owner_remove(&p->t->owner);
    (void)check_ring(p, site);
    if (p->live > 0) {
        /* A pool released all at once notes nothing: its leaks are found by marks. */
        destroy_ctx_t c = {p->t->wholesale ? NULL : mt_libc_malloc(p->live * sizeof(live_object_t)),
                           0, site, true};
        mt_pool_each_live(p, note_and_release, &c);
        if (c.objects != NULL)
            report_live(p, MT_ERROR_POOL_LIVE_AT_DESTROY, c.objects, c.n, site);
        mt_libc_free(c.objects);
    }
    mt_libc_free(p->t->ring);
    mt_libc_free(p->t->paged_objects);
    mt_libc_free(p->t->paged_slots);
    mt_libc_free(p->t);
}

size_t mt_pool_tracked_mark(memtrack_pool_t *p, uint32_t site)
{
    destroy_ctx_t c = {NULL, 0, site, false};
    if (p->live > 0 && (c.objects = mt_libc_malloc(p->live * sizeof(live_object_t))) != NULL) {
        mt_pool_each_live(p, note_and_release, &c);
        if (c.n > 0)
            report_live(p, MT_ERROR_POOL_LIVE_AT_MARK, c.objects, c.n, site);
        mt_libc_free(c.objects);
    }
    p->t->period++;
    return c.n;
}

typedef struct check_ctx {
    uint32_t site;
    int problems;
} check_ctx_t;

static void check_live(memtrack_pool_t *p, unsigned char *slot, void *ctx)
{
    check_ctx_t *c = ctx;
    slab_t *s = slab_of(p, (uintptr_t)slot);
    const slot_note_t *note = &s->notes[slot_at(p, s, (uintptr_t)(slot - s->base))];
    unsigned char *object = mt_pool_object_of(p, slot);
    if (!note->paged) /* (a page-guarded one: its spare bytes are a page away) */
        c->problems += check_spare(p, object, note->size, c->site);
    c->problems += mt_owned_check(object, c->site);
}

int mt_pool_tracked_check(memtrack_pool_t *p, uint32_t site)
{
    check_ctx_t c = {site, 0};
    if (p->t == NULL)
        return 0;
    mt_pool_each_live(p, check_live, &c);
    return c.problems + check_ring(p, site);
}
