/* memory.c - the tracker's own memory: records, hash tables, sites, owner names, the error
 * log's pending messages and the symbol cache. (Pools and arenas keep their own bookkeeping
 * in memory from the C library underneath: mt_libc_*.)
 *
 * None of it comes from the C library's heap. There it would sit next to the program's
 * blocks, where an overrun past a guard, or a stale pointer the program frees twice, could
 * reach it. Instead it comes from pages mapped for the tracker alone, each mapping behind
 * an inaccessible guard page, carved into power-of-two size classes with a free list each;
 * requests above the largest class get a mapping of their own.
 *
 * Every block starts with a 16-byte header naming its class (or its mapping's size), so
 * the interface is malloc's. One lock covers all classes: the tracker allocates for itself
 * rarely (a slab per few hundred records, a table when it doubles, a new site), never on
 * the common path of a malloc or a free.
 */
#include <string.h>
#include <unistd.h>

#include "base/lock.h"
#include "base/memory.h"

#if defined(__SANITIZE_ADDRESS__)
#define MT_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MT_LSAN 1
#endif
#endif
#ifdef MT_LSAN
/* In an AddressSanitizer build of the library (make sanitize), LeakSanitizer must see the
 * pointers our records hold to the program's blocks, or every live block looks leaked. */
#include <sanitizer/lsan_interface.h>
#endif

#define HEADER 16u
#define MIN_SHIFT 5u /* 32-byte blocks, header included */
/* 64 KiB blocks. On bare metal 512 bytes: the tracker's larger blocks there are tables
 * (a slab of records, a chunk of sites, buckets) whose sizes are not powers of two once
 * the header is added, so a class would waste up to half of each; they take a range of
 * the static buffer of their own instead, rounded to 16 bytes. */
#define MAX_SHIFT MT_SMALL(16u, 9u)
#define CLASSES (MAX_SHIFT - MIN_SHIFT + 1)
#define CHUNK_BYTES MT_OWN_CHUNK_BYTES /* (base/platform.h) */
_Static_assert(((size_t)1 << MAX_SHIFT) <= CHUNK_BYTES, "a class block fits in a chunk");
#define BIG_CLASS 0xffffffffu

typedef struct header {
    uint32_t cls; /* size class, or BIG_CLASS for a mapping of its own */
    uint32_t unused;
    uint64_t map_size; /* for BIG_CLASS: bytes mapped, guard page included */
} header_t;

_Static_assert(sizeof(header_t) == HEADER, "the header keeps 16-byte alignment");

typedef struct free_block {
    struct free_block *next;
} free_block_t;

/* A class takes blocks from its free list first, then from the untouched rest of the
 * newest chunk, which every class carves from (so a short-lived process maps one chunk and
 * faults in only the pages it uses: a chunk per class, each threaded through with a free
 * list up front, cost it hundreds of page faults). Blocks are powers of two of at least
 * 32 bytes carved from a page-aligned start, so each keeps the 16-byte alignment. */
static struct {
    mt_lock_t lock;
    free_block_t *free[CLASSES];
    unsigned char *carve_next, *carve_end;
} mem = {.lock = MT_LOCK_INIT};

#ifndef MT_BARE_METAL
static size_t page_size(void)
{
    static size_t cached;
    if (cached == 0)
        cached = (size_t)sysconf(_SC_PAGESIZE);
    return cached;
}
#endif

/* The guard page in front of each mapping: none on bare metal, where nothing could make
 * it inaccessible (no MMU) and it would only cost the static buffer room. */
static size_t guard_size(void)
{
#ifdef MT_BARE_METAL
    return 0;
#else
    return page_size();
#endif
}

/* What a request above the classes is rounded to: pages, or 16 bytes on bare metal. */
static size_t map_unit(void)
{
#ifdef MT_BARE_METAL
    return 16;
#else
    return page_size();
#endif
}

/* Maps size bytes behind a guard page; returns the usable start or NULL. */
static void *map_guarded(size_t size)
{
    size_t page = guard_size();
    unsigned char *base = mt_pages_alloc(size + page);
    if (base == NULL)
        return NULL;
    mt_pages_protect_none(base, page);
#ifdef MT_LSAN
    __lsan_register_root_region(base + page, size);
#endif
    return base + page;
}

static unsigned class_of(size_t total)
{
    unsigned shift = MIN_SHIFT;
    while (((size_t)1 << shift) < total)
        shift++;
    return shift - MIN_SHIFT;
}

/* Takes a block of class c from the untouched rest of the chunk, mapping a new chunk when
 * the rest is too small (the rest goes to the free lists first); caller holds mem.lock. */
static void *carve_locked(unsigned c)
{
    size_t block = (size_t)1 << (c + MIN_SHIFT);
    if ((size_t)(mem.carve_end - mem.carve_next) < block) {
        unsigned char *chunk = map_guarded(CHUNK_BYTES);
        if (chunk == NULL)
            return NULL;
        for (unsigned k = CLASSES; k-- > 0;) { /* the old rest, largest pieces first */
            size_t piece = (size_t)1 << (k + MIN_SHIFT);
            while ((size_t)(mem.carve_end - mem.carve_next) >= piece) {
                free_block_t *f = (free_block_t *)mem.carve_next;
                f->next = mem.free[k];
                mem.free[k] = f;
                mem.carve_next += piece;
            }
        }
        mem.carve_next = chunk;
        mem.carve_end = chunk + CHUNK_BYTES;
    }
    void *p = mem.carve_next;
    mem.carve_next += block;
    return p;
}

/* Returns a block of at least size bytes; *fresh tells whether its memory is untouched
 * since the kernel mapped it, so already zero. */
static void *alloc_block(size_t size, bool *fresh)
{
    *fresh = true;
    if (size > SIZE_MAX / 2)
        return NULL;
    size_t total = size + HEADER;
    header_t *h;
    if (total > ((size_t)1 << MAX_SHIFT)) {
        size_t page = map_unit();
        size_t map = (total + page - 1) / page * page;
        h = map_guarded(map);
        if (h == NULL)
            return NULL;
        h->cls = BIG_CLASS;
        h->map_size = map + guard_size();
        return (unsigned char *)h + HEADER;
    }
    unsigned c = class_of(total);
    mt_lock(&mem.lock);
    if (mem.free[c] != NULL) {
        h = (header_t *)mem.free[c];
        mem.free[c] = mem.free[c]->next;
        *fresh = false;
    } else {
        h = carve_locked(c);
    }
    mt_unlock(&mem.lock);
    if (h == NULL)
        return NULL;
    h->cls = c;
    h->map_size = 0;
    return (unsigned char *)h + HEADER;
}

void *mt_mem_alloc(size_t size)
{
    bool fresh;
    return alloc_block(size, &fresh);
}

/* Memory fresh from the kernel is zero already: a start-up's tables are not written twice
 * (nor their pages faulted in before they are used). */
void *mt_mem_calloc(size_t count, size_t size)
{
    size_t total;
    bool fresh;
    if (__builtin_mul_overflow(count, size, &total))
        return NULL;
    void *p = alloc_block(total, &fresh);
    if (p != NULL && !fresh)
        memset(p, 0, total);
    return p;
}

void mt_mem_free(void *ptr)
{
    if (ptr == NULL)
        return;
    header_t *h = (header_t *)((unsigned char *)ptr - HEADER);
    if (h->cls == BIG_CLASS) {
#ifdef MT_LSAN
        __lsan_unregister_root_region(h, (size_t)h->map_size - guard_size());
#endif
        mt_pages_free((unsigned char *)h - guard_size(), (size_t)h->map_size);
        return;
    }
    /* The class is read before the block becomes a free-list entry: its link overwrites
     * the header (on 32-bit targets exactly the class field). */
    unsigned cls = h->cls;
    free_block_t *f = (free_block_t *)h;
    mt_lock(&mem.lock);
    f->next = mem.free[cls];
    mem.free[cls] = f;
    mt_unlock(&mem.lock);
}

void mt_mem_lock_all(void)
{
    mt_lock(&mem.lock);
}

void mt_mem_unlock_all(void)
{
    mt_unlock(&mem.lock);
}
