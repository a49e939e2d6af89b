/* stack_regions.c - the memory a stack walk may read (base/unwind.c).
 *
 * A walk reads frame records between the stack pointer and the top of the stack it runs on,
 * each above the one before. That memory is the program's active frames, readable, unless
 * the program made part of it unreadable itself (a coroutine stack carved from a thread's
 * stack behind a guard page, mprotect'ed): then a frame register that code without frame
 * pointers left pointing there would make the walk fault. So the process's mprotect, munmap
 * and mmap (api/stacks.c) tell this file what became unreadable; the ranges that meet a
 * thread's stack are kept, and that thread's walks read no record in them (its inline walk
 * is turned off: its bounds, whose address it noted here, are cleared).
 *
 * A walk also runs on stacks other than its thread's: the alternate signal stack of a
 * handler (asked of the kernel, and the walk may go on into the thread's own stack, where
 * the interrupted code's frames are) and coroutine stacks the program switched to with
 * swapcontext or setcontext (their contexts name them), checked readable page by page, from
 * the top, when first seen. A stack nobody told of (a coroutine switched to by code of its
 * own) is not walked: such allocations are counted for the report.
 *
 * Writers (the process's mprotect..., swapcontext) take the regions' lock; a walk takes no
 * lock: it reads entries published with a sequence number, as a signal handler may walk.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "base/probe.h"
#include "base/stack_regions.h"
#include "base/unwind.h"

#define THREADS_MAX MT_SMALL(1024u, 1u)
#define HOLES_MAX 64u
#define COROUTINES_MAX MT_SMALL(256u, 1u)
#define PAGE 4096u
/* The most of a coroutine stack checked readable when first seen: walks go up from the
 * stack pointer, and a deeper one is not walked. */
#define COROUTINE_CHECKED (1024u * PAGE)

typedef struct thread_entry {
    _Atomic uintptr_t low, high; /* 0: free */
    uintptr_t *inline_low, *inline_last;
    _Atomic bool *careful;
} thread_entry_t;

typedef struct range {
    _Atomic unsigned seq; /* odd while written */
    _Atomic uintptr_t low, high;
} range_t;

static struct {
    pthread_mutex_t lock;
    _Atomic unsigned nholes;
    _Atomic bool holes_overflowed; /* more unreadable ranges than kept: read through the kernel */
    _Atomic unsigned ncoroutines;  /* entries used, up to COROUTINES_MAX (then replaced in turn) */
    _Atomic unsigned nthreads;     /* thread entries ever used: those past it are all free */
    _Atomic uint64_t unwalked;
    unsigned next_coroutine;
} regions = {.lock = PTHREAD_MUTEX_INITIALIZER};

static thread_entry_t threads[THREADS_MAX] MT_COLD;
static range_t holes[HOLES_MAX] MT_COLD;
static range_t coroutines[COROUTINES_MAX] MT_COLD;

static MT_TLS _Atomic bool thread_careful;
static pthread_key_t slot_key;
static pthread_once_t slot_key_once = PTHREAD_ONCE_INIT;

/* ---- a range table read without a lock --------------------------------------------------- */

static void range_set(range_t *r, uintptr_t low, uintptr_t high)
{
    unsigned seq = atomic_load_explicit(&r->seq, memory_order_relaxed);
    atomic_store_explicit(&r->seq, seq + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&r->low, low, memory_order_relaxed);
    atomic_store_explicit(&r->high, high, memory_order_relaxed);
    atomic_store_explicit(&r->seq, seq + 2, memory_order_release);
}

/* Copies an entry; false while it is being written (then it is skipped: a walk stays on
 * the side of reading less). */
static bool range_get(range_t *r, uintptr_t *low, uintptr_t *high)
{
    unsigned seq = atomic_load_explicit(&r->seq, memory_order_acquire);
    *low = atomic_load_explicit(&r->low, memory_order_relaxed);
    *high = atomic_load_explicit(&r->high, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    return (seq & 1) == 0 && atomic_load_explicit(&r->seq, memory_order_relaxed) == seq;
}

/* ---- threads ------------------------------------------------------------------------------ */

static void slot_release(void *slot)
{
    thread_entry_t *t = slot;
    atomic_store(&t->high, 0);
    atomic_store(&t->low, 0);
}

static void slot_key_create(void)
{
    (void)pthread_key_create(&slot_key, slot_release);
}

bool mt_regions_thread_start(uintptr_t low, uintptr_t high, uintptr_t *inline_low,
                             uintptr_t *inline_last)
{
    for (unsigned i = 0; i < THREADS_MAX; i++) {
        thread_entry_t *t = &threads[i];
        uintptr_t none = 0;
        if (atomic_load_explicit(&t->low, memory_order_relaxed) != 0 ||
            !atomic_compare_exchange_strong(&t->low, &none, low))
            continue;
        t->inline_low = inline_low;
        t->inline_last = inline_last;
        t->careful = &thread_careful;
        atomic_store(&t->high, high);
        unsigned used = atomic_load(&regions.nthreads);
        while (used < i + 1 && !atomic_compare_exchange_weak(&regions.nthreads, &used, i + 1))
            ;
        pthread_once(&slot_key_once, slot_key_create);
        (void)pthread_setspecific(slot_key, t);
        return true;
    }
    return false;
}

bool mt_regions_thread_careful(void)
{
    return atomic_load_explicit(&thread_careful, memory_order_relaxed);
}

/* ---- what the program made unreadable ----------------------------------------------------- */

static bool meets(uintptr_t a, uintptr_t b, uintptr_t low, uintptr_t high)
{
    return a < high && low < b;
}

void mt_regions_unreadable(uintptr_t addr, size_t len)
{
    uintptr_t a = addr & ~(uintptr_t)(PAGE - 1), b = addr + len;
    if (len == 0 || b < addr)
        b = UINTPTR_MAX;
    bool kept = false;
    pthread_mutex_lock(&regions.lock);
    unsigned nthreads = atomic_load(&regions.nthreads);
    for (unsigned i = 0; i < nthreads; i++) {
        thread_entry_t *t = &threads[i];
        uintptr_t high = atomic_load(&t->high), low = atomic_load(&t->low);
        if (high == 0 || !meets(a, b, low, high))
            continue;
        /* That thread's walks go the careful way from now on: its inline walk reads
         * these bounds, which no stack pointer is between now. */
        __atomic_store_n(t->inline_last, (uintptr_t)0, __ATOMIC_RELAXED);
        __atomic_store_n(t->inline_low, UINTPTR_MAX, __ATOMIC_RELAXED);
        atomic_store(t->careful, true);
        kept = true;
    }
    unsigned n = atomic_load(&regions.ncoroutines);
    for (unsigned i = 0; i < n; i++) {
        uintptr_t low, high;
        if (range_get(&coroutines[i], &low, &high) && meets(a, b, low, high)) {
            if (a <= low)
                range_set(&coroutines[i], 0, 0); /* its top is gone: forgotten */
            else
                kept = true;
        }
    }
    if (kept) {
        unsigned h = atomic_load(&regions.nholes);
        if (h < HOLES_MAX) {
            range_set(&holes[h], a, b);
            atomic_store(&regions.nholes, h + 1);
        } else {
            atomic_store(&regions.holes_overflowed, true);
        }
    }
    pthread_mutex_unlock(&regions.lock);
}

/* Both words of the record at `at` (the caller's record and the return address, which
 * are not adjacent on s390x: base/unwind.h) through the kernel. */
static bool probe_record(uintptr_t at, uintptr_t rec[2])
{
    return mt_probe_read(at, &rec[0], sizeof(uintptr_t)) &&
           mt_probe_read(at + MT_RECORD_RETURN_WORD * sizeof(uintptr_t), &rec[1],
                         sizeof(uintptr_t));
}

bool mt_regions_read_record(uintptr_t at, uintptr_t rec[2])
{
    if (MT_UNLIKELY(atomic_load_explicit(&regions.holes_overflowed, memory_order_relaxed)))
        return probe_record(at, rec);
    unsigned n = atomic_load_explicit(&regions.nholes, memory_order_acquire);
    for (unsigned i = 0; i < n; i++) {
        uintptr_t low, high;
        if (!range_get(&holes[i], &low, &high) || meets(at, at + MT_RECORD_BYTES, low, high))
            return probe_record(at, rec);
    }
    const uintptr_t *r = (const uintptr_t *)at;
    rec[0] = r[0];
    rec[1] = r[MT_RECORD_RETURN_WORD];
    return true;
}

/* ---- other stacks ------------------------------------------------------------------------- */

/* The highest part of [low, high) that is readable, checked page by page from the top (at
 * most COROUTINE_CHECKED); its low end, or high when not even the top page is. */
static uintptr_t readable_from(uintptr_t low, uintptr_t high)
{
    uintptr_t at = (high - 1) & ~(uintptr_t)(PAGE - 1);
    uintptr_t floor = high - low > COROUTINE_CHECKED ? high - COROUTINE_CHECKED : low;
    uintptr_t ok = high;
    for (;;) {
        unsigned char byte;
        uintptr_t probe = at < floor ? floor : at;
        if (!mt_probe_read(probe, &byte, 1))
            break;
        ok = probe;
        if (probe <= floor || at < PAGE)
            break;
        at -= PAGE;
    }
    return ok;
}

void mt_regions_switched_to(uintptr_t low, uintptr_t high)
{
    if (high <= low || high - low < 2 * sizeof(uintptr_t) || low == 0)
        return;
    unsigned n = atomic_load(&regions.ncoroutines);
    for (unsigned i = 0; i < n; i++) {
        uintptr_t l, h;
        if (range_get(&coroutines[i], &l, &h) && h == high && l >= low && l != 0)
            return; /* known (from its readable part up) */
    }
    uintptr_t from = readable_from(low, high);
    if (from >= high)
        return;
    pthread_mutex_lock(&regions.lock);
    unsigned i = atomic_load(&regions.ncoroutines);
    if (i < COROUTINES_MAX) {
        atomic_store(&regions.ncoroutines, i + 1);
    } else {
        i = regions.next_coroutine;
        regions.next_coroutine = (i + 1) % COROUTINES_MAX;
    }
    range_set(&coroutines[i], from, high);
    pthread_mutex_unlock(&regions.lock);
}

static bool region_of(uintptr_t sp, uintptr_t low, uintptr_t high, mt_stack_region_t *out)
{
    if (sp < low || high - low < MT_RECORD_BYTES || sp > high - MT_RECORD_BYTES)
        return false;
    out->low = low;
    out->last = (high - MT_RECORD_BYTES) & ~(uintptr_t)(sizeof(uintptr_t) - 1);
    return true;
}

bool mt_regions_other(uintptr_t sp, mt_stack_region_t *out, bool *then_own)
{
    *then_own = false;
#if defined(SS_ONSTACK) /* (not on bare metal, nor on Windows) */
    stack_t ss;
    if (sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_ONSTACK) &&
        region_of(sp, (uintptr_t)ss.ss_sp, (uintptr_t)ss.ss_sp + ss.ss_size, out)) {
        *then_own = true;
        return true;
    }
#endif
    unsigned n = atomic_load_explicit(&regions.ncoroutines, memory_order_acquire);
    for (unsigned i = 0; i < n; i++) {
        uintptr_t low, high;
        if (range_get(&coroutines[i], &low, &high) && low != 0 && region_of(sp, low, high, out))
            return true;
    }
    return false;
}

void mt_regions_count_unwalked(void)
{
    atomic_fetch_add_explicit(&regions.unwalked, 1, memory_order_relaxed);
}

uint64_t mt_regions_unwalked(void)
{
    return atomic_load_explicit(&regions.unwalked, memory_order_relaxed);
}
