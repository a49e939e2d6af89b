/* os_memory.h - the kernel's mmap, mprotect and munmap for the tracker's own memory (and
 * the files it reads).
 *
 * Where libmemtrack gives the process its own mmap, mprotect and munmap (api/stacks.c: what
 * the stack walk must know of the program's stacks), the tracker's own calls must not go
 * through them: they are not the program's, and a lower layer may not call up. There they
 * are system calls; elsewhere the C library's functions.
 */
#ifndef MT_OS_MEMORY_H
#define MT_OS_MEMORY_H

#include <sys/mman.h>

#include "base/platform.h"

#ifdef MT_STACKS_INTERPOSED
#include <sys/syscall.h>
#include <unistd.h>

static inline void *mt_os_map(void *addr, size_t len, int prot, int flags)
{
    return (void *)syscall(SYS_mmap, addr, len, prot, flags, -1, (off_t)0);
}

static inline int mt_os_protect(void *addr, size_t len, int prot)
{
    return (int)syscall(SYS_mprotect, addr, len, prot);
}

static inline int mt_os_unmap(void *addr, size_t len)
{
    return (int)syscall(SYS_munmap, addr, len);
}

/* A file's first len bytes, read-only (the program's own symbol table). */
static inline void *mt_os_map_file(size_t len, int fd)
{
    return (void *)syscall(SYS_mmap, NULL, len, PROT_READ, MAP_PRIVATE, fd, (off_t)0);
}
#else
static inline void *mt_os_map(void *addr, size_t len, int prot, int flags)
{
    return mmap(addr, len, prot, flags, -1, 0);
}

static inline int mt_os_protect(void *addr, size_t len, int prot)
{
    return mprotect(addr, len, prot);
}

static inline int mt_os_unmap(void *addr, size_t len)
{
    return munmap(addr, len);
}

static inline void *mt_os_map_file(size_t len, int fd)
{
    return mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
}
#endif

#endif /* MT_OS_MEMORY_H */
