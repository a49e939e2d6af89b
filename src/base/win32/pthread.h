/* pthread.h - what the tracker uses of POSIX threads, over Win32 (Windows build only; see
 * posix.h): a mutex is a slim reader/writer lock (all zero when unlocked, so the static
 * initializer needs no call), once is InitOnceExecuteOnce, a key is a fiber-local slot
 * whose callback runs at thread exit as a key's destructor would. There is no fork:
 * pthread_atfork has nothing to do. The types hold Win32's without <windows.h>.
 */
#ifndef MT_WIN32_PTHREAD_H
#define MT_WIN32_PTHREAD_H

#include <signal.h>

/* Under names of our own: a program linked with a real pthreads library (winpthreads)
 * keeps its functions, and ours never meet them. */
#define pthread_mutex_init mt_win_pthread_mutex_init
#define pthread_mutex_lock mt_win_pthread_mutex_lock
#define pthread_mutex_trylock mt_win_pthread_mutex_trylock
#define pthread_mutex_unlock mt_win_pthread_mutex_unlock
#define pthread_once mt_win_pthread_once
#define pthread_key_create mt_win_pthread_key_create
#define pthread_setspecific mt_win_pthread_setspecific
#define pthread_getspecific mt_win_pthread_getspecific
#define pthread_self mt_win_pthread_self
#define pthread_getattr_np mt_win_pthread_getattr_np
#define pthread_attr_getstack mt_win_pthread_attr_getstack

typedef struct {
    void *srw; /* SRWLOCK */
} pthread_mutex_t;
#define PTHREAD_MUTEX_INITIALIZER                                                                  \
    {                                                                                              \
        0                                                                                          \
    }
int pthread_mutex_init(pthread_mutex_t *m, const void *attr);
int pthread_mutex_lock(pthread_mutex_t *m);
int pthread_mutex_trylock(pthread_mutex_t *m);
int pthread_mutex_unlock(pthread_mutex_t *m);

typedef struct {
    void *init; /* INIT_ONCE */
} pthread_once_t;
#define PTHREAD_ONCE_INIT                                                                          \
    {                                                                                              \
        0                                                                                          \
    }
int pthread_once(pthread_once_t *once, void (*fn)(void));

typedef unsigned long pthread_key_t; /* an FLS index */
int pthread_key_create(pthread_key_t *key, void (*destructor)(void *));
int pthread_setspecific(pthread_key_t key, const void *value);
void *pthread_getspecific(pthread_key_t key);

typedef unsigned long pthread_t; /* the thread id */
pthread_t pthread_self(void);
/* The calling thread's stack only (GetCurrentThreadStackLimits). */
typedef struct {
    void *base;
    size_t size;
} pthread_attr_t;
int pthread_getattr_np(pthread_t thread, pthread_attr_t *attr);
int pthread_attr_getstack(const pthread_attr_t *attr, void **base, size_t *size);
#define pthread_attr_destroy mt_win_pthread_attr_destroy
static inline int pthread_attr_destroy(pthread_attr_t *attr)
{
    (void)attr;
    return 0;
}

#define pthread_atfork mt_win_pthread_atfork
static inline int pthread_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void))
{
    (void)prepare, (void)parent, (void)child;
    return 0;
}
/* No signal reaches a thread through a mask: blocking is a no-op that succeeds. */
#undef pthread_sigmask
#ifndef SIG_BLOCK
#define SIG_BLOCK 0
#define SIG_SETMASK 2
#endif
static inline int mt_win_pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
    (void)how, (void)set;
    if (old != NULL)
        *old = 0;
    return 0;
}
#define pthread_sigmask mt_win_pthread_sigmask

#endif /* MT_WIN32_PTHREAD_H */
