/* sys/mman.h - for the targets that lack it (Windows, bare metal: tools/platform.mk puts this
 * folder on their include path; win32/posix.h says why): page guards reserve address space
 * with mmap and catch faults with a signal handler, which these targets do not give
 * (MT_HAVE_PAGE_GUARDS is 0): mmap fails, and blocks keep their byte guards. */
#ifndef MT_SHIM_SYS_MMAN_H
#define MT_SHIM_SYS_MMAN_H

#include <stddef.h>
#include <sys/types.h>

#define PROT_NONE 0
#define PROT_READ 1
#define PROT_WRITE 2
#define MAP_PRIVATE 2
#define MAP_ANONYMOUS 0x20
#define MAP_NORESERVE 0x4000
#define MAP_FAILED ((void *)-1)
#define MADV_DONTNEED 4
#define mmap(addr, len, prot, flags, fd, off) ((void)(addr), (void)(len), MAP_FAILED)
static inline int munmap(void *addr, size_t len)
{
    (void)addr, (void)len;
    return -1;
}
#define mprotect(addr, len, prot) ((void)(addr), (void)(len), (void)(prot), -1)
#define madvise(addr, len, advice) ((void)(addr), (void)(len), (void)(advice), -1)

#endif /* MT_SHIM_SYS_MMAN_H */
