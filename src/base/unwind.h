/* unwind.h - the return addresses of the calls that led here (option stack, unwind).
 */
#ifndef MT_UNWIND_H
#define MT_UNWIND_H

#include "base/platform.h"

#define MT_STACK_MAX 64u /* the deepest stack option stack may ask for */

/* A stack's hash, one step a return address from MT_STACK_HASH_SEED, innermost first:
 * mt_unwind computes it as it walks, so that records/stack.c need not read the frames
 * again to find the stack's entry. Two instructions a frame; a multiply carries only
 * upwards, so whoever takes bits from it folds its high half down first. */
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

/* True when frame pointers can be walked on this target (otherwise option unwind=fast
 * gives no stacks, and unwind=exact is needed). */
bool mt_unwind_fast_supported(void);

#endif /* MT_UNWIND_H */
