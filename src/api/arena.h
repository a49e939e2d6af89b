/* arena.h - the arenas' shared parts: their types, where an allocation falls, and the tracked
 * side's entry points (arena.c: the untracked arena and the API; arena_tracked.c: the
 * tracked side).
 */
#ifndef MT_ARENA_H
#define MT_ARENA_H

#include "api/api.h"
#include "api/owned.h"

#define BASE_ALIGN 4096u /* alignments up to a page cost the same tracked or not */
#define DEFAULT_ALIGN MT_MIN_ALIGN

/* What the log keeps of an allocation: 48 bytes, as every allocation writes one. */
typedef struct arena_entry {
    unsigned char *user;
    size_t start;  /* its offset as the untracked arena counts it (its end: arena_entry_end) */
    size_t to;     /* the offset in its chunk just past its back guard */
    size_t size;   /* what was asked for */
    uint64_t meta; /* its record's meta (mt_owned_log): sequence number, thread, alignment;
                      0 when untracked or paged */
    uint32_t site;
    uint32_t chunk : 31; /* its chunk's index (a chunk is a quarter of the capacity at least) */
    uint32_t paged : 1;  /* against a guard page (api/owned_paged.c), not in its chunk: its
                            record went in the table when it was made */
} arena_entry_t;

/* The offset past e as the untracked arena counts it: a size of 0 takes a byte, so that
 * pointers are distinct, as malloc(0)'s. */
static inline size_t arena_entry_end(const arena_entry_t *e)
{
    return e->start + (e->size != 0 ? e->size : 1);
}

typedef struct arena_chunk {
    unsigned char *base;
    size_t size;
    size_t top;   /* [0, top) holds live allocations */
    size_t dirty; /* [0, dirty) was handed out once: [top, dirty) holds 0xDD */
} arena_chunk_t;

/* An allocation's place and the stack walk that led to it, with its site: the arena's last
 * from its return address's slot, which the next allocation from there, nearly always made
 * through the same calls, compares itself with (mt_stack_walk_again) to take the site with
 * no hash and no lookup. A few slots, as a parser allocates from a few places in turn. */
#define ARENA_RECENT_BITS 2
typedef struct arena_recent {
    const char *file, *func;
    void *pc;
    int line;
    uint32_t site;
    /* Misses in a row, and allocations left that skip the slot after too many: an engine's
     * allocator reached from many places through one wrapper shares one slot, whose walk
     * then differs at nearly every call and was only a cost (arena_tracked.c, alloc_site). */
    uint16_t misses, skip;
    mt_stack_walk_t walk;
} arena_recent_t;

typedef struct arena_tracking {
    mt_owner_t owner; /* in register.c's list, for the exit-time check */
    mt_lock_t lock;   /* the log, against a publisher in another thread */
    memtrack_arena_t *arena;
    const char *name; /* interned */
    size_t guard;
    arena_chunk_t *chunks;  /* in order; never moved or freed before destroy */
    size_t nchunks, chunk;  /* chunks, and the one allocations come from; later ones are empty */
    arena_entry_t *entries; /* live allocations, oldest first */
    size_t nentries, entries_size;
    size_t published; /* entries [0, published) have their records in the table */
    /* [nentries, logged): released allocations not written over yet, the newest first, so
     * that a write after release names the allocation it went to */
    size_t logged;
    uint32_t released_by; /* the last reset or rewind, for messages */
    arena_recent_t recent[1u << ARENA_RECENT_BITS];
} arena_tracking_t;

struct memtrack_arena {
    unsigned char *base; /* untracked: the block */
    size_t offset;       /* bytes in use, counted the same tracked or not */
    size_t capacity;
    arena_tracking_t *t; /* NULL: untracked */
};

/* The offset an allocation of `size` aligned to `align` starts at, or SIZE_MAX when it
 * does not fit. Offsets align as the untracked arena's addresses do: its block is page
 * aligned (a tracked arena counts as if its base were aligned to anything, which differs
 * only for alignments above a page). */
static inline size_t mt_arena_place(const memtrack_arena_t *a, size_t size, size_t align)
{
    uintptr_t base = (uintptr_t)a->base, mask = align - 1; /* (align: a power of two) */
    if (a->offset > SIZE_MAX - mask - (base & mask))
        return SIZE_MAX;
    size_t start = (size_t)(((base + a->offset + mask) & ~mask) - base);
    if (start > a->capacity || size > a->capacity - start)
        return SIZE_MAX;
    return start;
}

/* Makes a the tracked arena called name: its first chunk, its log, its place in the
 * owners' list. False (a->t NULL) when out of memory. */
bool mt_arena_tracked_init(memtrack_arena_t *a, const char *name);
/* Checks and releases everything a tracked arena holds, then its memory (not a itself). */
void mt_arena_tracked_destroy(memtrack_arena_t *a, uint32_t site);
/* A call of an allocating entry point: its place (file, line, func from the macros, or its
 * caller's pc) and its own frame and return address, from which the tracked side walks the
 * stack (MT_OWNED_FOUND's arguments, api/owned.h: the entry point's frame is live below it).
 * One pointer handed down, so that the entry point saves no registers around a walk. */
typedef struct arena_call {
    const char *file;
    int line;
    const char *func;
    void *pc;
    void *frame, *caller;
} arena_call_t;
#define ARENA_CALL(file, line, func, pc)                                                           \
    (&(arena_call_t){(file), (line), (func), (pc), __builtin_frame_address(0),                     \
                     __builtin_return_address(0)})
/* An allocation of a tracked arena, sited by its call and the stack that led there. */
void *mt_arena_tracked_alloc(memtrack_arena_t *a, size_t size, size_t align,
                             const arena_call_t *call);
/* The same at DEFAULT_ALIGN, what nearly every allocation asks. */
void *mt_arena_tracked_alloc_default(memtrack_arena_t *a, size_t size, const arena_call_t *call);
/* Releases every allocation made since mark (a mark cutting one is reported). */
void mt_arena_tracked_rewind(memtrack_arena_t *a, size_t mark, uint32_t site);
/* Releases every allocation: their guards checked, their bytes filled with 0xDD. */
void mt_arena_tracked_reset(memtrack_arena_t *a, uint32_t site);

#endif
