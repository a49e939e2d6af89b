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

#include "internal.h"

#define CHUNK_BITS 10
#define CHUNK_SITES (1u << CHUNK_BITS)
#define MAX_CHUNKS 16384u /* 16 million sites */

typedef struct site_key {
    const char *file, *func, *owner;
    void *pc;
    int line;
    int kind;
} site_key_t;

typedef struct site_node {
    UT_hash_handle hh;
    site_key_t key;
    uint32_t id;
} site_node_t;

static struct {
    pthread_mutex_t lock;
    mt_site_t *_Atomic chunks[MAX_CHUNKS];
    _Atomic uint32_t count; /* ids in use, including id 0 */
    site_node_t *index;
} sites = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* ---- per-thread cache ---------------------------------------------------------------- */

#define CACHE_SIZE 64u

typedef struct cache_entry {
    site_key_t key;
    uint32_t id;
} cache_entry_t;

static MT_TLS cache_entry_t *thread_cache;
static pthread_key_t cache_key;
static pthread_once_t cache_key_once = PTHREAD_ONCE_INIT;

static void cache_release(void *cache)
{
    mt_mem_free(cache);
}

static void cache_key_create(void)
{
    (void)pthread_key_create(&cache_key, cache_release);
}

static cache_entry_t *cache_get(void)
{
    if (MT_LIKELY(thread_cache != NULL))
        return thread_cache;
    thread_cache = mt_mem_calloc(CACHE_SIZE, sizeof(cache_entry_t));
    if (thread_cache != NULL) {
        pthread_once(&cache_key_once, cache_key_create);
        (void)pthread_setspecific(cache_key, thread_cache);
    }
    return thread_cache;
}

static unsigned cache_slot(const site_key_t *k)
{
    uintptr_t h = (uintptr_t)k->file ^ ((uintptr_t)k->pc >> 2) ^ (uintptr_t)k->owner;
    h = (h >> 4) * 31u + (unsigned)k->line * 131u + (unsigned)k->kind;
    return (unsigned)(h ^ (h >> 7)) & (CACHE_SIZE - 1);
}

static bool key_equal(const site_key_t *a, const site_key_t *b)
{
    return a->file == b->file && a->line == b->line && a->func == b->func &&
           a->kind == b->kind && a->owner == b->owner && a->pc == b->pc;
}

/* ---- the global index ---------------------------------------------------------------- */

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

static mt_site_t *slot_of(uint32_t id)
{
    mt_site_t *chunk = atomic_load_explicit(&sites.chunks[id >> CHUNK_BITS],
                                            memory_order_acquire);
    return chunk != NULL ? &chunk[id & (CHUNK_SITES - 1)] : NULL;
}

/* Makes a new site for key; caller holds sites.lock. Returns MT_SITE_NONE on failure. */
static uint32_t site_create_locked(const site_key_t *k)
{
    uint32_t id = atomic_load_explicit(&sites.count, memory_order_relaxed);
    if (id == 0)
        id = 1; /* id 0 stays "unknown" */
    if ((id >> CHUNK_BITS) >= MAX_CHUNKS)
        return MT_SITE_NONE;
    mt_site_t *chunk = sites.chunks[id >> CHUNK_BITS];
    if (chunk == NULL) {
        chunk = mt_mem_calloc(CHUNK_SITES, sizeof(mt_site_t));
        if (chunk == NULL)
            return MT_SITE_NONE;
        atomic_store_explicit(&sites.chunks[id >> CHUNK_BITS], chunk, memory_order_release);
    }
    site_node_t *node = mt_mem_calloc(1, sizeof *node);
    if (node == NULL)
        return MT_SITE_NONE;
    mt_site_t *s = &chunk[id & (CHUNK_SITES - 1)];
    s->file = copy_string(k->file);
    s->func = copy_string(k->func);
    s->owner = copy_string(k->owner);
    s->pc = k->pc;
    s->line = k->line;
    s->kind = (mt_kind_t)k->kind;
    bool mt_hash_oom = false;
    node->key = *k;
    node->id = id;
    HASH_ADD(hh, sites.index, key, sizeof(site_key_t), node);
    if (mt_hash_oom) {
        mt_mem_free(node);
        return MT_SITE_NONE;
    }
    atomic_store_explicit(&sites.count, id + 1, memory_order_release);
    return id;
}

static MT_NOINLINE uint32_t site_lookup_slow(const site_key_t *k)
{
    site_node_t *node = NULL;
    uint32_t id;
    pthread_mutex_lock(&sites.lock);
    HASH_FIND(hh, sites.index, k, sizeof(site_key_t), node);
    id = node != NULL ? node->id : site_create_locked(k);
    pthread_mutex_unlock(&sites.lock);
    return id;
}

static uint32_t site_lookup(const site_key_t *k)
{
    cache_entry_t *cache = cache_get();
    if (MT_UNLIKELY(cache == NULL))
        return site_lookup_slow(k);
    cache_entry_t *e = &cache[cache_slot(k)];
    if (MT_LIKELY(e->id != 0 && key_equal(&e->key, k)))
        return e->id;
    uint32_t id = site_lookup_slow(k);
    if (id != MT_SITE_NONE) {
        e->key = *k;
        e->id = id;
    }
    return id;
}

uint32_t mt_site_id(const char *file, int line, const char *func, mt_kind_t kind,
                    const char *owner)
{
    site_key_t k;
    memset(&k, 0, sizeof k); /* the key is hashed as bytes: no stray padding */
    k.file = file;
    k.func = func;
    k.owner = owner;
    k.line = line;
    k.kind = (int)kind;
    return site_lookup(&k);
}

uint32_t mt_site_pc(void *pc, mt_kind_t kind)
{
    site_key_t k;
    memset(&k, 0, sizeof k);
    k.pc = pc;
    k.kind = (int)kind;
    return site_lookup(&k);
}

uint32_t mt_site_pc_owner(void *pc, mt_kind_t kind, const char *owner)
{
    site_key_t k;
    memset(&k, 0, sizeof k);
    k.pc = pc;
    k.kind = (int)kind;
    k.owner = owner;
    return site_lookup(&k);
}

static const mt_site_t unknown_site = {NULL, NULL, NULL, NULL, 0, MT_KIND_NONE};

const mt_site_t *mt_site_get(uint32_t id)
{
    const mt_site_t *s = NULL;
    if (id != MT_SITE_NONE && id < atomic_load_explicit(&sites.count, memory_order_acquire))
        s = slot_of(id);
    return s != NULL ? s : &unknown_site;
}

uint32_t mt_site_count(void)
{
    uint32_t n = atomic_load_explicit(&sites.count, memory_order_acquire);
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
    return x->line == y->line && x->kind == y->kind && x->pc == y->pc &&
           same_string(x->file, y->file) && same_string(x->func, y->func) &&
           same_string(x->owner, y->owner);
}

/* Writes "file:line in func()", or for a site known only by address and without line
 * information "0x... in symbol+0x.. (module)": the place a report shows (place.c). */
void mt_buf_site(mt_buf_t *b, uint32_t id)
{
    mt_place_t p;
    (void)mt_place_of(id, &p);
    mt_buf_place(b, &p);
}

void mt_sites_lock_all(void)
{
    pthread_mutex_lock(&sites.lock);
}

void mt_sites_unlock_all(void)
{
    pthread_mutex_unlock(&sites.lock);
}
