/* intern.h - one interning store, for sites (site.c) and stacks (stack.c): records kept in
 * chunks that never move, known by 32-bit ids from 1 (0 is none), and a global index from a
 * key's hash to its id, under the store's lock.
 *
 * Once an id is published (mt_intern_publish_locked) its record is read without a lock:
 * the chunk's pointer is stored (release) before the count that makes the id valid. What
 * a record and an index entry hold is the owner's: the store knows their sizes, that an
 * entry starts with its id (0: empty), and how to hash an entry when the index grows.
 */
#ifndef MT_INTERN_H
#define MT_INTERN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/platform.h"

typedef struct mt_intern {
    pthread_mutex_t lock;
    _Atomic uint32_t count; /* ids in use, including id 0 */
    void *index;            /* index_size entries of entry_size bytes, a power of two */
    size_t index_size;
    /* chunks[0], with the head: a short process's every site or stack is in it */
    void *_Atomic first_chunk;
    /* the rest of the chunks' pointers, max_chunks of them, after .bss (MT_COLD) */
    void *_Atomic *more_chunks;
    /* the store's shape, constant */
    unsigned chunk_bits;
    uint32_t max_chunks;
    size_t record_size, entry_size, first_index;
    uint64_t (*entry_hash)(const void *entry); /* an entry's hash, to move it on growth */
} mt_intern_t;

/* The slot of a chunk's pointer for id. */
static inline void *_Atomic *mt_intern_chunk_slot(mt_intern_t *s, uint32_t id)
{
    uint32_t c = id >> s->chunk_bits;
    return MT_LIKELY(c == 0) ? &s->first_chunk : &s->more_chunks[c];
}

/* The record of a published id (NULL when its chunk was never made), for a store of this
 * shape: its owner passes its constants (chunk_bits, record_size), so that the address
 * folds to what a lookup by hand would compute. */
static inline void *mt_intern_record_of(mt_intern_t *s, uint32_t id, unsigned chunk_bits,
                                        size_t record_size)
{
    uint32_t c = id >> chunk_bits;
    unsigned char *chunk = atomic_load_explicit(
        MT_LIKELY(c == 0) ? &s->first_chunk : &s->more_chunks[c], memory_order_acquire);
    return chunk != NULL ? chunk + (size_t)(id & ((1u << chunk_bits) - 1)) * record_size : NULL;
}

/* The ids in use, including id 0. */
static inline uint32_t mt_intern_count(mt_intern_t *s)
{
    return atomic_load_explicit(&s->count, memory_order_acquire);
}

/* The id the next record gets. Caller holds s->lock. */
static inline uint32_t mt_intern_next_locked(mt_intern_t *s)
{
    uint32_t id = atomic_load_explicit(&s->count, memory_order_relaxed);
    return id != 0 ? id : 1; /* id 0 stays "none" */
}
/* The record of the id about to be published, its chunk made (zeroed) when it is the first;
 * NULL past the last chunk or when the tracker's memory is exhausted. Caller holds s->lock. */
void *mt_intern_new_record_locked(mt_intern_t *s, uint32_t id);
/* Doubles the index (from first_index entries); false when the tracker's memory is
 * exhausted. Caller holds s->lock. */
bool mt_intern_grow_locked(mt_intern_t *s);

/* Keeps the index at most half full for used ids, growing it when it would pass that;
 * false when the tracker's memory is exhausted. It starts small because every key lands
 * on a random entry: a large first index would fault in a page for each of a short
 * process's first keys. Caller holds s->lock. */
static inline bool mt_intern_make_room_locked(mt_intern_t *s, uint32_t used)
{
    if (MT_LIKELY(s->index != NULL && (size_t)used * 2 < s->index_size))
        return true;
    return mt_intern_grow_locked(s);
}

/* An index entry's id (an entry starts with it): 0 when empty. */
static inline uint32_t mt_intern_entry_id(const void *entry)
{
    return *(const uint32_t *)entry;
}

/* The index entry for a key of this hash: the one matches() says holds it, or the empty
 * one where it would go; NULL before the index is made. Open addressing from the hash's
 * high half, linear probing; the index is never full. Inline, so that matches() is too.
 * Caller holds s->lock. */
static inline void *mt_intern_find_locked(mt_intern_t *s, uint64_t hash,
                                          bool (*matches)(const void *entry, const void *key),
                                          const void *key)
{
    if (s->index == NULL)
        return NULL;
    size_t mask = s->index_size - 1;
    for (size_t i = (size_t)(hash >> 32) & mask;; i = (i + 1) & mask) {
        unsigned char *e = (unsigned char *)s->index + i * s->entry_size;
        if (mt_intern_entry_id(e) == 0 || matches(e, key))
            return e;
    }
}

/* Makes id valid for every thread, once its record and index entry are written. Caller
 * holds s->lock. */
static inline void mt_intern_publish_locked(mt_intern_t *s, uint32_t id)
{
    atomic_store_explicit(&s->count, id + 1, memory_order_release);
}

#endif /* MT_INTERN_H */
