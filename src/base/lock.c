/* lock.c - the tracker's lock: spin briefly, then yield (see base/lock.h). */
#define _GNU_SOURCE
#include <sched.h>

#include "base/lock.h"

MT_TLS int mt_locks_held;
MT_TLS int mt_messages_pending;
void (*mt_print_pending)(void);

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
