/* stack_regions.h - the memory a stack walk may read: each thread's own stack, its signal
 * stack, the coroutine stacks the program switched to, less what the program made
 * unreadable in them.
 */
#ifndef MT_STACK_REGIONS_H
#define MT_STACK_REGIONS_H

#include "base/platform.h"

/* A stack a walk may read: a frame record may start from low up to last (aligned). */
typedef struct mt_stack_region {
    uintptr_t low, last;
} mt_stack_region_t;

/* The thread whose own stack is [low, high) (found at its first walk) notes it, and where
 * its inline walk reads its bounds (base/unwind.h): when the program makes part of that
 * stack unreadable, the bounds are cleared there, so that the thread's walks take the
 * careful way. False when it cannot be noted (too many threads): then the thread's walks
 * must always be careful. */
bool mt_regions_thread_start(uintptr_t low, uintptr_t high, uintptr_t *inline_low,
                             uintptr_t *inline_last);
/* True once part of this thread's own stack was made unreadable. */
bool mt_regions_thread_careful(void);

/* The program made [addr, addr + len) unreadable (mprotect without PROT_READ, munmap, a
 * fixed mmap over it): called by the process's mprotect, munmap and mmap (api/stacks.c). */
void mt_regions_unreadable(uintptr_t addr, size_t len);
/* The program switched to the stack [low, high) (swapcontext, setcontext). */
void mt_regions_switched_to(uintptr_t low, uintptr_t high);

/* The stack around sp when it is not the thread's own: its signal stack (then *then_own: a
 * walk may go on into the thread's own stack, where the interrupted code's frames are) or
 * a coroutine stack it switched to; false when sp is on a stack nobody told of. Not
 * async-signal-safe in a crash (it asks the kernel for the signal stack). */
bool mt_regions_other(uintptr_t sp, mt_stack_region_t *out, bool *then_own);

/* Reads the frame record at `at` into rec (the caller's record, then the return address:
 * base/unwind.h, MT_RECORD_RETURN_WORD), unless the program made them
 * unreadable (or, when more ranges were made unreadable than are kept, through the
 * kernel): false then. */
bool mt_regions_read_record(uintptr_t at, uintptr_t rec[2]);

/* Allocations made on a stack nobody told of (their sites have no callers), for the
 * report: counted by mt_regions_count_unwalked. */
void mt_regions_count_unwalked(void);
uint64_t mt_regions_unwalked(void);

#endif /* MT_STACK_REGIONS_H */
