/* floor.c - the floor: the least a tracker built from memtrack's required parts can cost.
 *
 * The churn (churn.c) built with -include floor.h calls floor_malloc/floor_free instead
 * of malloc/free. They do only what the design requires, with nothing memtrack adds on top
 * (no site interning, statistics, sequence numbers, options, error reports, C++ checks):
 *   - a record per block outside it (80 bytes: uthash's handle, size, file, line, flags),
 *     from slabs of its own;
 *   - the table: uthash keyed on the address, 16 shards by 64 MiB region each with a lock
 *     taken by one atomic exchange, 1024 buckets at start, the paper's index
 *     (address >> 4) & 1023, mixed (Fibonacci) once grown, as memtrack's table is;
 *   - 16-byte guards before and after the block, written at malloc, checked at free;
 * and, built with -DFLOOR_FULL, memtrack's default debugging on top:
 *   - 0xCD in new blocks, 0xDD in freed ones;
 *   - a quarantine of 1 MiB per shard: freed records stay in the table flagged freed and
 *     queue in a FIFO ring; the oldest leave when the shard passes its budget, checked for
 *     writes after free, and go back to the C library.
 * Built with -DFLOOR_PRELOAD it is the process's allocator instead (floor_preload.c, the
 * real-library benchmark): glibc's own entry points underneath, and a pointer it never
 * made is glibc's to free.
 * Built with -DFLOOR_OPEN the table is open addressing instead (linear probing, 32-byte
 * entries holding the record itself, doubled at half full, backward-shift deletion): not
 * the design (the paper's doubly linked hash on uthash), printed beside it as a reference
 * for what uthash costs at scale.
 *
 * A damaged guard or a write after free aborts: the floor only has to do the work.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "floor.h"

#undef malloc
#undef calloc
#undef free
#ifdef FLOOR_PRELOAD /* the process's malloc is ours: the blocks come from glibc's own */
extern void *__libc_malloc(size_t size);
extern void __libc_free(void *ptr);
#define malloc __libc_malloc
#define free __libc_free
#endif

#define GUARD 16u
#define GUARD_BYTE 0xFD
#define NEW_BYTE 0xCD
#define FREED_BYTE 0xDD
#define SHARDS 16u
#define QUARANTINE_BYTES ((size_t)1 << 20)
#define FLAG_FREED 1u

static void *pages(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "floor: out of memory\n");
        abort();
    }
    return p;
}

static void die(const char *what, const void *p)
{
    fprintf(stderr, "floor: %s at %p\n", what, p);
    abort();
}

#ifndef FLOOR_OPEN
/* ---- uthash: the design's table ------------------------------------------------------ */

#define uthash_malloc(sz) pages(sz)
#define uthash_free(ptr, sz) munmap(ptr, sz)
#include <uthash.h>
#undef HASH_FUNCTION
#undef HASH_KEYCMP
#undef HASH_TO_BKT
#undef HASH_INITIAL_NUM_BUCKETS
#undef HASH_INITIAL_NUM_BUCKETS_LOG2
#define HASH_FUNCTION(keyptr, keylen, hashv) ((hashv) = (unsigned)((uintptr_t)(keyptr) >> 4))
#define HASH_KEYCMP(a, b, n) ((a) != (b))
#define HASH_TO_BKT(hashv, num_bkts, bkt) ((bkt) = bucket_index((hashv), (num_bkts)))
#define HASH_INITIAL_NUM_BUCKETS 1024u
#define HASH_INITIAL_NUM_BUCKETS_LOG2 10U

static inline unsigned bucket_index(unsigned hashv, unsigned buckets)
{
    if (buckets <= 1024u)
        return hashv & (buckets - 1);
    return (unsigned)((hashv * 0x9E3779B1u) >> (32 - (unsigned)__builtin_ctz(buckets)));
}

typedef struct record {
    UT_hash_handle hh; /* hh.key is the user address */
    size_t size;
    const char *file;
    unsigned line, flags;
} record_t;
_Static_assert(sizeof(record_t) == 80, "as large as memtrack's record");

#else
/* ---- open addressing: the reference ---------------------------------------------------- */

typedef struct record {
    uintptr_t key; /* 0: empty */
    size_t size;
    const char *file;
    unsigned line, flags;
} record_t;
#endif

typedef struct shard {
    atomic_flag lock;
#ifndef FLOOR_OPEN
    record_t *head;  /* uthash's head: the anchor, never removed, so the table stays */
    record_t anchor; /* key 0 */
    record_t *free_records;
#else
    record_t *slots;
    size_t mask, used;
#endif
#ifdef FLOOR_FULL
    uintptr_t *ring; /* the quarantine: freed blocks' addresses, oldest at head */
    size_t ring_mask, ring_head, ring_count, held;
#endif
} __attribute__((aligned(64))) shard_t;

static shard_t shards[SHARDS];

static inline shard_t *shard_of(uintptr_t addr)
{
    return &shards[((uint64_t)addr >> 26) * UINT64_C(0x9E3779B97F4A7C15) >> 60];
}

static inline void lock(shard_t *s)
{
    while (atomic_flag_test_and_set_explicit(&s->lock, memory_order_acquire))
        ;
}

static inline void unlock(shard_t *s)
{
    atomic_flag_clear_explicit(&s->lock, memory_order_release);
}

/* ---- the table's four operations ------------------------------------------------------ */

#ifndef FLOOR_OPEN
static record_t *record_new(shard_t *s)
{
    if (s->free_records == NULL) {
        size_t n = 65536 / sizeof(record_t);
        record_t *slab = pages(n * sizeof(record_t));
        for (size_t i = 0; i < n; i++) {
            slab[i].hh.next = s->free_records;
            s->free_records = &slab[i];
        }
    }
    record_t *r = s->free_records;
    s->free_records = r->hh.next;
    return r;
}

static record_t *table_add(shard_t *s, uintptr_t addr)
{
    if (s->head == NULL) {
        s->anchor.hh.key = NULL;
        HASH_ADD_KEYPTR(hh, s->head, s->anchor.hh.key, sizeof(uintptr_t), &s->anchor);
    }
    record_t *r = record_new(s);
    r->hh.key = (const void *)addr;
    HASH_ADD_KEYPTR(hh, s->head, r->hh.key, sizeof(uintptr_t), r);
    return r;
}

static record_t *table_find(shard_t *s, uintptr_t addr)
{
    record_t *r = NULL;
    if (s->head != NULL)
        HASH_FIND(hh, s->head, (const void *)addr, sizeof(uintptr_t), r);
    return r;
}

static void table_remove(shard_t *s, record_t *r)
{
    HASH_DELETE(hh, s->head, r);
    r->hh.next = s->free_records;
    s->free_records = r;
}
#else
static inline size_t slot_of(uintptr_t addr, size_t mask)
{
    return (size_t)(((uint64_t)addr >> 4) * UINT64_C(0x9E3779B97F4A7C15) >> 20) & mask;
}

static void table_grow(shard_t *s)
{
    size_t old = s->slots != NULL ? s->mask + 1 : 0, cap = old != 0 ? old * 2 : 1024;
    record_t *slots = pages(cap * sizeof *slots), *from = s->slots;
    for (size_t i = 0; i < old; i++) {
        if (from[i].key == 0)
            continue;
        size_t k = slot_of(from[i].key, cap - 1);
        while (slots[k].key != 0)
            k = (k + 1) & (cap - 1);
        slots[k] = from[i];
    }
    if (from != NULL)
        munmap(from, old * sizeof *from);
    s->slots = slots;
    s->mask = cap - 1;
}

static record_t *table_add(shard_t *s, uintptr_t addr)
{
    if (s->slots == NULL || 2 * (s->used + 1) > s->mask + 1)
        table_grow(s);
    size_t k = slot_of(addr, s->mask);
    while (s->slots[k].key != 0)
        k = (k + 1) & s->mask;
    s->used++;
    s->slots[k].key = addr;
    return &s->slots[k];
}

static record_t *table_find(shard_t *s, uintptr_t addr)
{
    if (s->slots == NULL)
        return NULL;
    for (size_t k = slot_of(addr, s->mask);; k = (k + 1) & s->mask) {
        if (s->slots[k].key == addr)
            return &s->slots[k];
        if (s->slots[k].key == 0)
            return NULL;
    }
}

/* Backward-shift deletion: no tombstones, chains stay as short as at insertion. */
static void table_remove(shard_t *s, record_t *r)
{
    size_t hole = (size_t)(r - s->slots), k = hole;
    for (;;) {
        k = (k + 1) & s->mask;
        if (s->slots[k].key == 0)
            break;
        size_t home = slot_of(s->slots[k].key, s->mask);
        if (((k - home) & s->mask) >= ((k - hole) & s->mask)) { /* may move back to hole */
            s->slots[hole] = s->slots[k];
            hole = k;
        }
    }
    s->slots[hole].key = 0;
    s->used--;
}
#endif

static inline uintptr_t key_of(const record_t *r)
{
#ifndef FLOOR_OPEN
    return (uintptr_t)r->hh.key;
#else
    return r->key;
#endif
}

/* ---- blocks ------------------------------------------------------------------------------ */

static const unsigned char guard_pattern[GUARD] = {
    GUARD_BYTE, GUARD_BYTE, GUARD_BYTE, GUARD_BYTE, GUARD_BYTE, GUARD_BYTE, GUARD_BYTE, GUARD_BYTE,
    GUARD_BYTE, GUARD_BYTE, GUARD_BYTE, GUARD_BYTE, GUARD_BYTE, GUARD_BYTE, GUARD_BYTE, GUARD_BYTE};

static void *alloc(size_t size, const char *file, int line, bool zero)
{
    unsigned char *raw = malloc(GUARD + size + GUARD);
    if (raw == NULL)
        return NULL;
    unsigned char *user = raw + GUARD;
    memcpy(raw, guard_pattern, GUARD);
    memcpy(user + size, guard_pattern, GUARD);
    if (zero)
        memset(user, 0, size);
#ifdef FLOOR_FULL
    else
        memset(user, NEW_BYTE, size);
#endif
    shard_t *s = shard_of((uintptr_t)user);
    lock(s);
    record_t *r = table_add(s, (uintptr_t)user);
    r->size = size;
    r->file = file;
    r->line = (unsigned)line;
    r->flags = 0;
    unlock(s);
    return user;
}

void *floor_malloc(size_t size, const char *file, int line)
{
    return alloc(size, file, line, false);
}

void *floor_calloc(size_t count, size_t size, const char *file, int line)
{
    if (size != 0 && count > SIZE_MAX / 2 / size)
        return NULL;
    return alloc(count * size, file, line, true);
}

#ifdef FLOOR_FULL
/* Releases the oldest freed blocks while the shard holds more than its budget; never the
 * newest, which its thread fills after the lock (memtrack's pending flag does this job when
 * threads share a shard; the floor is measured on one thread). */
static void evict_locked(shard_t *s)
{
    while (s->held > QUARANTINE_BYTES && s->ring_count > 1) {
        uintptr_t addr = s->ring[s->ring_head];
        s->ring_head = (s->ring_head + 1) & s->ring_mask;
        s->ring_count--;
        record_t *r = table_find(s, addr);
        const unsigned char *user = (const unsigned char *)addr;
        size_t i = 0;
        for (uint64_t w; i + 8 <= r->size; i += 8) /* a word at a time, as memtrack scans */
            if (memcpy(&w, user + i, 8), w != UINT64_C(0x0101010101010101) * FREED_BYTE)
                die("write after free", user);
        for (; i < r->size; i++)
            if (user[i] != FREED_BYTE)
                die("write after free", user);
        s->held -= GUARD + r->size + GUARD;
        free((unsigned char *)addr - GUARD);
        table_remove(s, r);
    }
}

static void ring_push_locked(shard_t *s, uintptr_t addr)
{
    if (s->ring == NULL || s->ring_count > s->ring_mask) {
        size_t cap = s->ring != NULL ? 2 * (s->ring_mask + 1) : 256;
        uintptr_t *ring = pages(cap * sizeof *ring);
        for (size_t k = 0; k < s->ring_count; k++)
            ring[k] = s->ring[(s->ring_head + k) & s->ring_mask];
        if (s->ring != NULL)
            munmap(s->ring, (s->ring_mask + 1) * sizeof *ring);
        s->ring = ring;
        s->ring_mask = cap - 1;
        s->ring_head = 0;
    }
    s->ring[(s->ring_head + s->ring_count++) & s->ring_mask] = addr;
}
#endif

void floor_free(void *ptr)
{
    if (ptr == NULL)
        return;
    unsigned char *user = ptr;
    shard_t *s = shard_of((uintptr_t)user);
    lock(s);
    record_t *r = table_find(s, (uintptr_t)user);
#ifdef FLOOR_PRELOAD
    if (r == NULL) { /* glibc's (an aligned block, floor_preload.c) */
        unlock(s);
        free(ptr);
        return;
    }
#endif
    if (r == NULL || key_of(r) == 0 || (r->flags & FLAG_FREED))
        die("not a live block", ptr);
    size_t size = r->size;
#ifdef FLOOR_FULL
    r->flags |= FLAG_FREED;
    ring_push_locked(s, (uintptr_t)user);
    s->held += GUARD + size + GUARD;
    evict_locked(s);
#else
    table_remove(s, r);
#endif
    unlock(s);
    if (memcmp(user - GUARD, guard_pattern, GUARD) != 0 ||
        memcmp(user + size, guard_pattern, GUARD) != 0)
        die("damaged guard", ptr);
#ifdef FLOOR_FULL
    memset(user, FREED_BYTE, size);
#else
    free(user - GUARD);
#endif
}

size_t floor_size(const void *ptr)
{
    shard_t *s = shard_of((uintptr_t)ptr);
    lock(s);
    record_t *r = table_find(s, (uintptr_t)ptr);
    size_t size = r != NULL && key_of(r) != 0 && !(r->flags & FLAG_FREED) ? r->size : SIZE_MAX;
    unlock(s);
    return size;
}
