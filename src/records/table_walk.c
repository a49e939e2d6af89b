/* table_walk.c - walks over every shard's table, for the reports and checks: every live
 * block, the table's shape; and every shard's lock at once, around fork. Each shard is
 * walked under its lock, which the crash handler only tries. (The quarantined blocks are
 * walked in their order, table_fifo.c.)
 */
#include <string.h>

#include "records/table.h"

atomic_uint mt_shards_skipped;

bool mt_table_lock_for_walk(mt_shard_t *s)
{
    if (MT_LIKELY(!mt_in_crash)) {
        mt_lock(&s->lock);
        return true;
    }
    if (mt_trylock(&s->lock))
        return true;
    atomic_fetch_add(&mt_shards_skipped, 1);
    return false;
}

/* Calls fn for every record of a table (live and quarantined), bucket by bucket: uthash
 * keeps no other list of them (records/table_fast.h). */
static void each_record(const UT_hash_table *tbl, void (*fn)(mt_block_t *b, void *ctx), void *ctx)
{
    for (unsigned k = 0; tbl != NULL && k < tbl->num_buckets; k++)
        for (UT_hash_handle *hh = tbl->buckets[k].hh_head; hh != NULL; hh = hh->hh_next) {
            if (MT_UNLIKELY(mt_table_key_wild(hh->key))) /* a wild write: skip it */
                mt_table_wild_link(hh->key);
            else
                fn((mt_block_t *)(void *)hh, ctx);              /* (the handle starts the record) */
            if (MT_UNLIKELY(mt_table_link_wild(hh->hh_next))) { /* the rest cannot be reached */
                mt_table_wild_link(hh->hh_next);
                break;
            }
        }
}

typedef struct live_walk {
    void (*fn)(mt_block_t *b, void *ctx);
    void *ctx;
} live_walk_t;

static void live_only(mt_block_t *b, void *ctx)
{
    const live_walk_t *w = ctx;
    if (!(mt_meta_load(b) & MT_META_FLAG_FREED))
        w->fn(b, w->ctx);
}

void mt_table_foreach(void (*fn)(mt_block_t *b, void *ctx), void *ctx)
{
    live_walk_t w = {fn, ctx};
    for (unsigned i = 0; i < MT_SHARD_COUNT; i++) {
        mt_shard_t *s = &mt_shards[i];
        if (!mt_table_lock_for_walk(s))
            continue;
        each_record(s->table, live_only, &w);
        mt_unlock(&s->lock);
    }
}

bool mt_table_empty(void)
{
    for (unsigned i = 0; i < MT_SHARD_COUNT; i++) {
        mt_shard_t *s = &mt_shards[i];
        mt_lock(&s->lock);
        size_t records = s->table != NULL ? s->table->num_items : 0; /* quarantined too */
        size_t live = records - s->fifo_count;
        mt_unlock(&s->lock);
        if (live != 0)
            return false;
    }
    return true;
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
    size_t records = 0; /* in the hashes: live and quarantined */
    memset(out, 0, sizeof *out);
    for (unsigned i = 0; i < MT_SHARD_COUNT; i++) {
        mt_shard_t *s = &mt_shards[i];
        mt_lock(&s->lock);
        const UT_hash_table *t = s->table;
        if (t != NULL) {
            records += t->num_items;
            out->items += t->num_items - s->fifo_count;
            out->buckets += t->num_buckets;
            out->noexpand_shards += t->noexpand ? 1u : 0u;
            for (unsigned k = 0; k < t->num_buckets; k++) {
                size_t c = t->buckets[k].count;
                if (c > out->max_chain)
                    out->max_chain = c;
                visits += (double)c * (double)(c + 1) / 2.0;
            }
        }
        mt_unlock(&s->lock);
    }
    out->mean_visits = records > 0 ? visits / (double)records : 0.0;
}

void mt_table_storage(const mt_shard_t *s, const void **table, const void **buckets)
{
    *table = s->table;
    *buckets = s->table != NULL ? (const void *)s->table->buckets : NULL;
}
