/* unwind.h - the return addresses of the calls that led here (option stack, unwind).
 */
#ifndef MT_UNWIND_H
#define MT_UNWIND_H

#include "base/platform.h"

#define MT_STACK_MAX 64u /* the deepest stack option stack may ask for */
/* Return addresses a walk takes beyond option stack: room for the frames of allocation
 * wrappers, which the reports see through (records/wrapper.c), so that option stack counts
 * the program's own frames after them. */
#define MT_WALK_ROOM 8u
#define MT_WALK_MAX (MT_STACK_MAX + MT_WALK_ROOM)

/* A stack's hash, one step a return address from MT_STACK_HASH_SEED, innermost first:
 * mt_unwind computes it as it walks, so that records/stack.c need not read the frames
 * again to find the stack's entry. Two instructions a frame; a multiply carries only
 * upwards, so whoever takes bits from it takes the high ones. */
#define MT_STACK_HASH_SEED UINT64_C(0xcbf29ce484222325)
static inline uint64_t mt_stack_hash_step(uint64_t h, void *pc)
{
    return (h + (uint64_t)(uintptr_t)pc) * UINT64_C(0x9E3779B97F4A7C15);
}

/* Fills out with up to max return addresses, innermost first, starting at the caller of
 * the function whose frame is `frame` (an entry point's __builtin_frame_address(0)):
 * out[0] is that entry point's return address. `caller` is the same return address as
 * the entry point sees it (__builtin_return_address(0)), used to find the start of the
 * exact unwinder's answer. Returns how many were found, 0 when stacks are off or this
 * thread's stack cannot be walked safely, and when some were, their hash (above) in *hash.
 * Takes no lock and never allocates through the tracker: call it before taking any
 * tracker lock. */
unsigned mt_unwind(void *frame, void *caller, void **out, unsigned max, uint64_t *hash);

/* Windows takes its stacks from the unwind tables instead (mt_platform_capture_stack). */
#if (defined(__x86_64__) || defined(__i386__) || defined(__aarch64__) || defined(__s390x__)) &&    \
    !defined(_WIN32)
#define MT_UNWIND_FRAME_RECORDS 1 /* frame records can be walked here (base/unwind.c) */
/* This thread's stack, found at its first walk (base/unwind.c): a frame record may start
 * from low up to last (the top less a record, aligned). Before that both are 0; when the
 * stack cannot be walked, low is the highest address and last 0. Either way no stack
 * pointer is between them, so one test (mt_unwind_walkable) covers all three. One
 * variable, so that the hot path finds both with one lookup of its thread-local offset. */
typedef struct mt_stack_bounds {
    uintptr_t low, last;
} mt_stack_bounds_t;
extern MT_TLS mt_stack_bounds_t mt_stack_bounds;
#endif

/* Where a frame record keeps the return address, in words from its start (its first word is
 * always the caller's record). x86, x86-64 and arm64: the word after. s390x, built with
 * -mbackchain (`memtrack cc` adds it there): the frame's start holds the back chain and its
 * register save area the return address (%r14, word 14), so a record is 15 words. */
#if defined(__s390x__)
#define MT_RECORD_RETURN_WORD 14
#else
#define MT_RECORD_RETURN_WORD 1
#endif
#define MT_RECORD_BYTES ((MT_RECORD_RETURN_WORD + 1) * sizeof(uintptr_t))

/* The walk itself (see mt_unwind): frame records from fp, which the caller has checked lies
 * between a live word of this stack and `last`, the highest address a record may start at
 * (aligned). Within the loop each record is above the one before, so only the top and the
 * alignment are left to check. Inline, so that the hot path (records/stack.c) takes a stack
 * with no call and keeps the hash in a register. Returns the end of the return addresses
 * written to out[0..max). */
#define MT_WORD_SHIFT (sizeof(void *) == 8 ? 3 : 2)
static inline uintptr_t mt_word_rotated(uintptr_t p) /* p / the word size when aligned */
{
    return p >> MT_WORD_SHIFT | p << (sizeof p * 8 - MT_WORD_SHIFT);
}
static inline void **mt_walk_records_end(uintptr_t fp, uintptr_t last, void **out, unsigned max,
                                         uint64_t *hash)
{
    void **const end = out + max;
    uint64_t h = MT_STACK_HASH_SEED;
    /* Records counted in words: a misaligned address, rotated, has its low bits on top,
     * above any aligned one, so one test takes both the top and the alignment. */
    uintptr_t at = mt_word_rotated(fp), top = last >> MT_WORD_SHIFT;
    while (out < end && at <= top) {
        void *const *record = (void *const *)(at << MT_WORD_SHIFT);
        uintptr_t ret = (uintptr_t)record[MT_RECORD_RETURN_WORD],
                  next = mt_word_rotated((uintptr_t)record[0]);
        if (ret < 4096) /* the outermost frame (a zero return address), or no record */
            break;
        *out++ = (void *)ret;
        h = mt_stack_hash_step(h, (void *)ret);
        /* Frames only go up the stack: anything else is not a record (a misaligned next
         * passes here, and ends the walk at the top's test). */
        if (next <= at)
            break;
        at = next;
    }
    *hash = h;
    return out;
}

static inline unsigned mt_walk_records(uintptr_t fp, uintptr_t last, void **out, unsigned max,
                                       uint64_t *hash)
{
    return (unsigned)(mt_walk_records_end(fp, last, out, max, hash) - out);
}

/* For a caller whose `out` is its own local array (so on the stack now in use), whose max
 * is at most MT_WALK_MAX, and which has found mt_busy 0 (so it is not the crash report,
 * which runs busy: api/crash.c): true when mt_unwind would walk the frame records from `frame`
 * (this thread's bounds known, `out` within them, unwind=fast), with in *last the highest
 * address a record may start at; the caller then walks inline (mt_walk_records), with the
 * same answer as mt_unwind's. False: the first walk, a signal's alternate stack,
 * unwind=exact, or no frame records on this target: call mt_unwind. */
static inline bool mt_unwind_walkable(void *frame, void *const *out, bool exact, uintptr_t *last)
{
#ifdef MT_UNWIND_FRAME_RECORDS
    /* out is below every frame of the calls that led here, as mt_unwind's own frame is. Up
     * to last rather than the top: above it the walk would take no record either. */
    uintptr_t sp = (uintptr_t)out;
    *last = mt_stack_bounds.last;
    return sp <= *last && sp >= mt_stack_bounds.low && (uintptr_t)frame >= sp && !exact;
#else
    (void)frame;
    (void)out;
    (void)exact;
    *last = 0;
    return false;
#endif
}

/* True when frame pointers can be walked on this target (otherwise option unwind=fast
 * gives no stacks, and unwind=exact is needed). */
bool mt_unwind_fast_supported(void);

/* Why this build takes no call stacks at all (its reports say so, once), or NULL when it
 * takes them: a target no frame walk is compiled for (Cortex-M's Thumb code). */
const char *mt_unwind_unavailable(void);

#endif /* MT_UNWIND_H */
