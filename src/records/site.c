/* site.c - where blocks are made and released, interned to small ids.
 *
 * A record keeps a 32-bit site id instead of three pointers and a line, which keeps
 * records small and makes grouping by site at report time a counting pass. Each thread
 * has a small direct-mapped cache from (file, line, func, kind, owner) pointers to ids, so
 * the common case costs a few compares; a miss looks the key up in a global hash.
 *
 * Sites are stored in chunks that never move: once an id is published its site can be
 * read without a lock. Strings are copied when a site is made, so a report never reads
 * memory the program has since released.
 */
#define _GNU_SOURCE
#include <string.h>

#include "base/lock.h"
#include "base/memory.h"
#include "records/intern.h"
#include "records/site.h"

/* 1024 sites a chunk, 16 million sites; on bare metal 32 a chunk (1 KiB), 8192 sites. */
#define CHUNK_BITS MT_SMALL(10, 5)
#define MAX_CHUNKS MT_SMALL(16384u, 256u)

typedef struct site_key {
    const char *file, *func, *owner;
    void *pc;
    int line;
    int kind; /* for a key by pc, -2 - kind: see key_kind */
    uint32_t stack;
} site_key_t;

/* A key's kind field: the kind, or for a key by pc (pc not NULL) -2 - kind, below every
 * kind and never -1 (whose cache word would be an empty entry's, mt_site_kind_stack). A function
 * of the key alone, so the same key still finds the same site; and a cache entry with a
 * kind of 0 or more is a key with no pc, so site_placed's hit compares no pc. */
static int key_kind(const void *pc, mt_kind_t kind)
{
    return pc != NULL ? -2 - (int)kind : (int)kind;
}

static mt_kind_t kind_of_key(const site_key_t *k)
{
    return (mt_kind_t)(k->kind < 0 ? -2 - k->kind : k->kind);
}

/* An entry of the global index (records/intern.c): the whole key, so a probe compares no
 * site. */
typedef struct index_entry {
    uint32_t id; /* 0: empty (first: intern.h) */
    site_key_t key;
} index_entry_t;

static uint64_t index_hash(const site_key_t *k);
static uint64_t entry_hash(const void *entry)
{
    return index_hash(&((const index_entry_t *)entry)->key);
}

/* The rest of the chunks, after .bss (MT_COLD): a short process never touches them. */
static void *_Atomic more_chunks[MAX_CHUNKS] MT_COLD;

/* The head lies with the small state every process touches, the first chunk's pointer with
 * it: the table of the others would cost a short process a page of its own. */
static mt_intern_t sites = {.lock = PTHREAD_MUTEX_INITIALIZER,
                            .more_chunks = more_chunks,
                            .chunk_bits = CHUNK_BITS,
                            .max_chunks = MAX_CHUNKS,
                            .record_size = sizeof(mt_site_t),
                            .entry_size = sizeof(index_entry_t),
                            .first_index = MT_SMALL(64, 8),
                            .entry_hash = entry_hash};

/* Written with the site, before its id is published (site_create_locked). */
unsigned char mt_site_system_flags[MT_SITE_SYSTEM_FLAGS] MT_COLD;

_Atomic uint64_t mt_site_kinds_made;
_Static_assert(MT_KIND_COUNT <= 64, "a kind is a bit of mt_site_kinds_made");

/* ---- per-thread cache ---------------------------------------------------------------- */

/* The cache and its entries are in site.h (mt_site_at's hit is inline). */
#define CACHE_SIZE (1u << MT_SITE_CACHE_BITS)

static bool entry_holds(const mt_site_cache_entry_t *e, const site_key_t *k)
{
    return e->file == k->file && e->line == k->line && e->func == k->func &&
           e->kind_stack == mt_site_kind_stack(k->kind, k->stack) && e->owner == k->owner &&
           e->pc == k->pc;
}

static void entry_store(mt_site_cache_entry_t *e, const site_key_t *k, uint32_t id)
{
    e->file = k->file;
    e->func = k->func;
    e->owner = k->owner;
    e->pc = k->pc;
    e->kind_stack = mt_site_kind_stack(k->kind, k->stack);
    e->line = k->line;
    e->id = id;
}

/* A thread without a cache yet reads this one, all empty and never written: the hit tests
 * no pointer. */
static mt_site_cache_entry_t no_cache[CACHE_SIZE];
MT_TLS mt_site_cache_entry_t *mt_site_cache = no_cache;
static pthread_key_t cache_key;
static pthread_once_t cache_key_once = PTHREAD_ONCE_INIT;

/* Runs in the ending thread: a later destructor's allocation makes a fresh cache. */
static void cache_release(void *cache)
{
    mt_site_cache = no_cache;
    mt_mem_free(cache);
}

static void cache_key_create(void)
{
    (void)pthread_key_create(&cache_key, cache_release);
}

/* This thread's cache, made now when it has none; NULL when it cannot be. */
static mt_site_cache_entry_t *cache_get(void)
{
    if (MT_LIKELY(mt_site_cache != no_cache))
        return mt_site_cache;
    mt_site_cache_entry_t *cache = mt_mem_calloc(CACHE_SIZE, sizeof(mt_site_cache_entry_t));
    if (cache != NULL) {
        mt_site_cache = cache;
        pthread_once(&cache_key_once, cache_key_create);
        (void)pthread_setspecific(cache_key, cache);
    }
    return cache;
}

static uint64_t key_hash(const site_key_t *k)
{
    uintptr_t h = (uintptr_t)k->file ^ ((uintptr_t)k->pc >> 2) ^ (uintptr_t)k->owner;
    h = (h >> 4) * 31u + (unsigned)k->line * 131u + (unsigned)k->kind + k->stack * 0x9E3779B1u;
    return (uint64_t)(h ^ (h >> 7)) ^ ((uint64_t)(uintptr_t)k->func >> 4);
}

static unsigned cache_slot(const site_key_t *k)
{
    return mt_site_cache_slot(k->file, k->pc, k->owner, k->line, k->kind, k->stack);
}

static bool key_equal(const site_key_t *a, const site_key_t *b)
{
    return a->file == b->file && a->line == b->line && a->func == b->func && a->kind == b->kind &&
           a->owner == b->owner && a->pc == b->pc && a->stack == b->stack;
}

/* ---- the global index ---------------------------------------------------------------- */

/* The index's hash of a key: key_hash spread to its high half, where the index starts. */
static uint64_t index_hash(const site_key_t *k)
{
    return key_hash(k) * UINT64_C(0x9E3779B97F4A7C15);
}

static bool entry_matches(const void *entry, const void *key)
{
    return key_equal(&((const index_entry_t *)entry)->key, key);
}

static const char *copy_string(const char *s)
{
    if (s == NULL)
        return NULL;
    size_t n = strlen(s) + 1;
    char *c = mt_mem_alloc(n);
    if (c == NULL)
        return "?";
    memcpy(c, s, n);
    return c;
}

/* Makes a new site for key; caller holds sites.lock. Returns MT_SITE_NONE on failure. */
static uint32_t site_create_locked(const site_key_t *k, uint32_t base, mt_code_owner_t library)
{
    uint32_t id = mt_intern_next_locked(&sites); /* id 0 stays "unknown" */
    mt_site_t *s = mt_intern_new_record_locked(&sites, id);
    if (s == NULL || !mt_intern_make_room_locked(&sites, id))
        return MT_SITE_NONE;
    s->file = copy_string(k->file);
    s->func = copy_string(k->func);
    s->owner = copy_string(k->owner);
    s->pc = k->pc;
    s->line = k->line;
    s->kind = kind_of_key(k);
    s->stack = k->stack;
    s->base = k->stack != 0 ? base : id;
#ifndef MT_BARE_METAL
    s->file_key = k->file;
    s->func_key = k->func;
    s->owner_key = k->owner;
    s->id = id;
    s->library = (unsigned char)library;
    if (id < MT_SITE_SYSTEM_FLAGS)
        mt_site_system_flags[id] = (unsigned char)library;
#else
    (void)library;
#endif
    /* Only written here, under sites.lock; the count's store below publishes it with the id. */
    uint64_t made = atomic_load_explicit(&mt_site_kinds_made, memory_order_relaxed);
    atomic_store_explicit(&mt_site_kinds_made, made | UINT64_C(1) << s->kind, memory_order_relaxed);
    index_entry_t *e = mt_intern_find_locked(&sites, index_hash(k), entry_matches, k);
    e->key = *k;
    e->id = id;
    mt_intern_publish_locked(&sites, id);
    return id;
}

/* base: the same place's site without a stack, for a key with one (0: look it up). */
static MT_NOINLINE uint32_t site_lookup_slow(const site_key_t *k, uint32_t base)
{
    uint32_t id = MT_SITE_NONE;
    if (k->stack != 0 && base == MT_SITE_NONE) { /* before the lock: it may make a site */
        site_key_t plain = *k;
        plain.stack = 0;
        base = site_lookup_slow(&plain, MT_SITE_NONE);
    }
    /* A place known by its return address: in a system library's code or the program's,
     * asked before the lock (the loader's lock may be taken; never inside ours). */
    mt_code_owner_t library = MT_SMALL(
        k->file == NULL && k->pc != NULL ? mt_code_owner(k->pc) : MT_CODE_PROGRAM, MT_CODE_PROGRAM);
    mt_mutex_lock(&sites.lock);
    index_entry_t *e = mt_intern_find_locked(&sites, index_hash(k), entry_matches, k);
    if (e != NULL)
        id = e->id;
    if (id == MT_SITE_NONE)
        id = site_create_locked(k, base, library);
    mt_mutex_unlock(&sites.lock);
    return id;
}

static uint32_t site_lookup_based(const site_key_t *k, uint32_t base)
{
    mt_site_cache_entry_t *cache = cache_get();
    if (MT_UNLIKELY(cache == NULL))
        return site_lookup_slow(k, base);
    mt_site_cache_entry_t *e = &cache[cache_slot(k)];
    if (MT_LIKELY(entry_holds(e, k)))
        return e->id;
    uint32_t id = site_lookup_slow(k, base);
    if (id != MT_SITE_NONE)
        entry_store(e, k, id);
    return id;
}

static uint32_t site_lookup(const site_key_t *k)
{
    return site_lookup_based(k, MT_SITE_NONE);
}

/* The general path of site_placed, out of line: the key's room would weigh on every hit. */
static MT_NOINLINE uint32_t site_placed_slow(const char *file, int line, const char *func,
                                             mt_kind_t kind, const char *owner, uint32_t stack)
{
    site_key_t k;
    memset(&k, 0, sizeof k); /* the key is copied whole: no stray padding */
    k.file = file;
    k.func = func;
    k.owner = owner;
    k.line = line < 0 ? 0 : line; /* a negative line (an _at caller's mistake) is unknown */
    k.kind = (int)kind;
    k.stack = stack;
    return site_lookup(&k);
}

/* A place known by its file (pc NULL): every allocation and release by the macros. The
 * cache is read field by field, without building a key, and only a miss builds one for the
 * general path, which finds the same slot (mt_site_cache_slot) and stores the same entry. A
 * negative line matches no entry (keys hold it as 0): the general path makes it 0. No pc is
 * compared: an entry with this kind (0 or more) is a key with no pc (key_kind). */
static inline uint32_t site_placed(const char *file, int line, const char *func, mt_kind_t kind,
                                   const char *owner, uint32_t stack)
{
    const mt_site_cache_entry_t *e =
        &mt_site_cache[mt_site_cache_slot(file, NULL, owner, line, (int)kind, stack)];
    if (MT_LIKELY(e->file == file && e->line == line && e->func == func &&
                  e->kind_stack == mt_site_kind_stack((int)kind, stack) && e->owner == owner))
        return e->id;
    return site_placed_slow(file, line, func, kind, owner, stack);
}

uint32_t mt_site_stacked(const char *file, int line, const char *func, mt_kind_t kind,
                         const char *owner, uint32_t stack)
{
    return site_placed(file, line, func, kind, owner, stack);
}

uint32_t mt_site_id(const char *file, int line, const char *func, mt_kind_t kind, const char *owner)
{
    return site_placed(file, line, func, kind, owner, 0);
}

/* The general path of mt_site_pc_stacked, out of line, as site_placed_slow. */
static MT_NOINLINE uint32_t site_pc_slow(void *pc, mt_kind_t kind, const char *owner,
                                         uint32_t stack)
{
    site_key_t k;
    memset(&k, 0, sizeof k);
    k.pc = pc;
    k.kind = key_kind(pc, kind);
    k.owner = owner;
    k.stack = stack;
    return site_lookup(&k);
}

/* A place known by its caller's address: every allocation and release of code built
 * without memtrack, through the process's allocator. The cache is read field by field, as
 * site_placed does (a key by pc has no file, function or line). */
uint32_t mt_site_pc_stacked(void *pc, mt_kind_t kind, const char *owner, uint32_t stack)
{
    int k = key_kind(pc, kind);
    const mt_site_cache_entry_t *e =
        &mt_site_cache[mt_site_cache_slot(NULL, pc, owner, 0, k, stack)];
    if (MT_LIKELY(e->pc == pc && e->kind_stack == mt_site_kind_stack(k, stack) &&
                  e->owner == owner && e->file == NULL && e->func == NULL && e->line == 0))
        return e->id;
    return site_pc_slow(pc, kind, owner, stack);
}

uint32_t mt_site_pc(void *pc, mt_kind_t kind)
{
    return mt_site_pc_stacked(pc, kind, NULL, 0);
}

uint32_t mt_site_pc_owner(void *pc, mt_kind_t kind, const char *owner)
{
    return mt_site_pc_stacked(pc, kind, owner, 0);
}

uint32_t mt_site_place(uint32_t id)
{
    return id != MT_SITE_NONE ? mt_site_get(id)->base : MT_SITE_NONE;
}

static const mt_site_t unknown_site = {.kind = MT_KIND_NONE};

const mt_site_t *mt_site_get(uint32_t id)
{
    const mt_site_t *s = NULL;
    if (id != MT_SITE_NONE && id < mt_intern_count(&sites))
        s = mt_intern_record_of(&sites, id, CHUNK_BITS, sizeof *s);
    return s != NULL ? s : &unknown_site;
}

uint32_t mt_site_count(void)
{
    uint32_t n = mt_intern_count(&sites);
    return n == 0 ? 1 : n;
}

static bool same_string(const char *a, const char *b)
{
    return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

bool mt_site_same(uint32_t a, uint32_t b)
{
    if (a == b)
        return true;
    const mt_site_t *x = mt_site_get(a), *y = mt_site_get(b);
    return x->line == y->line && x->kind == y->kind && x->pc == y->pc && x->stack == y->stack &&
           same_string(x->file, y->file) && same_string(x->func, y->func) &&
           same_string(x->owner, y->owner);
}

void mt_sites_lock_all(void)
{
    mt_mutex_lock(&sites.lock);
}

void mt_sites_unlock_all(void)
{
    mt_mutex_unlock(&sites.lock);
}
