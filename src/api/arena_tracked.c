/* arena_tracked.c - a tracked arena: its allocations guarded, logged, checked and released.
 *
 * Tracked, each allocation is a block in the tracker's table (kind "arena", the arena's
 * name as owner) with guard bytes on both sides, laid out as guard.c draws a malloc'd
 * block, so the tracker's checks read it as any other block:
 *
 *   chunk   |pad|<- front 0xFD ->|<--- size --->|<- back 0xFD ->|pad|<- front ...
 *                                ^ user                         ^ the next allocation
 *
 * The guards take room, so a tracked arena places allocations in chunks that it adds as
 * needed, while it keeps counting `offset` exactly as the untracked arena does: the same
 * allocations fail with NULL, marks are the same numbers, memtrack_arena_used() is the
 * same, tracked or not. Released bytes (reset, rewind) are filled with 0xDD; before
 * handing them out again, and at destroy and exit, they are checked, so a write through a
 * pointer kept across a reset is reported.
 *
 * A log of the live allocations, in order, is what the arena keeps of them: an allocation
 * is counted, numbered and sited when made, but gets its record in the table only when
 * something reads the table (a report, memtrack_check(), a leak scan, a free() of an arena
 * pointer: mt_owners_publish calls the owner's publish hook). An arena's allocations are
 * released all at once, most of them before anyone looks: their guards are checked from
 * the log at reset, and the table's insert and removal, two thirds of what a tracked
 * allocation cost, are skipped (tools/bench/README.md, "Pools and arenas"). The log's lock
 * is for a publisher in another thread; the arena itself is one thread's at a time.
 */
#include <string.h>

#include "api/arena.h"
#include "api/fail.h"
#include "api/owned_log.h"
#include "records/stats.h"

#define DEFAULT_NAME "(unnamed)"

/* A site of the entry point's place and the stack of the allocation's site (errors found
 * while allocating: looked up then only). */
#define SITE_OF(kind)                                                                              \
    mt_owned_site(call->file, call->line, call->func, call->pc, MT_KIND_##kind, t->name,           \
                  mt_site_get(site)->stack)

/* The newest released allocation of chunk k whose bytes, guards included, held at, or NULL
 * (its entry written over since). */
static const arena_entry_t *released_at(const arena_tracking_t *t, size_t k,
                                        const unsigned char *at)
{
    for (size_t i = t->nentries; i < t->logged; i++) {
        const arena_entry_t *e = &t->entries[i];
        if (e->chunk == k && !e->paged && at >= e->user - t->guard &&
            at < t->chunks[k].base + e->to)
            return e;
    }
    return NULL;
}

/* Checks that bytes [from, to) of a chunk, released before, still hold the pattern;
 * reports a write after release and fills them again if not. Returns 1 if reported. */
static int check_released(arena_tracking_t *t, const arena_chunk_t *c, size_t from, size_t to,
                          uint32_t found_site)
{
    size_t first = 0;
    if (to > c->dirty)
        to = c->dirty;
    if (from >= to)
        return 0;
    size_t changed = mt_pattern_check(c->base + from, to - from, MT_FREE_FILL_BYTE, &first);
    if (MT_LIKELY(changed == 0))
        return 0;
    mt_error_t e = {.kind = MT_ERROR_ARENA_WRITE_AFTER_RELEASE,
                    .addr = (uintptr_t)(c->base + from + first),
                    .free_site = t->released_by,
                    .found_site = found_site,
                    .changed = changed};
    const arena_entry_t *was = released_at(t, (size_t)(c - t->chunks), c->base + from + first);
    if (was != NULL) {
        e.offset = (int64_t)(c->base + from + first - was->user);
        e.addr = (uintptr_t)was->user;
        e.size = was->size;
        e.seq = MT_META_SEQ(was->meta);
        e.alloc_site = was->site;
    }
    mt_error_report(&e);
    memset(c->base + from, MT_FREE_FILL_BYTE, to - from);
    return 1;
}

/* True when [from, to) of c's released bytes still hold the pattern: an allocation's check,
 * before which no site is looked up (check_released, on damage, makes the report). */
static inline __attribute__((always_inline)) bool released_intact(const arena_chunk_t *c,
                                                                  size_t from, size_t to)
{
    if (to > c->dirty)
        to = c->dirty;
    /* (32 bytes a round without a branch, 4x fewer instructions than the scan that locates
     * damage; inline, as every allocation in released bytes asks) */
    return from >= to || mt_pattern_intact_inline(c->base + from, to - from, MT_FREE_FILL_BYTE);
}

/* Every released byte of the arena. */
static int check_all_released(arena_tracking_t *t, uint32_t found_site)
{
    int problems = 0;
    for (size_t k = 0; k < t->nchunks; k++)
        problems +=
            check_released(t, &t->chunks[k], t->chunks[k].top, t->chunks[k].dirty, found_site);
    return problems;
}

static int owner_check(mt_owner_t *o, uint32_t found_site)
{
    return check_all_released((arena_tracking_t *)o, found_site);
}

static bool owner_contains(mt_owner_t *o, uintptr_t addr)
{
    const arena_tracking_t *t = (const arena_tracking_t *)o;
    for (size_t k = 0; k < t->nchunks; k++)
        if (addr - (uintptr_t)t->chunks[k].base < t->chunks[k].size)
            return true;
    return false;
}

static bool lock_log(arena_tracking_t *t)
{
    return mt_owner_lock(&t->lock);
}

static void publish_locked(arena_tracking_t *t)
{
    size_t n = __atomic_load_n(&t->nentries, __ATOMIC_ACQUIRE); /* (appended without the lock) */
    for (; t->published < n; t->published++) {
        arena_entry_t *e = &t->entries[t->published];
        if (e->meta != 0 && !mt_owned_publish(e->user, e->size, e->meta, e->site))
            e->meta = 0; /* out of memory: untracked from now on */
    }
}

static void owner_publish(mt_owner_t *o)
{
    arena_tracking_t *t = (arena_tracking_t *)o;
    if (!lock_log(t))
        return;
    publish_locked(t);
    mt_owner_unlock(&t->lock);
}

/* Adds an empty chunk of at least `need` bytes at the end. */
static bool add_chunk(memtrack_arena_t *a, size_t need)
{
    arena_tracking_t *t = a->t;
    if (t->nchunks >= ((size_t)1 << 31) - 1) /* (arena_entry_t's index) */
        return false;
    arena_chunk_t *chunks = mt_libc_realloc(t->chunks, (t->nchunks + 1) * sizeof *chunks);
    if (chunks == NULL)
        return false;
    t->chunks = chunks;
    size_t size = a->capacity / 4 + 4096;
    if (size < need)
        size = need;
    unsigned char *base = mt_libc_memalign(BASE_ALIGN, size);
    if (base == NULL)
        return false;
    arena_chunk_t c = {base, size, 0, 0};
    t->chunks[t->nchunks++] = c;
    return true;
}

/* Doubles the log's room; under its lock, as a publisher may be reading it. */
static bool grow_log(arena_tracking_t *t)
{
    size_t n = t->entries_size != 0 ? t->entries_size * 2 : 64;
    if (!lock_log(t))
        return false;
    arena_entry_t *entries = mt_libc_realloc(t->entries, n * sizeof *entries);
    if (entries != NULL) {
        t->entries = entries;
        t->entries_size = n;
    }
    mt_owner_unlock(&t->lock);
    return entries != NULL;
}

/* Appends the allocation at user (offsets [start, start + size) as the untracked arena
 * counts them; bytes up to `to` of chunk k) to the log and moves the arena's offset past it.
 * meta: its record's (mt_owned_log), 0 when it has none to publish. */
static inline __attribute__((always_inline)) void *
log_entry(memtrack_arena_t *a, unsigned char *user, size_t start, size_t size, size_t k, size_t to,
          uint32_t site, uint64_t meta, bool paged)
{
    arena_tracking_t *t = a->t;
    size_t n = t->nentries;
    arena_entry_t *e = &t->entries[n];
    e->user = user;
    e->start = start;
    e->to = to;
    e->size = size;
    e->meta = meta;
    e->site = site;
    e->chunk = (uint32_t)k;
    e->paged = paged;
    a->offset = arena_entry_end(e);
    /* The entry is whole before a publisher may see it: the count is its release. */
    __atomic_store_n(&t->nentries, n + 1, __ATOMIC_RELEASE);
    if (n + 1 > t->logged)
        t->logged = n + 1;
    return user;
}

/* Logs the allocation the page guards took (api/owned_paged.c, tracked there: no meta to
 * publish) as if it were in the current chunk, where it takes no room: the arena's offsets
 * count it as untracked. */
static MT_NOINLINE void *paged_entry(memtrack_arena_t *a, unsigned char *user, size_t start,
                                     size_t size, uint32_t site)
{
    const arena_tracking_t *t = a->t;
    return log_entry(a, user, start, size, t->chunk, t->chunks[t->chunk].top, site, 0, true);
}

/* The chunk an allocation needing `need` bytes goes to: the current one, or a later one
 * (later ones are empty; one too small is left empty), or a new one. SIZE_MAX when out of
 * memory. */
static MT_NOINLINE size_t chunk_with_room(memtrack_arena_t *a, size_t need)
{
    arena_tracking_t *t = a->t;
    size_t k = t->chunk;
    while (k < t->nchunks && t->chunks[k].size - t->chunks[k].top < need)
        k++;
    if (k == t->nchunks && !add_chunk(a, need))
        return SIZE_MAX;
    return k;
}

/* Writes a new allocation's guards and its 0xCD over bytes [top, to) of c, whose bytes
 * released before were checked. With the default guards and a small size, the 0xCD in
 * 16-byte stores inline (a call to memset and the registers it costs were a tenth of an
 * allocation): the last may run up to 16 bytes past the size, into the back guard, written
 * after it. */
#define FILL_INLINE_MAX 256u
static inline __attribute__((always_inline)) void lay_out(const arena_tracking_t *t,
                                                          arena_chunk_t *c, unsigned char *user,
                                                          size_t size, size_t front, size_t to)
{
    if (MT_LIKELY(front == 16 && t->guard == 16 && size <= FILL_INLINE_MAX)) {
        static const unsigned char fill[16] = {
            MT_ALLOC_FILL_BYTE, MT_ALLOC_FILL_BYTE, MT_ALLOC_FILL_BYTE, MT_ALLOC_FILL_BYTE,
            MT_ALLOC_FILL_BYTE, MT_ALLOC_FILL_BYTE, MT_ALLOC_FILL_BYTE, MT_ALLOC_FILL_BYTE,
            MT_ALLOC_FILL_BYTE, MT_ALLOC_FILL_BYTE, MT_ALLOC_FILL_BYTE, MT_ALLOC_FILL_BYTE,
            MT_ALLOC_FILL_BYTE, MT_ALLOC_FILL_BYTE, MT_ALLOC_FILL_BYTE, MT_ALLOC_FILL_BYTE};
        size_t i = 0;
        for (; i + 16 < size; i += 32) { /* (at most FILL_INLINE_MAX / 32 rounds) */
            memcpy(user + i, fill, 16);
            memcpy(user + i + 16, fill, 16);
        }
        if (i < size)
            memcpy(user + i, fill, 16);
        mt_guard_fill(user, size, 16, 16);
    } else {
        mt_guard_fill(user, size, front, t->guard);
        memset(user, MT_ALLOC_FILL_BYTE, size);
    }
    if (to > c->dirty)
        c->dirty = to;
    c->top = to;
}

/* The site of an allocation whose walk (mt_stack_walk_again's answer, into r) or place is
 * not r's: found as any owned allocation's, and kept in r for the next when walked inline
 * (no site, the tracker's memory exhausted: none kept, so that the next looks again). */
#define RECENT_MISSES_MAX 16 /* misses in a row before the slot is skipped, */
#define RECENT_SKIP 1024     /* for this many allocations (then tried again) */
static MT_NOINLINE uint32_t site_learned(const arena_tracking_t *t, arena_recent_t *r,
                                         const arena_call_t *call, int walk)
{
    mt_stack_found_t found =
        walk >= 0 ? mt_stack_found_walked(&r->walk) : mt_stack_found_any(call->frame, call->caller);
    uint32_t site = mt_owned_site_found(call->file, call->line, call->func, call->pc, MT_KIND_ARENA,
                                        t->name, found);
    if (MT_UNLIKELY(site == MT_SITE_NONE)) {
        r->walk.n = MT_STACK_WALK_NONE;
    } else if (walk >= 0) {
        r->file = call->file;
        r->line = call->line;
        r->func = call->func;
        r->pc = call->pc;
        r->site = site;
        if (++r->misses == RECENT_MISSES_MAX) {
            r->misses = 0;
            r->skip = RECENT_SKIP;
        }
    }
    return site;
}

/* The site of an allocation while its slot is skipped: found as before slots were kept. */
static MT_NOINLINE uint32_t site_skipped(const arena_tracking_t *t, arena_recent_t *r,
                                         const arena_call_t *call)
{
    r->skip--;
    return mt_owned_site_found(call->file, call->line, call->func, call->pc, MT_KIND_ARENA, t->name,
                               mt_stack_found_any(call->frame, call->caller));
}

/* The site of an allocation: the one kept in its return address's slot when made from the
 * same place through the same calls (the same return addresses: the same stack), else
 * learned; while the slot is skipped, found as before it was kept. */
static inline __attribute__((always_inline)) uint32_t alloc_site(arena_tracking_t *t,
                                                                 const arena_call_t *call)
{
    uint64_t slot = (uint64_t)(uintptr_t)call->caller * UINT64_C(0x9E3779B97F4A7C15);
    arena_recent_t *r = &t->recent[slot >> (64 - ARENA_RECENT_BITS)];
    if (MT_UNLIKELY(r->skip != 0))
        return site_skipped(t, r, call);
    int walk = mt_stack_walk_again(call->frame, &r->walk);
    if (MT_LIKELY(walk > 0) && r->file == call->file && r->line == call->line &&
        r->func == call->func && r->pc == call->pc) {
        r->misses = 0;
        return r->site;
    }
    return site_learned(t, r, call, walk);
}

/* mt_arena_place for a tracked arena: its base is 0 (arena.h: its offsets align as if its
 * block were aligned to anything), which the compiler cannot know. */
static inline size_t tracked_place(const memtrack_arena_t *a, size_t size, size_t align)
{
    size_t mask = align - 1;
    if (a->offset > SIZE_MAX - mask)
        return SIZE_MAX;
    size_t start = (a->offset + mask) & ~mask;
    if (start > a->capacity || size > a->capacity - start)
        return SIZE_MAX;
    return start;
}

/* mt_arena_tracked_alloc, inline in its two callers, so that the default alignment's is
 * worked out when compiled. */
static inline __attribute__((always_inline)) void *
tracked_alloc(memtrack_arena_t *a, size_t size, size_t align, const arena_call_t *call)
{
    arena_tracking_t *t = a->t;
    uint32_t site = alloc_site(t, call);
    /* Allocations made to fail (api/fail.c) are chosen where page guards are, as malloc's
     * are: while a fail_ option is set every allocation is due. */
    bool due = mt_owned_paged_due_inline();
    if (MT_UNLIKELY(due) && mt_fail_owned(site, size)) {
        mt_stats_failed(); /* on purpose (api/fail.c): as when the arena is full */
        return NULL;
    }
    size_t start = tracked_place(a, size, align);
    if (MT_UNLIKELY(start == SIZE_MAX || size > SIZE_MAX / 4) ||
        MT_UNLIKELY(t->nentries == t->entries_size && !grow_log(t))) {
        mt_stats_failed();
        return NULL;
    }
    if (MT_UNLIKELY(due)) { /* no room taken in a chunk then */
        uint64_t seq = 0;
        unsigned char *paged = mt_owned_paged_alloc(size, align, site, &seq);
        if (paged != NULL)
            return paged_entry(a, paged, start, size, site);
    }
    size_t front = mt_front_size(t->guard, align);
    size_t need = align + front + size + t->guard; /* enough whatever the padding */
    size_t k = t->chunk;
    if (MT_UNLIKELY(t->chunks[k].size - t->chunks[k].top < need) &&
        (k = chunk_with_room(a, need)) == SIZE_MAX) {
        mt_stats_failed();
        return NULL;
    }
    arena_chunk_t *c = &t->chunks[k];
    uintptr_t p = (uintptr_t)c->base + c->top;
    unsigned char *user = (unsigned char *)(((p + align - 1) & ~(uintptr_t)(align - 1)) + front);
    size_t to = (size_t)(user - c->base) + size + t->guard;
    /* (a write after the reset that released these bytes is reported here, naming the
     * allocation they went to; the site of the report is looked up then only) */
    if (c->top < c->dirty && !released_intact(c, c->top, to))
        (void)check_released(t, c, c->top, to, SITE_OF(ARENA_ALLOC));
    lay_out(t, c, user, size, front, to);
    t->chunk = k;
    return log_entry(a, user, start, size, k, to, site, mt_owned_log_inline(size, align, site),
                     false);
}

void *mt_arena_tracked_alloc(memtrack_arena_t *a, size_t size, size_t align,
                             const arena_call_t *call)
{
    return tracked_alloc(a, size, align, call);
}

void *mt_arena_tracked_alloc_default(memtrack_arena_t *a, size_t size, const arena_call_t *call)
{
    return tracked_alloc(a, size, DEFAULT_ALIGN, call);
}

/* Releases a logged allocation that has no record yet (meta not 0), whose front guard is
 * `front` bytes: its guards are checked here, and only damage gives it its record, so that
 * the report is the one any owned block gets. True when it is left to the caller to uncount
 * (mt_owned_unlog, once for a release's allocations). */
static inline __attribute__((always_inline)) bool
release_logged(const arena_tracking_t *t, const arena_entry_t *e, size_t front, uint32_t site)
{
    if (MT_LIKELY(mt_guard_intact(e->user - front, front) &&
                  mt_guard_intact(e->user + e->size, t->guard)))
        return true;
    if (mt_owned_publish(e->user, e->size, e->meta, e->site))
        (void)mt_owned_remove(e->user, site, NULL); /* checks and reports the guards */
    return false;
}

/* Releases the newest allocations down to `keep` left (checking their guards), then
 * fills the released bytes with the pattern unless the memory is about to go. The log's
 * lock is held only to take them out of a publisher's sight: removing a record takes a
 * shard's lock, which mt_owned_remove refuses inside another of the tracker's. */
static void release_down_to(memtrack_arena_t *a, size_t keep, uint32_t site, bool fill)
{
    arena_tracking_t *t = a->t;
    size_t n = t->nentries, published;
    if (!lock_log(t))
        return; /* (a signal handler that interrupted this thread publishing: left as is) */
    published = t->published;
    t->nentries = keep;
    if (t->published > keep)
        t->published = keep;
    mt_owner_unlock(&t->lock);
    size_t bytes = 0, blocks = 0;
    /* (the front guard of malloc's alignment or less, worked out once for them all) */
    const size_t front_min = mt_front_size(t->guard, MT_MIN_ALIGN);
    while (n > keep) {
        const arena_entry_t *e = &t->entries[--n];
        if (MT_LIKELY(n >= published && e->meta != 0)) { /* logged only (a paged one: meta 0) */
            unsigned shift = MT_META_ALIGN_SHIFT(e->meta);
            size_t front = MT_LIKELY(shift <= MT_MIN_ALIGN_SHIFT)
                               ? front_min
                               : mt_front_size(t->guard, (size_t)1 << shift);
            if (release_logged(t, e, front, site)) {
                bytes += e->size;
                blocks++;
            }
        } else if (e->paged) {
            (void)mt_owned_remove_paged(e->user, site, NULL);
        } else if (n < published) {
            (void)mt_owned_remove(e->user, site, NULL);
        } /* (else untracked: nothing to release) */
    }
    /* (counted after the guards' reports, which name no figure that this changes) */
    mt_owned_unlog(bytes, blocks);
    t->chunk = keep > 0 ? t->entries[keep - 1].chunk : 0;
    for (size_t k = t->chunk; k < t->nchunks; k++) {
        arena_chunk_t *c = &t->chunks[k];
        c->top = k == t->chunk && keep > 0 ? t->entries[keep - 1].to : 0;
        if (fill && c->top < c->dirty)
            memset(c->base + c->top, MT_FREE_FILL_BYTE, c->dirty - c->top);
    }
    t->released_by = site;
}

void mt_arena_tracked_rewind(memtrack_arena_t *a, size_t mark, uint32_t site)
{
    arena_tracking_t *t = a->t;
    if (mark > a->offset) {
        mt_error_t e = {.kind = MT_ERROR_ARENA_BAD_MARK,
                        .found_site = site,
                        .offset = (int64_t)mark,
                        .extent = a->offset};
        mt_error_report(&e);
        return;
    }
    size_t keep = t->nentries;
    while (keep > 0 && t->entries[keep - 1].start >= mark)
        keep--;
    if (keep > 0 &&
        arena_entry_end(&t->entries[keep - 1]) > mark) { /* the mark cuts an allocation */
        mt_block_t b;
        mt_error_t e = {
            .kind = MT_ERROR_ARENA_BAD_MARK, .found_site = site, .offset = (int64_t)mark};
        owner_publish(&t->owner); /* (the message names the allocation by its record) */
        if (mt_block_peek(t->entries[keep - 1].user, &b))
            mt_error_from_block(&e, &b);
        mt_error_report(&e);
        mark = arena_entry_end(&t->entries[keep - 1]);
    }
    release_down_to(a, keep, site, true);
    a->offset = mark;
}

void mt_arena_tracked_reset(memtrack_arena_t *a, uint32_t site)
{
    release_down_to(a, 0, site, true);
}

/* ---- creation and destruction ------------------------------------------------------- */

bool mt_arena_tracked_init(memtrack_arena_t *a, const char *name)
{
    arena_tracking_t *t = mt_libc_calloc(1, sizeof *t);
    if (t == NULL)
        return false;
    a->t = t;
    t->arena = a;
    t->name = mt_owner_intern(name != NULL ? name : DEFAULT_NAME);
    t->guard = mt_guard_size();
    t->owner.check = owner_check;
    t->owner.contains = owner_contains;
    t->owner.publish = owner_publish;
    t->owner.name = t->name;
    t->owner.kind = MT_KIND_ARENA;
    for (size_t i = 0; i < sizeof t->recent / sizeof t->recent[0]; i++)
        t->recent[i].walk.n = MT_STACK_WALK_NONE;
    /* The first chunk up front, as the untracked arena takes its block: room for the
     * capacity and for guards around a fair number of allocations. */
    if (!add_chunk(a, a->capacity + a->capacity / 4 + 4096)) {
        a->t = NULL;
        mt_libc_free(t);
        return false;
    }
    mt_owner_add(&t->owner);
    return true;
}

void mt_arena_tracked_destroy(memtrack_arena_t *a, uint32_t site)
{
    arena_tracking_t *t = a->t;
    mt_owner_remove(&t->owner);
    (void)check_all_released(t, site);
    release_down_to(a, 0, site, false);
    for (size_t k = 0; k < t->nchunks; k++)
        mt_libc_free(t->chunks[k].base);
    mt_libc_free(t->chunks);
    mt_libc_free(t->entries);
    mt_libc_free(t);
}
