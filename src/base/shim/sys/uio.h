/* sys/uio.h - for the targets that lack it (Windows, bare metal: tools/platform.mk puts this
 * folder on their include path; win32/posix.h says why): reading this process's memory
 * without faulting (ReadProcessMemory on Windows, a copy on bare metal, where every address
 * of the memory map reads). */
#ifndef MT_SHIM_SYS_UIO_H
#define MT_SHIM_SYS_UIO_H

#include <stddef.h>
#include <sys/types.h>

struct iovec {
    void *iov_base;
    size_t iov_len;
};
#define process_vm_readv mt_shim_process_vm_readv
ssize_t process_vm_readv(int pid, const struct iovec *local, unsigned long nlocal,
                         const struct iovec *remote, unsigned long nremote, unsigned long flags);

#endif /* MT_SHIM_SYS_UIO_H */
