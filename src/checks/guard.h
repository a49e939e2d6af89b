/* guard.h - the block layout, its guard bytes and fill patterns, and the guard check.
 *
 * A tracked block, as the C library lends it and the user sees it:
 *
 *    raw (from the C library)      user (returned to the program)
 *    |                             |
 *    v                             v
 *    +-----------------------------+------------------------+--------------+
 *    | front guard: 0xFD ...       | the user's bytes:      | back guard:  |
 *    | (guard bytes, rounded up to | 0xCD when new (not     | 0xFD x guard |
 *    |  a multiple of the block's  | calloc), 0xDD once     |              |
 *    |  alignment; the last 8 are  | freed (in quarantine)  |              |
 *    |  zero for C++ `new` blocks) |                        |              |
 *    +-----------------------------+------------------------+--------------+
 *    <-- mt_block_front(shift) --> <-- size (requested) ---> <-- guard ---->
 *
 * The block's record (records/table.h) lives outside it, in the tracker's own memory.
 * The guard size is fixed when the first block is made (option guard).
 */
#ifndef MT_GUARD_H
#define MT_GUARD_H

#include <string.h>

#include "records/table.h"

/* One name per fill byte. */
#define MT_GUARD_BYTE 0xFDu      /* "fence": around every block */
#define MT_ALLOC_FILL_BYTE 0xCDu /* "clean": new blocks, not calloc */
#define MT_FREE_FILL_BYTE                                                                          \
    0xDDu /* "dead": freed blocks in quarantine, released pool                                     \
             slots and arena bytes */

/* ---- the layout, fixed when the first block is made ------------------------------------ */
extern MT_HIDDEN size_t mt_guard_bytes; /* option guard, frozen */
extern MT_HIDDEN size_t
    mt_guard_front; /* mt_guard_bytes rounded up to malloc's alignment, frozen */
/* The largest block of malloc's alignment: SIZE_MAX / 2 less its guards, frozen (an allocation
 * tests it in one compare). */
extern MT_HIDDEN size_t mt_guard_size_max;
extern MT_HIDDEN bool mt_fill_new;   /* option fill_new, frozen */
extern MT_HIDDEN bool mt_fill_freed; /* option fill_freed, frozen */

/* A new block is filled with 0xCD up to this many bytes: a large buffer a program may never
 * touch whole (xz's 100 MB of dictionaries for a small file) is not made resident by the
 * fill (it was: 4 MB became 132 MB, and ten times the time). Unless option unwritten counts
 * the bytes never written, which needs the whole block filled: whole when the option was on
 * as the first block was made (mt_fill_new_whole, frozen with the layout, so that a block
 * counted later knows how much of it was filled: mt_fill_new_span). */
#define MT_FILL_NEW_MAX ((size_t)64 << 10)
extern MT_HIDDEN bool mt_fill_new_whole;
/* How many of a block's first bytes hold the new-block fill until written: all of its size
 * bytes, or the first MT_FILL_NEW_MAX (a realloc that grows a block fills at least up to
 * there too). */
static inline size_t mt_fill_new_span(size_t size)
{
    return mt_fill_new_whole || size <= MT_FILL_NEW_MAX ? size : MT_FILL_NEW_MAX;
}
/* Fills the new bytes [at, at + n) of a block beyond MT_FILL_NEW_MAX (out of line: rare). */
void mt_fill_new_large(unsigned char *at, size_t n);
/* Fills the new bytes [at, at + n) of a block (mt_fill_new set). */
static inline void mt_fill_new_bytes(unsigned char *at, size_t n)
{
    if (MT_LIKELY(n <= MT_FILL_NEW_MAX))
        memset(at, MT_ALLOC_FILL_BYTE, n);
    else
        mt_fill_new_large(at, n);
}
/* Freezes the layout from the options (read already). Once: the caller checks
 * mt_options_frozen first. */
void mt_layout_freeze(void);

/* Bytes before the user pointer for this alignment (a multiple of the alignment). Inline:
 * every allocation and every free works it out. */
static inline size_t mt_front_size(size_t guard, size_t align)
{
    if (align < MT_MIN_ALIGN)
        align = MT_MIN_ALIGN;
    return (guard + align - 1) & ~(align - 1); /* align is a power of two: no division */
}
#define MT_MIN_ALIGN_SHIFT 4u
_Static_assert(MT_MIN_ALIGN == 1u << MT_MIN_ALIGN_SHIFT, "the log2 of malloc's alignment");
/* Bytes of guard before the user pointer (for an alignment of 1 << align_shift) and after
 * the block; the pointer the C library gave. */
static inline size_t mt_block_front(unsigned align_shift)
{
    if (MT_LIKELY(align_shift <= MT_MIN_ALIGN_SHIFT)) /* malloc's alignment or less */
        return mt_guard_front;
    return mt_front_size(mt_guard_bytes, (size_t)1 << align_shift);
}
static inline size_t mt_block_back(void)
{
    return mt_guard_bytes;
}
static inline size_t mt_block_front_of(const mt_block_t *b)
{
    return mt_block_front(MT_META_ALIGN_SHIFT(b->meta));
}
static inline unsigned char *mt_block_raw(uintptr_t addr, uint64_t meta)
{
    return (unsigned char *)addr - mt_block_front(MT_META_ALIGN_SHIFT(meta));
}

/* ---- guards ---------------------------------------------------------------------------- */
typedef struct mt_guard_damage {
    size_t changed; /* guard bytes that differ from the pattern */
    size_t extent;  /* how far from the block the farthest changed byte lies */
} mt_guard_damage_t;

/* Writes the front and back guards. The default guards (16 bytes, malloc's alignment) are
 * two word stores a side, inline: a call to memset for 16 bytes cost more than the stores. */
void mt_guard_fill_any(unsigned char *user, size_t size, size_t front, size_t back);
#define MT_GUARD_WORD (UINT64_C(0x0101010101010101) * MT_GUARD_BYTE)
static inline void mt_guard_fill(unsigned char *user, size_t size, size_t front, size_t back)
{
    if (MT_LIKELY(front == 16 && back == 16)) {
        const uint64_t w = MT_GUARD_WORD;
        memcpy(user - 16, &w, 8);
        memcpy(user - 8, &w, 8);
        memcpy(user + size, &w, 8);
        memcpy(user + size + 8, &w, 8);
    } else {
        mt_guard_fill_any(user, size, front, back);
    }
}
/* mt_guard_fill for a block of malloc's alignment (its front guard mt_guard_front): a back
 * guard of 16 bytes makes the front 16 too, so one test tells the default guards. */
static inline void mt_guard_fill_plain(unsigned char *user, size_t size, size_t back)
{
    if (MT_LIKELY(back == 16))
        mt_guard_fill(user, size, 16, 16);
    else
        mt_guard_fill_any(user, size, mt_guard_front, back);
}
/* Fills in *under and *over; returns true when either guard was changed. */
bool mt_guard_check(const unsigned char *user, size_t size, size_t front, size_t back,
                    mt_guard_damage_t *under, mt_guard_damage_t *over);
/* The C++ cookie slot: the last bytes of the front guard of a scalar operator new block
 * are zero, so a mismatched delete[] reads an element count of 0 (see guard.c). */
#define MT_COOKIE_SLOT 8u
void mt_guard_clear_cookie(unsigned char *user, size_t front);
/* Recomputes the front damage of such a block, its cookie slot expected zero. */
void mt_guard_recheck_cookie(const unsigned char *user, size_t front, mt_guard_damage_t *under);

/* The guard check of a block (a copy, or a live record under its lock) with the cookie
 * rule: true when its guards are damaged, with the damage in *under and *over. Registered
 * blocks (no guards) are never damaged. */
bool mt_block_damaged(const mt_block_t *b, mt_guard_damage_t *under, mt_guard_damage_t *over);
/* An overrun of a that ran past its back guard's end into the tracked blocks laid after it
 * in the C library's memory, each damaged from its first guard byte on: returns how many
 * (at most MT_SPILL_MAX), raising *extent (bytes past a's end) and *changed by what they show;
 * with mark, flags them as reported, so the damage is told once, on a. */
#define MT_SPILL_MAX 64u
size_t mt_overrun_spill(const mt_block_t *a, size_t *extent, size_t *changed, bool mark);
/* What mt_overrun_spill found for the block at addr, worked out before a walk of the table
 * and used by the reports made during it (mt_spills_known; NULL, 0 afterwards). */
typedef struct mt_spill {
    uintptr_t addr;
    size_t spans, extent, changed;
} mt_spill_t;
void mt_spills_known(const mt_spill_t *spills, size_t n);
/* Reports damage found by the guard check of block b (a copy), as found at found_site. */
void mt_report_guard_damage(const mt_block_t *b, uint32_t found_site,
                            const mt_guard_damage_t *under, const mt_guard_damage_t *over);
/* Checks b's guards and reports damage not reported yet; returns 1 when damaged. */
int mt_check_block(const mt_block_t *b, uint32_t found_site);
/* The same for a live record, under its shard's lock: damage is reported once per block. */
int mt_check_block_locked(mt_block_t *b, uint32_t found_site);

/* ---- fill patterns, a word at a time ---------------------------------------------------- */
/* Two words that the compiler keeps in one vector register where the target has them
 * (SSE2, NEON...), and in two plain words where it does not: GCC's and clang's generic
 * vectors. */
typedef uint64_t mt_words2_t __attribute__((vector_size(16)));
#define MT_BYTE_WORD(byte) (UINT64_C(0x0101010101010101) * (byte))

/* True when every byte of [p, p+n) is `byte`. Inline for the paths that check released
 * bytes at every allocation (an arena's, api/arena_tracked.c); mt_pattern_intact is the same
 * out of line. */
static inline bool mt_pattern_intact_inline(const unsigned char *p, size_t n, unsigned char byte)
{
    uint64_t rep = MT_BYTE_WORD(byte), diff = 0, w;
    if (n < 8) {
        for (size_t i = 0; i < n; i++)
            diff |= p[i] ^ byte;
        return diff == 0;
    }
    if (n < 32) {
        for (size_t i = 0; i + 8 <= n; i += 8) {
            memcpy(&w, p + i, 8);
            diff |= w ^ rep;
        }
        memcpy(&w, p + n - 8, 8); /* the tail, overlapping what was read */
        return (diff | (w ^ rep)) == 0;
    }
    /* 32 bytes a round, the differences or-ed together: no branch but the loop's; the last
     * round reads the last 32 bytes, overlapping the one before. */
    mt_words2_t reps = {rep, rep}, diffs = {0, 0}, a, b;
    for (size_t i = 0; i + 32 <= n; i += 32) {
        memcpy(&a, p + i, 16);
        memcpy(&b, p + i + 16, 16);
        diffs |= (a ^ reps) | (b ^ reps);
    }
    memcpy(&a, p + n - 32, 16);
    memcpy(&b, p + n - 16, 16);
    diffs |= (a ^ reps) | (b ^ reps);
    return (diffs[0] | diffs[1]) == 0;
}

/* Fills [p, p+n) with `fill` and returns how many of its bytes were `counted` before. */
size_t mt_fill_counting(unsigned char *p, size_t n, unsigned char fill, unsigned char counted);
size_t mt_count_byte(const unsigned char *p, size_t n, unsigned char byte);
/* Counts the bytes of [p, p+n) that differ from `byte`; *first gets the first one's index. */
size_t mt_pattern_check(const unsigned char *p, size_t n, unsigned char byte, size_t *first);
/* True when every byte of [p, p+n) is `byte`: the quick answer for the common case, before
 * mt_pattern_scan locates and counts what changed. */
bool mt_pattern_intact(const unsigned char *p, size_t n, unsigned char byte);
/* Counts the bytes of [p, p+n) that differ from `byte`, with the first and last offsets. */
size_t mt_pattern_scan(const unsigned char *p, size_t n, unsigned char byte, size_t *first,
                       size_t *last);

/* ---- the quick guard check of every free ----------------------------------------------- */
/* True when the n guard bytes at p are all the pattern: two word compares for the default
 * 16 bytes, inline; other sizes mt_pattern_intact. */
static inline bool mt_guard_intact(const unsigned char *p, size_t n)
{
    if (MT_LIKELY(n == 16)) {
        uint64_t a, b;
        memcpy(&a, p, 8);
        memcpy(&b, p + 8, 8);
        return ((a ^ MT_GUARD_WORD) | (b ^ MT_GUARD_WORD)) == 0;
    }
    return mt_pattern_intact(p, n, MT_GUARD_BYTE);
}
/* The quick answer of mt_check_block for a block the caller knows is neither a registrar's
 * nor page-guarded, whose front guard is front bytes: true when both guards are intact.
 * When false, mt_check_block tells (the cookie rule, what changed, the report). */
static inline bool mt_guards_intact(const mt_block_t *b, size_t front)
{
    const unsigned char *user = (const unsigned char *)mt_block_addr(b);
    return mt_guard_intact(user - front, front) && mt_guard_intact(user + b->size, mt_guard_bytes);
}

#endif /* MT_GUARD_H */
