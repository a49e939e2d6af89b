/* unwritten.c - bytes the program never wrote, per allocation site (option unwritten).
 *
 * New blocks (not calloc) are filled with 0xCD. When one is freed, its bytes that still
 * hold 0xCD were never written: counted in the same pass that fills it with 0xDD, and
 * summed per allocation site. A site whose blocks come back mostly unwritten allocates
 * more than it uses. Byte-precise, with one blind spot: a byte the program itself set to
 * 0xCD counts as unwritten. Blocks still live at exit are not counted. A block over 64 KiB
 * holds the fill whole only when the option was on as the first block was made (else only
 * its first 64 KiB: checks/guard.h): only the bytes that were filled are counted.
 *
 * Counters live in chunks that parallel the site ids, mapped from the kernel on first use
 * and never moved; they are relaxed atomics, so threads add without a lock.
 */
#include <string.h>

#include "base/options.h"
#include "checks/guard.h"
#include "checks/unwritten.h"
#include "records/site.h"

/* As the sites' chunks (records/site.c): smaller on bare metal. */
#define CHUNK_BITS MT_SMALL(10, 6)
#define CHUNK_SITES (1u << CHUNK_BITS)
#define MAX_CHUNKS MT_SMALL(16384u, 256u)

typedef struct counters {
    _Atomic uint64_t blocks, bytes, unwritten;
} counters_t;

static counters_t *_Atomic chunks[MAX_CHUNKS] MT_COLD;

static counters_t *counters_of(uint32_t site, bool create)
{
    uint32_t c = site >> CHUNK_BITS;
    if (c >= MAX_CHUNKS)
        return NULL;
    counters_t *chunk = atomic_load_explicit(&chunks[c], memory_order_acquire);
    if (chunk == NULL && create) {
        counters_t *fresh = mt_pages_alloc(CHUNK_SITES * sizeof(counters_t));
        if (fresh == NULL)
            return NULL;
        if (atomic_compare_exchange_strong(&chunks[c], &chunk, fresh))
            chunk = fresh;
        else /* another thread made it first: chunk holds its pointer */
            mt_pages_free(fresh, CHUNK_SITES * sizeof(counters_t));
    }
    return chunk != NULL ? &chunk[site & (CHUNK_SITES - 1)] : NULL;
}

bool mt_unwritten_site_counts(uint32_t site)
{
    return mt_site_get(site)->kind != MT_KIND_CALLOC;
}

void mt_unwritten_count_block(const mt_block_t *b)
{
    size_t filled = mt_fill_new_span(b->size);
    mt_unwritten_add(
        b->site, filled,
        mt_count_byte((const unsigned char *)mt_block_addr(b), filled, MT_ALLOC_FILL_BYTE));
}

void mt_unwritten_add(uint32_t site, size_t bytes, size_t unwritten)
{
    counters_t *c = counters_of(site, true);
    if (c == NULL)
        return;
    atomic_fetch_add_explicit(&c->blocks, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&c->bytes, bytes, memory_order_relaxed);
    atomic_fetch_add_explicit(&c->unwritten, unwritten, memory_order_relaxed);
}

/* Keeps out[0..n) sorted by unwritten bytes, largest first (then by site id). */
static void insert_sorted(mt_unwritten_site_t *out, size_t *n, size_t max,
                          const mt_unwritten_site_t *s)
{
    size_t i = *n;
    if (i == max) {
        if (max == 0 || out[max - 1].unwritten >= s->unwritten)
            return;
        i--;
    } else {
        (*n)++;
    }
    while (i > 0 && out[i - 1].unwritten < s->unwritten) {
        out[i] = out[i - 1];
        i--;
    }
    out[i] = *s;
}

size_t mt_unwritten_collect(mt_unwritten_site_t *out, size_t max)
{
    size_t n = 0;
    uint32_t sites = mt_site_count();
    for (uint32_t id = 0; id < sites; id++) {
        counters_t *c = counters_of(id, false);
        if (c == NULL) {
            id |= CHUNK_SITES - 1; /* the whole chunk is empty */
            continue;
        }
        mt_unwritten_site_t s = {
            .site = id,
            .blocks = atomic_load_explicit(&c->blocks, memory_order_relaxed),
            .bytes = atomic_load_explicit(&c->bytes, memory_order_relaxed),
            .unwritten = atomic_load_explicit(&c->unwritten, memory_order_relaxed),
        };
        if (s.blocks != 0)
            insert_sorted(out, &n, max, &s);
    }
    return n;
}
