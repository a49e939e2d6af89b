/* stacks.c - the process's mprotect, munmap, mmap, mremap, swapcontext and setcontext: what the
 * stack walk must know of the program's stacks (base/stack_regions.c), and the memory the
 * program maps for itself, roots of the leak scan (base/mapped.c).
 *
 * A walk reads frame records up the stack it runs on. The program may make part of a
 * thread's stack unreadable (a guard page inside it), and may run code on stacks of its own
 * (coroutines): these wrappers tell the walk so, then do what the C library does. Memory is
 * noted unreadable before the call that makes it so, so that no walk of another thread
 * reads it in between. Only the calls that reach these names are seen (not the C library's
 * own, nor raw system calls): those are the program's.
 *
 * glibc on x86-64 and arm64 only (MT_STACKS_INTERPOSED, base/platform.h): its mprotect,
 * munmap, mmap, swapcontext and setcontext are weak, so a program linked with libmemtrack.a
 * takes ours too; the C library's own are found with dlsym(RTLD_NEXT). The tracker's own
 * calls do not come here (base/os_memory.h).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "base/mapped.h"
#include "base/platform.h"
#include "base/stack_regions.h"

#ifdef MT_STACKS_INTERPOSED

/* The C library's function named name, found once (dlsym may allocate: the busy flag sends
 * that to the C library). */
static void *next_function(void *_Atomic *slot, const char *name)
{
    void *f = atomic_load_explicit(slot, memory_order_acquire);
    if (f == NULL) {
        mt_busy++;
        f = dlsym(RTLD_NEXT, name);
        mt_busy--;
        atomic_store_explicit(slot, f, memory_order_release);
    }
    return f;
}
#define NEXT(name)                                                                                 \
    static void *_Atomic next_##name;                                                              \
    name##_fn *real_##name = (name##_fn *)next_function(&next_##name, #name)

typedef int mprotect_fn(void *, size_t, int);
typedef int munmap_fn(void *, size_t);
typedef void *mmap_fn(void *, size_t, int, int, int, off_t);
typedef void *mremap_fn(void *, size_t, size_t, int, ...);
typedef int swapcontext_fn(ucontext_t *, const ucontext_t *);
typedef int setcontext_fn(const ucontext_t *);

MT_EXPORT int mprotect(void *addr, size_t len, int prot)
{
    NEXT(mprotect);
    if (real_mprotect == NULL) {
        errno = ENOSYS;
        return -1;
    }
    if (!(prot & PROT_READ))
        mt_regions_unreadable((uintptr_t)addr, len);
    return real_mprotect(addr, len, prot);
}

MT_EXPORT int munmap(void *addr, size_t len)
{
    NEXT(munmap);
    if (real_munmap == NULL) {
        errno = ENOSYS;
        return -1;
    }
    mt_regions_unreadable((uintptr_t)addr, len);
    int rc = real_munmap(addr, len);
    if (rc == 0)
        mt_mapped_remove((uintptr_t)addr, len);
    return rc;
}

MT_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t offset)
{
    NEXT(mmap);
    if (real_mmap == NULL) {
        errno = ENOSYS;
        return MAP_FAILED;
    }
    if ((flags & MAP_FIXED) && !(prot & PROT_READ)) /* over what was there */
        mt_regions_unreadable((uintptr_t)addr, len);
    void *at = real_mmap(addr, len, prot, flags, fd, offset);
    if (at != MAP_FAILED) {
        if ((flags & MAP_ANONYMOUS) && (prot & PROT_WRITE)) /* roots of the leak scan */
            mt_mapped_add((uintptr_t)at, len);
        else
            mt_mapped_remove((uintptr_t)at, len);
    }
    return at;
}
/* (the same function where off_t has 64 bits, as on every target that interposes these) */
MT_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t offset)
    __attribute__((alias("mmap")));

MT_EXPORT void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
    NEXT(mremap);
    void *new_at = NULL;
    if (flags & MREMAP_FIXED) {
        va_list ap;
        va_start(ap, flags);
        new_at = va_arg(ap, void *);
        va_end(ap);
    }
    if (real_mremap == NULL) {
        errno = ENOSYS;
        return MAP_FAILED;
    }
    mt_regions_unreadable((uintptr_t)old, old_len);
    void *at = real_mremap(old, old_len, new_len, flags, new_at);
    if (at != MAP_FAILED)
        mt_mapped_moved((uintptr_t)old, old_len, (uintptr_t)at, new_len);
    return at;
}

/* The stack a context runs on, when it names one (a context made by makecontext does). */
static void note_stack(const ucontext_t *ucp)
{
    if (ucp != NULL && ucp->uc_stack.ss_size != 0)
        mt_regions_switched_to((uintptr_t)ucp->uc_stack.ss_sp,
                               (uintptr_t)ucp->uc_stack.ss_sp + ucp->uc_stack.ss_size);
}

MT_EXPORT int swapcontext(ucontext_t *oucp, const ucontext_t *ucp)
{
    NEXT(swapcontext);
    if (real_swapcontext == NULL) {
        errno = ENOSYS;
        return -1;
    }
    note_stack(ucp);
    return real_swapcontext(oucp, ucp);
}

MT_EXPORT int setcontext(const ucontext_t *ucp)
{
    NEXT(setcontext);
    if (real_setcontext == NULL) {
        errno = ENOSYS;
        return -1;
    }
    note_stack(ucp);
    return real_setcontext(ucp);
}

#endif /* MT_STACKS_INTERPOSED */
