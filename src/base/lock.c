/* lock.c - the tracker's lock: spin briefly, then yield (see base/lock.h); and on bare
 * metal the program's own critical section around the tracker (memtrack_set_lock_hooks).
 */
#define _GNU_SOURCE
#include <sched.h>

#include "base/lock.h"

MT_TLS mt_lock_count_t mt_lock_count;
void (*mt_print_pending)(void);

void mt_unlock_rest(void)
{
    if (mt_locks_held == 0 && mt_messages_pending != 0)
        mt_print_pending();
}

void mt_lock_wait(mt_lock_t *l)
{
    for (unsigned spins = 0;; spins++) {
        if (atomic_load_explicit(&l->taken, memory_order_relaxed) == 0 &&
            atomic_exchange_explicit(&l->taken, 1, memory_order_acquire) == 0)
            return;
        if (spins < 64)
            MT_CPU_RELAX();
        else
            sched_yield(); /* the holder may be waiting for this CPU */
    }
}

#ifdef MT_BARE_METAL
/* Bare metal has one thread, but interrupt handlers (and an RTOS's tasks) may allocate too,
 * and the tracker's "thread-local" state (the site cache, the busy flag, the statistics'
 * slot) is then shared by all of them. So the program may give the tracker a critical
 * section of its own: the tracker enters it when a call enters the tracker (MT_ENTRY in
 * every entry point, and every lock: base/lock.h, bare/pthread.h) and leaves it when the
 * outermost of those returns. Nesting is counted here, in one counter, so the program's
 * lock and unlock are called in pairs and never nested: masking interrupts with a saved
 * PRIMASK, or suspending the scheduler, serves as is. The counter is only right while the
 * section keeps every other context out, so it must be a critical section that does (not
 * a mutex, which would let another task in to find the counter nonzero). */
static struct {
    void (*lock)(void *ctx);
    void (*unlock)(void *ctx);
    void *ctx;
} hooks;
static unsigned section_depth;
/* The unlock that matches the lock taken, so hooks changed inside a section (by the
 * program's own code, between two of the tracker's calls) still leave it rightly. */
static void (*held_unlock)(void *ctx);
static void *held_ctx;

void mt_bare_enter(void)
{
    /* Another context may run between the test and the lock (an interrupt, before it is
     * masked): it enters and leaves whole, and finds the depth 0 again when it returns. */
    if (section_depth == 0 && hooks.lock != NULL) {
        void (*unlock)(void *) = hooks.unlock;
        void *ctx = hooks.ctx;
        hooks.lock(ctx);
        held_unlock = unlock;
        held_ctx = ctx;
    }
    section_depth++;
}

void mt_bare_leave(void)
{
    if (--section_depth == 0 && held_unlock != NULL) {
        void (*unlock)(void *) = held_unlock;
        held_unlock = NULL;
        unlock(held_ctx);
    }
}

MT_EXPORT int memtrack_set_lock_hooks(void (*lock)(void *ctx), void (*unlock)(void *ctx), void *ctx)
{
    if ((lock == NULL) != (unlock == NULL))
        return 0; /* both or neither */
    /* Plain stores, outside any section: a call already in the tracker keeps the pair it
     * entered with; the next one takes these. */
    hooks.lock = NULL;
    hooks.unlock = unlock;
    hooks.ctx = ctx;
    hooks.lock = lock;
    return lock != NULL;
}
#else
/* Threads have the tracker's own locks (and thread-local state): nothing to hook. */
MT_EXPORT int memtrack_set_lock_hooks(void (*lock)(void *ctx), void (*unlock)(void *ctx), void *ctx)
{
    (void)lock, (void)unlock, (void)ctx;
    return 0;
}
#endif
