/* unwind.c - the return addresses of the calls that led here.
 *
 * Two ways, by option unwind:
 * - fast (the default): walk the chain of frame pointers. Each frame record is two words,
 *   the caller's frame pointer and the return address (x86, x86-64 and arm64 lay them out
 *   alike), so a stack of depth 8 costs a few dozen loads. It needs code built with frame
 *   pointers (`memtrack cc` adds -fno-omit-frame-pointer); where a function has none, its
 *   caller is skipped or the walk ends early, and in code that uses the frame register for
 *   something else the walk may read stack words that are not return addresses (a stack
 *   new to the process ends before the first of them: records/stack.c, base/code_map.c).
 *   It never faults: every frame record
 *   it reads lies between the current stack pointer and the top of this thread's stack,
 *   and each is above the one before.
 * - exact: glibc's backtrace(), the DWARF unwinder of libgcc, right without frame pointers
 *   but ten to a hundred times slower. Its first call loads libgcc_s, which allocates: the
 *   busy flag sends those allocations straight to the C library.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#if defined(__GLIBC__)
#include <execinfo.h>
#define HAVE_BACKTRACE 1
extern void *__libc_stack_end; /* the main thread's stack pointer at start (glibc, ld.so) */
#endif

#include "base/options.h"
#include "base/unwind.h"

bool mt_unwind_fast_supported(void)
{
#ifdef MT_UNWIND_FRAME_RECORDS
    return true;
#else
    return false;
#endif
}

#ifdef MT_UNWIND_FRAME_RECORDS
MT_TLS mt_stack_bounds_t mt_stack_bounds;

static void find_stack_bounds(void)
{
    uintptr_t low = 0, high = 0;
    mt_busy++; /* pthread_getattr_np may allocate (the main thread's reads /proc/self/maps) */
#ifdef __GLIBC__
    if (getpid() == gettid()) {
        /* The main thread: everything below the stack pointer at start, down to the limit
         * the stack may grow to (an unlimited stack: assume a gigabyte). */
        struct rlimit rl;
        uintptr_t size = (uintptr_t)1 << 30;
        if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < size)
            size = (uintptr_t)rl.rlim_cur;
        high = (uintptr_t)__libc_stack_end;
        low = high > size ? high - size : 0;
    } else
#endif
    {
        pthread_attr_t attr;
        if (pthread_getattr_np(pthread_self(), &attr) == 0) {
            void *addr;
            size_t size;
            if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
                low = (uintptr_t)addr;
                high = low + size;
            }
            pthread_attr_destroy(&attr);
        }
    }
    mt_busy--;
    if (high > low && high - low >= 2 * sizeof(void *)) {
        mt_stack_bounds.low = low != 0 ? low : 1; /* 0 is "not known yet" (no stack is there) */
        mt_stack_bounds.last = (high - 2 * sizeof(void *)) & ~(uintptr_t)(sizeof(void *) - 1);
    } else { /* no stack to walk: no stack pointer is between these */
        mt_stack_bounds.low = UINTPTR_MAX;
        mt_stack_bounds.last = 0;
    }
}

/* Called once this thread's bounds are known (unwind_first). */
static unsigned walk_frames(void *frame, void **out, unsigned max, uint64_t *hash)
{
    /* Below this frame (mt_unwind's, where this is inlined) nothing belongs to the calls that
     * led here. */
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0), last = mt_stack_bounds.last;
    if (sp < mt_stack_bounds.low || sp > last) /* a signal's alternate stack, or no bounds */
        return 0;
    /* The first record is at or above sp (the walk checks the rest: base/unwind.h). */
    uintptr_t fp = (uintptr_t)frame;
    if (fp < sp)
        return 0;
    return mt_walk_records(fp, last, out, max, hash);
}
#endif

#ifdef HAVE_BACKTRACE
static MT_NOINLINE unsigned backtrace_frames(void *caller, void **out, unsigned max, uint64_t *hash)
{
    void *all[MT_WALK_MAX + 16];
    mt_busy++;
    int got = backtrace(all, (int)(sizeof all / sizeof all[0]));
    mt_busy--;
    /* backtrace's first frames are ours: the answer starts at the entry point's caller. */
    int start = 0;
    while (start < got && all[start] != caller)
        start++;
    if (start == got) /* not found (a tail call): keep all but this function's own frame */
        start = got > 1 ? 1 : got;
    unsigned n = 0;
    uint64_t h = MT_STACK_HASH_SEED;
    for (int i = start; i < got && n < max; i++) {
        out[n++] = all[i];
        h = mt_stack_hash_step(h, all[i]);
    }
    *hash = h;
    return n;
}
#endif

#ifdef MT_UNWIND_FRAME_RECORDS
/* A thread's first walk: finds its stack's bounds, then walks as every later one does. Out
 * of line, so that the walk itself calls nothing and saves no registers. */
static MT_NOINLINE unsigned unwind_first(void *frame, void **out, unsigned max, uint64_t *hash)
{
    find_stack_bounds();
    return walk_frames(frame, out, max, hash);
}
#endif

unsigned mt_unwind(void *frame, void *caller, void **out, unsigned max, uint64_t *hash)
{
    if (max > MT_WALK_MAX)
        max = MT_WALK_MAX;
    if (max == 0 || MT_UNLIKELY(mt_in_crash))
        return 0;
#ifdef HAVE_BACKTRACE
    if (MT_UNLIKELY(mt_opt.unwind[0] == 'e'))
        return backtrace_frames(caller, out, max, hash);
#endif
    (void)caller;
#ifdef MT_UNWIND_FRAME_RECORDS
    if (MT_UNLIKELY(mt_stack_bounds.low == 0)) /* not yet known (found, it is never 0) */
        return unwind_first(frame, out, max, hash);
    return walk_frames(frame, out, max, hash);
#else
    (void)frame;
    (void)out;
    (void)hash;
    return 0;
#endif
}
