/* pthread.h - bare metal (see posix.h): one thread, so a mutex is a flag that says whether
 * it is held (trylock fails while it is; an interrupt handler must not allocate), once is
 * a flag, and a key is one value that nothing destroys (the thread never exits). */
#ifndef MT_BARE_PTHREAD_H
#define MT_BARE_PTHREAD_H

#include <signal.h>
#include <stddef.h>

/* The program's lock hooks (memtrack_set_lock_hooks, base/platform_bare.c): every lock of
 * the tracker and every call into it is inside one critical section of the program's,
 * entered by the outermost and left by it. */
void mt_bare_enter(void);
void mt_bare_leave(void);

typedef struct {
    int held;
} mt_bare_mutex_t;
#define pthread_mutex_t mt_bare_mutex_t
#undef PTHREAD_MUTEX_INITIALIZER
#define PTHREAD_MUTEX_INITIALIZER {0}
static inline int mt_bare_mutex_init(pthread_mutex_t *m, const void *attr)
{
    (void)attr;
    m->held = 0;
    return 0;
}
static inline int mt_bare_mutex_lock(pthread_mutex_t *m)
{
    mt_bare_enter();
    m->held = 1;
    return 0;
}
static inline int mt_bare_mutex_trylock(pthread_mutex_t *m)
{
    mt_bare_enter();
    if (m->held) {
        mt_bare_leave();
        return 16; /* EBUSY */
    }
    m->held = 1;
    return 0;
}
static inline int mt_bare_mutex_unlock(pthread_mutex_t *m)
{
    m->held = 0;
    mt_bare_leave();
    return 0;
}
#define pthread_mutex_init mt_bare_mutex_init
#define pthread_mutex_lock mt_bare_mutex_lock
#define pthread_mutex_trylock mt_bare_mutex_trylock
#define pthread_mutex_unlock mt_bare_mutex_unlock

typedef struct {
    int done;
} mt_bare_once_t;
#define pthread_once_t mt_bare_once_t
#undef PTHREAD_ONCE_INIT
#define PTHREAD_ONCE_INIT {0}
static inline int mt_bare_once(pthread_once_t *once, void (*fn)(void))
{
    if (!once->done) {
        once->done = 1;
        fn();
    }
    return 0;
}
#define pthread_once mt_bare_once

typedef void *mt_bare_key_t; /* where the value is kept */
#define pthread_key_t mt_bare_key_t
int mt_bare_key_create(pthread_key_t *key, void (*destructor)(void *));
static inline int mt_bare_setspecific(pthread_key_t key, const void *value)
{
    *(const void **)key = value;
    return 0;
}
static inline void *mt_bare_getspecific(pthread_key_t key)
{
    return *(void **)key;
}
#define pthread_key_create mt_bare_key_create
#define pthread_setspecific mt_bare_setspecific
#define pthread_getspecific mt_bare_getspecific

typedef int mt_bare_thread_t;
#define pthread_t mt_bare_thread_t
#define pthread_self() 0
/* The stack: from the linker script's symbols (base/platform_bare.c). */
typedef struct {
    void *base;
    size_t size;
} mt_bare_attr_t;
#define pthread_attr_t mt_bare_attr_t
int mt_bare_getattr_np(pthread_t thread, pthread_attr_t *attr);
static inline int mt_bare_attr_getstack(const pthread_attr_t *attr, void **base, size_t *size)
{
    *base = attr->base;
    *size = attr->size;
    return 0;
}
#define pthread_getattr_np mt_bare_getattr_np
#define pthread_attr_getstack mt_bare_attr_getstack
#define pthread_attr_destroy(attr) ((void)(attr))

static inline int mt_bare_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void))
{
    (void)prepare, (void)parent, (void)child;
    return 0;
}
#define pthread_atfork mt_bare_atfork
/* No signal is ever delivered: blocking is a no-op that succeeds. */
static inline int mt_bare_sigmask(int how, const sigset_t *set, sigset_t *old)
{
    (void)how, (void)set;
    if (old != NULL)
        *old = 0;
    return 0;
}
#undef pthread_sigmask
#define pthread_sigmask mt_bare_sigmask

#endif /* MT_BARE_PTHREAD_H */
