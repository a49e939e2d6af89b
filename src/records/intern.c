/* intern.c - the interning store shared by sites and stacks (intern.h). */
#include <string.h> /* memcpy */

#include "base/lock.h"
#include "base/memory.h"
#include "records/intern.h"

void *mt_intern_new_record_locked(mt_intern_t *s, uint32_t id)
{
    if ((id >> s->chunk_bits) >= s->max_chunks)
        return NULL;
    void *_Atomic *slot = mt_intern_chunk_slot(s, id);
    unsigned char *chunk = *slot;
    if (chunk == NULL) {
        chunk = mt_mem_calloc((size_t)1 << s->chunk_bits, s->record_size);
        if (chunk == NULL)
            return NULL;
        atomic_store_explicit(slot, chunk, memory_order_release);
    }
    return chunk + (size_t)(id & ((1u << s->chunk_bits) - 1)) * s->record_size;
}

bool mt_intern_grow_locked(mt_intern_t *s)
{
    size_t old_size = s->index_size, size = old_size != 0 ? old_size * 2 : s->first_index;
    unsigned char *old = s->index, *fresh = mt_mem_calloc(size, s->entry_size);
    if (fresh == NULL)
        return false;
    s->index = fresh;
    s->index_size = size;
    for (size_t i = 0; i < old_size; i++) {
        const unsigned char *e = old + i * s->entry_size;
        if (mt_intern_entry_id(e) == 0)
            continue;
        size_t mask = size - 1, j = (size_t)(s->entry_hash(e) >> 32) & mask;
        while (mt_intern_entry_id(fresh + j * s->entry_size) != 0)
            j = (j + 1) & mask;
        memcpy(fresh + j * s->entry_size, e, s->entry_size);
    }
    mt_mem_free(old);
    return true;
}
