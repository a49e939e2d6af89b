/* unwind.c - the return addresses of the calls that led here.
 *
 * Two ways, by option unwind:
 * - fast (the default): walk the chain of frame pointers. Each frame record is two words,
 *   the caller's frame pointer and the return address (x86, x86-64 and arm64 lay them out
 *   alike; s390x's back chain is a record too, its return address further on: unwind.h),
 *   so a stack of depth 8 costs a few dozen loads. It needs code built with frame
 *   pointers (`memtrack cc` adds -fno-omit-frame-pointer); where a function has none, its
 *   caller is skipped or the walk ends early, and in code that uses the frame register for
 *   something else the walk may read stack words that are not return addresses (a stack
 *   new to the process ends before the first of them: records/stack.c, base/code_map.c).
 *   It never faults: every frame record it reads lies between the current stack pointer and
 *   the top of the stack it runs on (this thread's, its signal stack, or a coroutine stack
 *   the program switched to: base/stack_regions.c), each above the one before, and none in
 *   memory the program made unreadable there.
 * - exact: glibc's backtrace(), the DWARF unwinder of libgcc, right without frame pointers
 *   but ten to a hundred times slower. Its first call loads libgcc_s, which allocates: the
 *   busy flag sends those allocations straight to the C library. A fault in it (unwind
 *   tables that are wrong) ends that walk instead of the program (backtrace_frames).
 * Windows has one way whatever the option says: its own unwinder over the unwind tables
 * every x86-64 PE image has (RtlVirtualUnwind, base/platform_windows.c), right with or
 * without frame pointers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#if defined(__GLIBC__)
#include <execinfo.h>
#define HAVE_BACKTRACE 1
extern void *__libc_stack_end; /* the main thread's stack pointer at start (glibc, ld.so) */
#endif

#include "base/options.h"
#include "base/stack_regions.h"
#include "base/unwind.h"

bool mt_unwind_fast_supported(void)
{
#ifdef MT_UNWIND_FRAME_RECORDS
    return true;
#else
    return false;
#endif
}

const char *mt_unwind_unavailable(void)
{
#if defined(MT_UNWIND_FRAME_RECORDS) || defined(_WIN32)
    return NULL;
#elif defined(MT_BARE_METAL)
    return "no unwinder works on Thumb code";
#elif defined(HAVE_BACKTRACE)
    return mt_opt.unwind[0] == 'e' ? NULL : "no frame walk for this processor: unwind=exact";
#else
    return "no frame walk for this processor";
#endif
}

#ifdef MT_UNWIND_FRAME_RECORDS
MT_TLS mt_stack_bounds_t mt_stack_bounds;

/* This thread's own stack as the careful walk reads it (mt_stack_bounds is the inline
 * walk's view, cleared when the walk must be careful: base/stack_regions.c). low 0: not
 * known yet. */
static MT_TLS struct {
    mt_stack_region_t region;
    bool always_careful; /* the thread could not be noted (too many): it never walks inline */
} own;

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
    if (high > low && high - low >= MT_RECORD_BYTES) {
        own.region.low = low != 0 ? low : 1; /* 0 is "not known yet" (no stack is there) */
        own.region.last = (high - MT_RECORD_BYTES) & ~(uintptr_t)(sizeof(void *) - 1);
        mt_stack_bounds.low = own.region.low;
        mt_stack_bounds.last = own.region.last;
        if (!mt_regions_thread_start(low, high, &mt_stack_bounds.low, &mt_stack_bounds.last))
            own.always_careful = true;
    } else { /* no stack to walk: no stack pointer is between these */
        own.region.low = UINTPTR_MAX;
        own.region.last = 0;
    }
    if (own.always_careful || own.region.last == 0) {
        mt_stack_bounds.low = UINTPTR_MAX;
        mt_stack_bounds.last = 0;
    }
    mt_busy--;
}

static bool within(uintptr_t p, const mt_stack_region_t *r)
{
    return p >= r->low && p <= r->last;
}

/* The walk of mt_walk_records, record by record through base/stack_regions.c, which reads
 * none the program made unreadable, starting on stack r (then_own: a signal stack, whose
 * handler's frame leads into the thread's own stack, where the walk may go on once). */
static unsigned walk_careful(uintptr_t fp, mt_stack_region_t r, bool then_own, void **out,
                             unsigned max, uint64_t *hash)
{
    uint64_t h = MT_STACK_HASH_SEED;
    unsigned n = 0;
    while (n < max && (fp & (sizeof(void *) - 1)) == 0) {
        if (!within(fp, &r)) {
            if (!then_own || !within(fp, &own.region))
                break;
            r = own.region; /* from the signal stack into the interrupted code's */
            then_own = false;
        }
        uintptr_t rec[2];
        if (!mt_regions_read_record(fp, rec) || rec[1] < 4096)
            break;
        out[n++] = (void *)rec[1];
        h = mt_stack_hash_step(h, (void *)rec[1]);
        if (within(rec[0], &r) && rec[0] <= fp)
            break; /* frames only go up a stack */
        fp = rec[0];
    }
    *hash = h;
    return n;
}

/* The walk from an entry point's frame, its thread's bounds known: inline on the thread's
 * own stack when nothing there was made unreadable, else careful; on a signal stack or a
 * coroutine stack it knows of, careful; on any other, none (counted for the report). */
static unsigned walk_frames(void *frame, void **out, unsigned max, uint64_t *hash)
{
    /* Below this frame (mt_unwind's) nothing belongs to the calls that led here, and the
     * first record is at or above it. */
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0), fp = (uintptr_t)frame;
    mt_stack_region_t r;
    bool then_own = false;
    if (within(sp, &own.region)) {
        r = own.region;
        if (!own.always_careful && !mt_regions_thread_careful())
            return fp >= sp ? mt_walk_records(fp, r.last, out, max, hash) : 0;
    } else if (!mt_regions_other(sp, &r, &then_own)) {
        mt_regions_count_unwalked();
        return 0;
    }
    return fp >= sp ? walk_careful(fp, r, then_own, out, max, hash) : 0;
}
#endif

#ifdef HAVE_BACKTRACE
/* An unwinder's whole answer, all[0..got), whose first frames are ours: the stack starts
 * at the entry point's caller, its return address `caller`. */
#define MT_WALK_STEPS (MT_WALK_MAX + 16)
static unsigned from_caller(void *const *all, unsigned got, void *caller, void **out, unsigned max,
                            uint64_t *hash)
{
    unsigned start = 0;
    while (start < got && all[start] != caller)
        start++;
    if (start == got) /* not found (a tail call): keep all but this function's own frame */
        start = got > 1 ? 1 : got;
    unsigned n = 0;
    uint64_t h = MT_STACK_HASH_SEED;
    for (unsigned i = start; i < got && n < max; i++) {
        out[n++] = all[i];
        h = mt_stack_hash_step(h, all[i]);
    }
    *hash = h;
    return n;
}
#endif

#ifdef HAVE_BACKTRACE
/* ---- the exact unwinder, kept from faulting ------------------------------------------------
 *
 * libgcc's unwinder believes the unwind tables: a table that is wrong (hand-written assembly
 * with bad CFI) sends it to read memory that is not there. While an exact walk runs, a
 * handler of ours takes SIGSEGV and SIGBUS: a fault in a thread that is walking ends its walk
 * (siglongjmp back, the stack then empty); any other is handed to the handler that was there
 * before, as if ours had not been. The handler is put in place by the first walker and the
 * one that was there put back by the last (unless the program set one of its own
 * meanwhile, which then stays). A walk that cannot take the walkers' lock at once (a signal
 * handler that interrupted another thread's setting up... or this thread's) takes no stack. */

static MT_TLS sigjmp_buf *exact_escape;
static struct sigaction exact_saved[2]; /* SIGSEGV's and SIGBUS's before ours */
static unsigned exact_walkers;
static atomic_flag exact_lock = ATOMIC_FLAG_INIT;

static void exact_fault(int sig, siginfo_t *info, void *context)
{
    sigjmp_buf *escape = exact_escape;
    if (escape != NULL) {
        exact_escape = NULL;
        siglongjmp(*escape, 1);
    }
    const struct sigaction *before = &exact_saved[sig == SIGBUS];
    if ((before->sa_flags & SA_SIGINFO) && before->sa_sigaction != NULL) {
        before->sa_sigaction(sig, info, context);
    } else if (before->sa_handler == SIG_DFL || before->sa_handler == SIG_IGN) {
        signal(sig, SIG_DFL); /* the fault happens again, with the default action */
    } else {
        before->sa_handler(sig);
    }
}

/* Takes the walkers' lock without waiting: false when another walk holds it. */
static bool exact_lock_try(void)
{
    for (int spins = 0; spins < 1000; spins++) {
        if (!atomic_flag_test_and_set_explicit(&exact_lock, memory_order_acquire))
            return true;
        MT_CPU_RELAX();
    }
    return false;
}

static bool exact_enter(void)
{
    if (!exact_lock_try())
        return false;
    if (exact_walkers++ == 0) {
        struct sigaction ours;
        memset(&ours, 0, sizeof ours);
        ours.sa_sigaction = exact_fault;
        ours.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
        sigemptyset(&ours.sa_mask);
        (void)sigaction(SIGSEGV, &ours, &exact_saved[0]);
        (void)sigaction(SIGBUS, &ours, &exact_saved[1]);
    }
    atomic_flag_clear_explicit(&exact_lock, memory_order_release);
    return true;
}

static void exact_leave(void)
{
    while (!exact_lock_try())
        ;
    if (--exact_walkers == 0) {
        static const int sigs[2] = {SIGSEGV, SIGBUS};
        for (int i = 0; i < 2; i++) {
            /* The one that was there goes back, unless the program set its own meanwhile:
             * then that one does (one call in the common case). */
            struct sigaction now;
            if (sigaction(sigs[i], &exact_saved[i], &now) == 0 &&
                !((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == exact_fault))
                (void)sigaction(sigs[i], &now, NULL);
        }
    }
    atomic_flag_clear_explicit(&exact_lock, memory_order_release);
}

static MT_NOINLINE unsigned backtrace_frames(void *caller, void **out, unsigned max, uint64_t *hash)
{
    void *all[MT_WALK_STEPS];
    volatile int got = 0;
    sigjmp_buf escape;
    int saved = errno;
    if (!exact_enter())
        return 0;
    mt_busy++;
    if (sigsetjmp(escape, 1) == 0) {
        exact_escape = &escape;
        got = backtrace(all, (int)(sizeof all / sizeof all[0]));
    } else {
        got = 0; /* the unwind tables led to memory that is not there */
    }
    exact_escape = NULL;
    mt_busy--;
    exact_leave();
    errno = saved;
    return from_caller(all, (unsigned)got, caller, out, max, hash);
}
#endif

#ifdef _WIN32
static unsigned captured_frames(void *frame, void *caller, void **out, unsigned max, uint64_t *hash)
{
    unsigned n = mt_platform_capture_stack(frame, caller, out, max);
    uint64_t h = MT_STACK_HASH_SEED;
    for (unsigned i = 0; i < n; i++)
        h = mt_stack_hash_step(h, out[i]);
    *hash = h;
    return n;
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
#ifdef _WIN32
    return captured_frames(frame, caller, out, max, hash);
#endif
    (void)caller;
#ifdef MT_UNWIND_FRAME_RECORDS
    if (MT_UNLIKELY(own.region.low == 0)) /* not yet known (found, it is never 0) */
        find_stack_bounds();
    return walk_frames(frame, out, max, hash);
#else
    (void)frame;
    (void)out;
    (void)hash;
    return 0;
#endif
}
