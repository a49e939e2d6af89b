/* reach.h - who keeps each live block alive: the leak scan (reach.c).
 */
#ifndef MT_REACH_H
#define MT_REACH_H

#include "base/roots.h"
#include "records/table.h"

/* What holds a block, as Valgrind's memcheck tells it. */
typedef enum mt_reach_state {
    MT_REACH_UNREACHED, /* during the scan; lost once it is done */
    MT_REACH_LOST,      /* nothing points at it */
    MT_REACH_INDIRECT,  /* only lost blocks point at it */
    MT_REACH_POSSIBLE,  /* only pointers into its middle do (or blocks only they hold) */
    MT_REACH_REACHABLE, /* a root, or a block a root holds, points at its start */
} mt_reach_state_t;

#define MT_REACH_NO_BLOCK UINT32_MAX

/* One live block as the scan found it. */
typedef struct mt_reach_block {
    uintptr_t start;
    size_t size;
    uint64_t meta;            /* the record's (sequence number, flags) */
    uintptr_t via;            /* the word that reached it: in a root, or in block `parent` */
    uint32_t site;            /* where it was made */
    uint32_t parent;          /* the block holding that word, or MT_REACH_NO_BLOCK (a root's) */
    uint32_t offset;          /* how far into this block that word points (UINT32_MAX: farther) */
    uint8_t state;            /* mt_reach_state_t */
    const mt_block_t *record; /* its record when taken (records stay in the tracker's memory) */
} mt_reach_block_t;

typedef struct mt_reach {
    mt_reach_block_t *blocks; /* every live block, by address */
    size_t n, cap;
    mt_roots_t roots; /* what was read as roots, for naming holders */
    uint64_t blocks_in[MT_REACH_REACHABLE + 1], bytes_in[MT_REACH_REACHABLE + 1];
    uint64_t words; /* words read, roots and blocks */
} mt_reach_t;

/* The tracker's entry point that scans calls this first, in its own body: the stack
 * above that point is the program's (below it the tracker works), and the registers the
 * program had are saved there, so the scan reads them with it. */
#define MT_REACH_FROM_HERE()                                                                       \
    do {                                                                                           \
        __builtin_unwind_init();                                                                   \
        mt_reach_enter(__builtin_frame_address(0), false);                                         \
    } while (0)
/* The same for the exit report, which the C library's exit() calls (base/roots.h). */
#define MT_REACH_FROM_EXIT()                                                                       \
    do {                                                                                           \
        __builtin_unwind_init();                                                                   \
        mt_reach_enter(__builtin_frame_address(0), true);                                          \
    } while (0)
void mt_reach_enter(void *frame, bool at_exit);
/* Ends what MT_REACH_FROM_HERE began (before the entry point returns). */
void mt_reach_leave(void);

/* Takes every live block (pool objects, arena allocations and registered blocks
 * included) and tells what holds each. False, with nothing kept, when there is no memory
 * for it (the blocks are then not classified). Never allocates through the tracker; reads
 * all memory through the kernel; takes each shard's lock in turn, never two at once. */
bool mt_reach_scan(mt_reach_t *r);
void mt_reach_free(mt_reach_t *r);
/* The index of the block that starts at or holds addr, or MT_REACH_NO_BLOCK. */
uint32_t mt_reach_find(const mt_reach_t *r, uintptr_t addr);

/* Roots the program registered (memtrack_register_root), added to r->roots. */
bool mt_reach_add_registered(mt_roots_t *roots);
/* The site a registered root was registered at (its index, mt_root_t.index). */
uint32_t mt_reach_registered_site(uint32_t index);
/* Around fork: the registered roots' lock. */
void mt_reach_roots_lock_all(void);
void mt_reach_roots_unlock_all(void);

#endif /* MT_REACH_H */
