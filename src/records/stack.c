/* stack.c - call stacks, interned.
 *
 * A site (site.c) is a place and the stack that led to it, so a record keeps one 32-bit
 * site id whatever the depth: a stack is stored once, in chunks that never move, and known
 * by its id. Looking a stack up costs a hash of its return addresses (taken as they are
 * walked, base/unwind.h) and, in the common case, a hit in this thread's small cache
 * checked against the stored copy (no lock: a stored stack never changes once its id is
 * published). A miss takes the global index's lock, as sites do.
 */
#define _GNU_SOURCE
#include <string.h>

#include "base/lock.h"
#include "base/code_map.h"
#include "base/memory.h"
#include "base/options.h"
#include "base/unwind.h"
#include "records/intern.h"
#include "records/site.h"
#include "records/stack.h"

/* 1024 stacks a chunk, 16 million stacks; on bare metal 64 a chunk, 16384 stacks (where
 * no unwinder works: base/unwind.c, none at all). */
#define CHUNK_BITS MT_SMALL(10, 6)
#define MAX_CHUNKS MT_SMALL(16384u, 256u)

typedef struct stored {
    uint64_t hash;
    unsigned n;
    uint32_t id; /* its own id: a cache entry keeps the stack, not the id */
    void *pcs[]; /* n return addresses */
} stored_t;

/* An entry of the global index (records/intern.c): a probe compares the stored stack only
 * where the hash is the same. */
typedef struct index_entry {
    uint32_t id; /* 0: empty (first: intern.h) */
    uint64_t hash;
} index_entry_t;

static uint64_t entry_hash(const void *entry)
{
    return ((const index_entry_t *)entry)->hash;
}

/* The rest of the chunks, after .bss (MT_COLD): a short process never touches them. */
static void *_Atomic more_chunks[MAX_CHUNKS] MT_COLD;

/* As the sites' (site.c): the head and the first chunk's pointer with the small state every
 * process touches. A chunk's records are the stored stacks' pointers (a stack's length is
 * its own). */
static mt_intern_t stacks = {.lock = PTHREAD_MUTEX_INITIALIZER,
                             .more_chunks = more_chunks,
                             .chunk_bits = CHUNK_BITS,
                             .max_chunks = MAX_CHUNKS,
                             .record_size = sizeof(stored_t * _Atomic),
                             .entry_size = sizeof(index_entry_t),
                             .first_index = MT_SMALL(64, 16),
                             .entry_hash = entry_hash};

/* 1024 entries, 24 KiB a thread, its pages touched as stacks come (as the sites' cache,
 * site.c, sized for programs with a few hundred hot stacks); bare metal 16. An entry also
 * holds the site last made at its stack (mt_site_here): an allocation's place and stack in
 * one lookup, as a stack is nearly always reached from one place (its first frame is the
 * call's return address). */
#define CACHE_BITS MT_SMALL(10, 4)
#define CACHE_SIZE (1u << CACHE_BITS)
#define CACHE_SLOT(hash) ((size_t)((hash) >> (64 - CACHE_BITS))) /* its top bits */
typedef struct cache_entry {
    const mt_site_t *site; /* a site of this stack, or no_site (first: mt_stack_found_here) */
    uint64_t hash;         /* 0: empty */
    const stored_t *stack; /* the stack itself: a hit looks no chunk up */
} cache_entry_t;
/* The site of an entry whose stack has none yet: it matches no place (no kind is COUNT). */
static const mt_site_t no_site = {.kind = MT_KIND_COUNT};
/* This thread's cache, made at its first stack (a pointer, not an array: static TLS is
 * scarce when the library is loaded with dlopen) and released when the thread ends. Before
 * that it is this one, all empty (no hash is 0) and never written: a hit tests no pointer. */
static cache_entry_t no_cache[CACHE_SIZE];
static MT_TLS cache_entry_t *stack_cache = no_cache;
static pthread_key_t cache_key;
static pthread_once_t cache_key_once = PTHREAD_ONCE_INIT;

/* Runs in the ending thread: a later destructor's allocation makes a fresh cache. */
static void cache_release(void *cache)
{
    stack_cache = no_cache;
    mt_mem_free(cache);
}

static void cache_key_create(void)
{
    (void)pthread_key_create(&cache_key, cache_release);
}

static MT_NOINLINE void cache_make(void)
{
    cache_entry_t *cache = mt_mem_calloc(CACHE_SIZE, sizeof *cache);
    if (cache != NULL) {
        stack_cache = cache;
        pthread_once(&cache_key_once, cache_key_create);
        (void)pthread_setspecific(cache_key, cache);
    }
}

/* The stack's hash from its frames' (base/unwind.h), mixed once more. The cache and the
 * index take their slots from its high half (CACHE_SLOT; intern.c). The walk's steps
 * alone leave those bits poorly spread when return addresses differ by a regular stride
 * (calls from the cases of one switch, 28 bytes apart: 200 such stacks fell on 44 of the
 * cache's 1024 slots and missed it four times in five): the walk's hash is linear in each
 * return address. Multiplied by its own high half it is not, and spreads them as a random
 * one would (as the high half folded down and multiplied by a constant did, with two
 * instructions more: over strides of 1 to 65536 bytes and depths of 1 to 8, 200 stacks
 * took 168 slots or more of 1024 either way, about 182 on average). A hash whose high half
 * is 0 is 1: the frames' compare tells such stacks apart. */
static uint64_t hash_done(uint64_t h)
{
    h *= h >> 32;
    return h | 1; /* never 0: 0 marks an empty cache entry */
}

static uint64_t hash_of(void *const *pcs, unsigned n)
{
    uint64_t h = MT_STACK_HASH_SEED;
    for (unsigned i = 0; i < n; i++)
        h = mt_stack_hash_step(h, pcs[i]);
    return hash_done(h);
}

static const stored_t *stored_of(uint32_t id)
{
    stored_t *_Atomic *slot = mt_intern_record_of(&stacks, id, CHUNK_BITS, sizeof *slot);
    return slot != NULL ? atomic_load_explicit(slot, memory_order_acquire) : NULL;
}

static bool same(const stored_t *s, uint64_t hash, void *const *pcs, unsigned n)
{
    return s != NULL && s->hash == hash && s->n == n && memcmp(s->pcs, pcs, n * sizeof *pcs) == 0;
}

typedef struct walk {
    uint64_t hash;
    void *const *pcs;
    unsigned n;
} walk_t;

static bool entry_matches(const void *entry, const void *key)
{
    const index_entry_t *e = entry;
    const walk_t *w = key;
    return e->hash == w->hash && same(stored_of(e->id), w->hash, w->pcs, w->n);
}

/* The index entry of hash whose stack is pcs, or the empty one where it would go. */
static index_entry_t *slot_locked(uint64_t hash, void *const *pcs, unsigned n)
{
    walk_t w = {hash, pcs, n};
    return mt_intern_find_locked(&stacks, hash, entry_matches, &w);
}

/* The stored stack pcs[0..n) (or its beginning, up to the first address outside the code),
 * stored now when new; NULL when the tracker's memory is exhausted or pcs[0] is not code. */
static MT_NOINLINE const stored_t *intern_slow(uint64_t hash, void *const *pcs, unsigned n)
{
    const stored_t *found = NULL;
    mt_mutex_lock(&stacks.lock);
    uint32_t next = mt_intern_next_locked(&stacks); /* id 0 stays "no stack" */
    if (mt_intern_make_room_locked(&stacks, next)) {
        index_entry_t *e = slot_locked(hash, pcs, n);
        /* A stack new to the process: a walk through code without frame pointers may have
         * gone on through words that are not return addresses (base/code_map.c). The
         * stack ends before the first of them, and is found or stored as that. */
        unsigned real = e->id == 0 ? mt_code_prefix(pcs, n) : n;
        if (real < n) {
            n = real;
            hash = hash_of(pcs, n);
            e = n != 0 ? slot_locked(hash, pcs, n) : NULL;
        }
        if (e == NULL) {
            found = NULL; /* not one return address: no stack */
        } else if (e->id != 0) {
            found = stored_of(e->id);
        } else {
            stored_t *_Atomic *slot = mt_intern_new_record_locked(&stacks, next);
            stored_t *s = slot != NULL ? mt_mem_alloc(sizeof *s + n * sizeof *pcs) : NULL;
            if (s != NULL) {
                s->hash = hash;
                s->n = n;
                s->id = next;
                memcpy(s->pcs, pcs, n * sizeof *pcs);
                atomic_store_explicit(slot, s, memory_order_release);
                e->hash = hash;
                e->id = next;
                mt_intern_publish_locked(&stacks, next);
                found = s;
            }
        }
    }
    mt_mutex_unlock(&stacks.lock);
    return found;
}

/* mt_stack_intern's miss, out of line, so that a hit saves no registers: makes this
 * thread's cache at its first stack, finds or stores the stack, and caches it. */
static MT_NOINLINE uint32_t intern_miss(uint64_t hash, void *const *pcs, unsigned n)
{
    if (stack_cache == no_cache)
        cache_make();
    const stored_t *s = intern_slow(hash, pcs, n);
    if (s == NULL)
        return MT_STACK_NONE;
    if (stack_cache != no_cache) {
        cache_entry_t *e = &stack_cache[CACHE_SLOT(hash)];
        e->hash = hash;
        e->stack = s;
        e->site = &no_site;
    }
    return s->id;
}

/* This thread's cache entry for a walk of frames pcs[0..] up to walked with this hash, when
 * it holds the walk's stack; NULL when it does not (always for an empty walk: no stored
 * stack is). */
static inline cache_entry_t *cached(uint64_t hash, void *const *pcs, void *const *walked)
{
    cache_entry_t *e = &stack_cache[CACHE_SLOT(hash)];
    /* The entry was made for a walk with this hash; its stack is that walk, or the walk's
     * beginning when the walk went on past the code (intern_slow): only the stack's frames
     * are left to compare, here (a call to memcmp would cost this path its registers). */
    const stored_t *s = e->stack;
    if (MT_LIKELY(e->hash == hash) && pcs + s->n <= walked) {
        void *const *mine = pcs + s->n;
        /* Counted up to 0 from the stack's end, the loop's test the count's own: a stored
         * stack has one frame at least (intern_slow stores none empty). */
        void *const *stored = s->pcs + s->n;
        ptrdiff_t i = -(ptrdiff_t)s->n;
        do
            if (MT_UNLIKELY(stored[i] != mine[i]))
                return NULL;
        while (++i != 0);
        return e;
    }
    return NULL;
}

/* mt_stack_intern for n > 0 frames whose hash is known. */
static inline uint32_t intern_hashed(uint64_t hash, void *const *pcs, unsigned n)
{
    const cache_entry_t *e = cached(hash, pcs, pcs + n);
    return MT_LIKELY(e != NULL) ? e->stack->id : intern_miss(hash, pcs, n);
}

uint32_t mt_stack_intern(void *const *pcs, unsigned n)
{
    return n != 0 ? intern_hashed(hash_of(pcs, n), pcs, n) : MT_STACK_NONE;
}

/* The return addresses a walk takes: option stack's, at most MT_STACK_MAX, and room for the
 * allocation wrappers the reports see through (base/unwind.h); none for stack=0. */
static unsigned depth_wanted(void)
{
    size_t depth = mt_opt.stack;
    return depth == 0 ? 0 : (depth < MT_STACK_MAX ? (unsigned)depth : MT_STACK_MAX) + MT_WALK_ROOM;
}

/* The inline walk's test of option stack: deeper than it takes goes to the walk out of line,
 * which answers the same. */
#define DEPTH_INLINE(depth) ((size_t)(depth) <= MT_STACK_MAX)

/* What mt_stack_found_here answers when this thread's cache has no entry for the stack (no
 * stack, or no cache): a site pointer that is never written (mt_site_learn). */
static const mt_site_t *const no_site_kept = &no_site;

static mt_stack_found_t found_none(uint32_t stack)
{
    return (mt_stack_found_t){(const mt_site_t **)&no_site_kept, stack};
}

/* mt_stack_found_here when this thread's cache does not hold the walk's stack (or the walk
 * found none: n is 0): finds or stores it, and answers the entry intern_miss keeps it in. */
static MT_NOINLINE mt_stack_found_t found_missed(uint64_t hash, void *const *pcs, unsigned n)
{
    if (n == 0)
        return found_none(MT_STACK_NONE);
    uint32_t stack = intern_miss(hash, pcs, n);
    cache_entry_t *e = &stack_cache[CACHE_SLOT(hash)];
    if (stack == MT_STACK_NONE || e->hash != hash || e->stack->id != stack)
        return found_none(stack);
    return (mt_stack_found_t){&e->site, stack};
}

/* mt_stack_found_here's stack when the walk cannot be inline (base/unwind.h): out of line,
 * so that the inline walk's hash stays in a register. */
static MT_NOINLINE mt_stack_found_t found_unwound(void *frame, void *caller, void **pcs)
{
    uint64_t h;
    unsigned n = mt_unwind(frame, caller, pcs, depth_wanted(), &h);
    if (n == 0)
        return found_none(MT_STACK_NONE);
    uint64_t hash = hash_done(h);
    cache_entry_t *e = cached(hash, pcs, pcs + n);
    return e != NULL ? (mt_stack_found_t){&e->site, e->stack->id} : found_missed(hash, pcs, n);
}

mt_stack_found_t mt_stack_found_here(void *frame, void *caller)
{
    if (MT_UNLIKELY(mt_reentered())) /* a nested call: the tracker's own */
        return found_none(MT_STACK_NONE);
    return mt_stack_found_idle(frame, caller);
}

mt_stack_found_t mt_stack_found_idle(void *frame, void *caller)
{
    void *pcs[MT_WALK_MAX];
    /* Option stack is not 0 here (mt_site_here and mt_stack_here make no walk for it). */
    size_t depth = mt_opt.stack;
    uintptr_t last;
    if (MT_UNLIKELY(!DEPTH_INLINE(depth) ||
                    !mt_unwind_walkable(frame, pcs, mt_opt.unwind[0] == 'e', &last)))
        return found_unwound(frame, caller, pcs);
    uint64_t h;
    void **walked =
        mt_walk_records_end((uintptr_t)frame, last, pcs, (unsigned)depth + MT_WALK_ROOM, &h);
    /* No test for an empty walk: no cached stack is empty (cached), so it misses. */
    uint64_t hash = hash_done(h);
    cache_entry_t *e = cached(hash, pcs, walked);
    if (MT_LIKELY(e != NULL))
        return (mt_stack_found_t){&e->site, e->stack->id};
    return found_missed(hash, pcs, (unsigned)(walked - pcs));
}

mt_stack_found_t mt_stack_found_walked(const mt_stack_walk_t *w)
{
    void *const *pcs = w->pcs;
    uint64_t hash = hash_of(pcs, w->n); /* (the hash the inline walk takes: the same steps) */
    cache_entry_t *e = w->n != 0 ? cached(hash, pcs, pcs + w->n) : NULL;
    if (MT_LIKELY(e != NULL))
        return (mt_stack_found_t){&e->site, e->stack->id};
    return found_missed(hash, pcs, w->n);
}

/* The stack alone: the same walk and cache as an allocation's (mt_stack_found_here). */
uint32_t mt_stack_here(void *frame, void *caller)
{
    if (mt_opt.stack == 0)
        return MT_STACK_NONE;
    return mt_stack_found_here(frame, caller).stack;
}

uint32_t mt_stack_here_in_shard(void *frame, void *caller)
{
    /* The shard's lock is the one this thread counts: more, or mt_busy, is a nested call. */
    if (mt_opt.stack == 0 || MT_UNLIKELY(mt_busy != 0 || mt_locks_held > 1))
        return MT_STACK_NONE;
    return mt_stack_found_idle(frame, caller).stack;
}

uint32_t mt_stack_skipping(unsigned skip)
{
    void *pcs[MT_WALK_MAX];
    uint64_t h;
    unsigned depth = depth_wanted();
    if (depth == 0 || MT_UNLIKELY(mt_busy))
        return MT_STACK_NONE;
    /* (the walk's first return address is into the caller itself) */
    unsigned n = mt_unwind(__builtin_frame_address(0), __builtin_return_address(0), pcs,
                           depth + skip + 1, &h);
    return n > skip + 1 ? mt_stack_intern(pcs + skip + 1, n - skip - 1) : MT_STACK_NONE;
}

mt_stack_found_t mt_stack_found_any(void *frame, void *caller)
{
    if (mt_opt.stack == 0 || MT_UNLIKELY(mt_busy))
        return found_none(MT_STACK_NONE);
    return mt_stack_found_idle(frame, caller);
}

void mt_site_keep(mt_stack_found_t found, uint32_t id)
{
    if (found.site != &no_site_kept && id != MT_SITE_NONE)
        *found.site = mt_site_get(id);
}

uint32_t mt_site_learn(mt_stack_found_t found, const char *file, int line, const char *func,
                       mt_kind_t kind)
{
    uint32_t id = mt_site_stacked(file, line, func, kind, NULL, found.stack);
    mt_site_keep(found, id);
    return id;
}

unsigned mt_stack_get(uint32_t id, void *const **pcs)
{
    *pcs = NULL;
    if (id == MT_STACK_NONE || id >= mt_intern_count(&stacks))
        return 0;
    const stored_t *s = stored_of(id);
    if (s == NULL)
        return 0;
    *pcs = s->pcs;
    return s->n;
}

uint32_t mt_stack_count(void)
{
    return mt_intern_count(&stacks);
}

void mt_stacks_lock_all(void)
{
    mt_mutex_lock(&stacks.lock);
}

void mt_stacks_unlock_all(void)
{
    mt_mutex_unlock(&stacks.lock);
}
