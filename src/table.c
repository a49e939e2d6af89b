/* table.c - live blocks in a chained hash keyed on the address the user sees.
 *
 * The paper's table: each shard starts with 1024 buckets and the paper's index,
 * (address >> 4) & 1023, and a block's record sits in its bucket's chain. Unlike the
 * paper's fixed table, a shard doubles its buckets when it holds more blocks than it has
 * buckets (load factor 1: about 1.5 records visited per lookup), so a lookup stays O(1)
 * at ten million blocks, where 1024 fixed buckets would mean chains of ten thousand.
 *
 * Past 1024 buckets the index mixes all the bits of (address >> 4) (Fibonacci hashing)
 * instead of taking the low ones. Blocks of one size sit at a fixed stride: 80-byte
 * blocks with their guards are 128-byte chunks, so (address >> 4) moves in steps of 8 and
 * its low bits would fill one bucket in 8. The paper's index keeps that cost at 1024
 * buckets (its table, measured as is by make bench); a grown table does not.
 *
 * Chains are singly linked: every removal follows a lookup of the same address, which
 * has just walked the chain, so a back pointer would only add 8 bytes to each record
 * and a cache miss to each removal. A record is 40 bytes.
 *
 * Records live here, outside the user's memory, in slabs taken from the C library: an
 * overrun of a user block cannot reach them. Sixteen shards, chosen by the 64 MiB region
 * of the address, each have their own lock, records and table.
 */
#include <string.h>

#include "internal.h"

#define INITIAL_LOG2 10u
_Static_assert(MT_TABLE_INITIAL_BUCKETS == 1u << INITIAL_LOG2, "the paper's 1024 buckets");

mt_shard_t mt_shards[MT_SHARD_COUNT] = {
#define SHARD_INIT {.lock = MT_LOCK_INIT, .log2_buckets = INITIAL_LOG2}
    SHARD_INIT, SHARD_INIT, SHARD_INIT, SHARD_INIT, SHARD_INIT, SHARD_INIT,
    SHARD_INIT, SHARD_INIT, SHARD_INIT, SHARD_INIT, SHARD_INIT, SHARD_INIT,
    SHARD_INIT, SHARD_INIT, SHARD_INIT, SHARD_INIT,
#undef SHARD_INIT
};

_Static_assert(sizeof(mt_block_t) == 40, "a record is 40 bytes: keep it small");
_Static_assert(sizeof(mt_shard_t) % 64 == 0, "shards do not share cache lines");

static inline size_t bucket_index(uintptr_t addr, unsigned log2_buckets)
{
    uint64_t h = (uint64_t)addr >> 4;
    if (log2_buckets <= INITIAL_LOG2)
        return (size_t)(h & (MT_TABLE_INITIAL_BUCKETS - 1)); /* the paper's index */
    return (size_t)((h * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - log2_buckets));
}

unsigned mt_table_bucket_of(uintptr_t addr, unsigned buckets)
{
    unsigned log2 = (unsigned)__builtin_ctz(buckets);
    return (unsigned)bucket_index(addr, log2);
}

/* ---- records ------------------------------------------------------------------------- */

#define SLAB_BYTES 65536u

mt_block_t *mt_record_new_locked(mt_shard_t *s)
{
    mt_block_t *b = s->free_records;
    if (MT_LIKELY(b != NULL)) {
        s->free_records = b->next;
        return b;
    }
    /* A new slab: its records go on the free list. Slabs are never returned. */
    mt_block_t *slab = mt_libc_malloc(SLAB_BYTES);
    if (slab == NULL)
        return NULL;
    size_t n = SLAB_BYTES / sizeof(mt_block_t);
    for (size_t i = n - 1; i >= 1; i--) { /* lowest first on the list */
        slab[i].next = s->free_records;
        s->free_records = &slab[i];
    }
    s->records_made += n;
    return &slab[0];
}

void mt_record_recycle_locked(mt_shard_t *s, mt_block_t *b)
{
    b->next = s->free_records;
    s->free_records = b;
}

/* ---- the table ----------------------------------------------------------------------- */

/* Doubles the shard's buckets and moves every record. Keeps the old table when memory is
 * short: the chains grow longer, nothing is lost. */
static MT_NOINLINE void grow_locked(mt_shard_t *s)
{
    unsigned log2 = s->log2_buckets + 1;
    size_t old_n = (size_t)1 << s->log2_buckets;
    mt_block_t **fresh = mt_libc_calloc((size_t)1 << log2, sizeof *fresh);
    if (fresh == NULL) {
        s->grow_failed = true;
        return;
    }
    for (size_t i = 0; i < old_n; i++) {
        mt_block_t *b = s->buckets[i], *next;
        for (; b != NULL; b = next) {
            next = b->next;
            mt_block_t **head = &fresh[bucket_index(b->addr, log2)];
            b->next = *head;
            *head = b;
        }
    }
    mt_libc_free(s->buckets);
    s->buckets = fresh;
    s->log2_buckets = log2;
}

bool mt_table_insert_locked(mt_shard_t *s, mt_block_t *b)
{
    if (MT_UNLIKELY(s->buckets == NULL)) {
        s->buckets = mt_libc_calloc(MT_TABLE_INITIAL_BUCKETS, sizeof *s->buckets);
        if (s->buckets == NULL)
            return false;
        s->log2_buckets = INITIAL_LOG2;
    }
    if (MT_UNLIKELY(s->items >= ((size_t)1 << s->log2_buckets)) && !s->grow_failed)
        grow_locked(s);
    mt_block_t **head = &s->buckets[bucket_index(b->addr, s->log2_buckets)];
    b->next = *head;
    *head = b;
    s->items++;
    return true;
}

mt_block_t *mt_table_find_locked(mt_shard_t *s, uintptr_t addr)
{
    if (MT_UNLIKELY(s->buckets == NULL))
        return NULL;
    mt_block_t *b = s->buckets[bucket_index(addr, s->log2_buckets)];
    while (b != NULL && b->addr != addr)
        b = b->next;
    return b;
}

void mt_table_remove_locked(mt_shard_t *s, mt_block_t *b)
{
    if (s->buckets == NULL)
        return;
    mt_block_t **link = &s->buckets[bucket_index(b->addr, s->log2_buckets)];
    while (*link != NULL && *link != b)
        link = &(*link)->next;
    if (*link == b) {
        *link = b->next;
        s->items--;
    }
}

void mt_table_foreach(void (*fn)(mt_block_t *b, void *ctx), void *ctx)
{
    for (unsigned i = 0; i < MT_SHARD_COUNT; i++) {
        mt_shard_t *s = &mt_shards[i];
        mt_lock(&s->lock);
        if (s->buckets != NULL) {
            size_t n = (size_t)1 << s->log2_buckets;
            for (size_t k = 0; k < n; k++)
                for (mt_block_t *b = s->buckets[k]; b != NULL; b = b->next)
                    fn(b, ctx);
        }
        mt_unlock(&s->lock);
    }
}

void mt_table_lock_all(void)
{
    for (unsigned i = 0; i < MT_SHARD_COUNT; i++)
        mt_lock(&mt_shards[i].lock);
}

void mt_table_unlock_all(void)
{
    for (unsigned i = MT_SHARD_COUNT; i-- > 0;)
        mt_unlock(&mt_shards[i].lock);
}

void mt_table_shape(mt_table_shape_t *out)
{
    double visits = 0;
    memset(out, 0, sizeof *out);
    for (unsigned i = 0; i < MT_SHARD_COUNT; i++) {
        mt_shard_t *s = &mt_shards[i];
        mt_lock(&s->lock);
        if (s->buckets != NULL) {
            size_t n = (size_t)1 << s->log2_buckets;
            out->items += s->items;
            out->buckets += n;
            out->noexpand_shards += s->grow_failed ? 1u : 0u;
            for (size_t k = 0; k < n; k++) {
                size_t c = 0;
                for (mt_block_t *b = s->buckets[k]; b != NULL; b = b->next)
                    c++;
                if (c > out->max_chain)
                    out->max_chain = c;
                visits += (double)c * (double)(c + 1) / 2.0;
            }
        }
        mt_unlock(&s->lock);
    }
    out->mean_visits = out->items > 0 ? visits / (double)out->items : 0.0;
}
