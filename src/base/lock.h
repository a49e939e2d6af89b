/* lock.h - the tracker's spin-then-yield lock and the per-thread count of locks held.
 */
#ifndef MT_LOCK_H
#define MT_LOCK_H

#include "base/platform.h"

/* Notes on locking: src/README.md lists every lock, what it protects and their order. */

/* The shards' lock: taking it is one atomic exchange and releasing it a plain store, where
 * a mutex costs an atomic operation each way (together a quarter of a tracked malloc+free
 * pair). Held for a few hundred instructions at most; a thread that finds it taken spins
 * briefly, then yields the CPU until it is free. Not recursive. */
typedef struct mt_lock {
    atomic_int taken;
} mt_lock_t;
#define MT_LOCK_INIT                                                                               \
    {                                                                                              \
        0                                                                                          \
    }
void mt_lock_wait(mt_lock_t *l);

/* How many mt_locks this thread holds. While it holds any, error messages are kept and
 * printed when it releases the last one (errors/error.c): printing may look up symbols,
 * which takes the dynamic loader's lock, and a thread inside dlopen holding that lock may
 * be waiting for one of ours. The error module counts the messages it keeps in
 * mt_messages_pending and sets mt_print_pending, which the last unlock calls.
 * The two counts share one word, so that an unlock tests both at once: it is zero after
 * the last unlock unless messages wait (one thread-local access, not two). */
typedef union mt_lock_count {
    struct { /* held in the word's low half: an unlock subtracts 1 from the word */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        int pending, held;
#else
        int held, pending;
#endif
    } n;
    uint64_t both;
} mt_lock_count_t;
extern MT_TLS mt_lock_count_t mt_lock_count;
#define mt_locks_held (mt_lock_count.n.held)
#define mt_messages_pending (mt_lock_count.n.pending)
extern void (*mt_print_pending)(void);
/* mt_unlock's rare end, out of line: prints the messages kept once no lock is held. */
void mt_unlock_rest(void);

static inline void mt_lock(mt_lock_t *l)
{
#ifdef MT_BARE_METAL
    mt_bare_enter(); /* the program's critical section first (memtrack_set_lock_hooks) */
#endif
    /* Counted before it is taken: a signal handler that runs between the two must find this
     * thread inside the tracker (mt_reentered), never a lock taken and not counted. */
    mt_locks_held++;
    if (MT_UNLIKELY(atomic_exchange_explicit(&l->taken, 1, memory_order_acquire) != 0))
        mt_lock_wait(l);
}
/* mt_lock without its wait, for a hot caller that keeps the wait out of line (so that it
 * saves no registers for it): takes l when it is free, else takes nothing and returns
 * false (the caller then calls mt_lock). On bare metal it is mt_lock. */
static inline bool mt_lock_unless_taken(mt_lock_t *l)
{
#ifdef MT_BARE_METAL
    mt_lock(l);
#else
    mt_locks_held++; /* before it is taken, as in mt_lock */
    if (MT_UNLIKELY(atomic_exchange_explicit(&l->taken, 1, memory_order_acquire) != 0)) {
        mt_locks_held--;
        return false;
    }
#endif
    return true;
}
static inline bool mt_trylock(mt_lock_t *l)
{
#ifdef MT_BARE_METAL
    mt_bare_enter();
#endif
    mt_locks_held++; /* before it is taken, as in mt_lock */
    bool taken = atomic_load_explicit(&l->taken, memory_order_relaxed) == 0 &&
                 atomic_exchange_explicit(&l->taken, 1, memory_order_acquire) == 0;
    mt_locks_held -= !taken;
#ifdef MT_BARE_METAL
    if (!taken)
        mt_bare_leave();
#endif
    return taken;
}
/* True while some thread holds l: what the _locked functions assert. */
static inline bool mt_lock_held(mt_lock_t *l)
{
    return atomic_load_explicit(&l->taken, memory_order_relaxed) != 0;
}
static inline void mt_unlock(mt_lock_t *l)
{
    MT_ASSERT(mt_locks_held > 0 && mt_lock_held(l));
    atomic_store_explicit(&l->taken, 0, memory_order_release);
    if (MT_UNLIKELY(--mt_lock_count.both != 0))
        mt_unlock_rest(); /* another lock held, or messages kept */
#ifdef MT_BARE_METAL
    mt_bare_leave();
#endif
}

/* True when this thread is inside the tracker already: running its code (mt_busy) or
 * holding one of its locks. A call that finds it so is nested (a signal handler that
 * allocates, interrupting the tracker on this thread) and must not take a lock, which would
 * wait for itself forever: it goes to the C library untracked. */
static inline bool mt_reentered(void)
{
    return (mt_busy | mt_locks_held) != 0;
}

/* The tracker's mutexes are taken with mt_busy raised, so that a call nested in a signal
 * handler while one is held goes untracked instead of waiting for it (mt_reentered). */
static inline void mt_mutex_lock(pthread_mutex_t *m)
{
    mt_busy++;
    pthread_mutex_lock(m);
}
/* 0 when taken, as pthread_mutex_trylock */
static inline int mt_mutex_trylock(pthread_mutex_t *m)
{
    mt_busy++;
    int rc = pthread_mutex_trylock(m);
    if (rc != 0)
        mt_busy--;
    return rc;
}
static inline void mt_mutex_unlock(pthread_mutex_t *m)
{
    pthread_mutex_unlock(m);
    mt_busy--;
}

#endif /* MT_LOCK_H */
