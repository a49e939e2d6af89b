/* sys/uio.h - Windows build only (see posix.h): reading this process's memory without
 * faulting, which ReadProcessMemory does for a process's own address space. */
#ifndef MT_WIN32_SYS_UIO_H
#define MT_WIN32_SYS_UIO_H

#include <stddef.h>
#include <sys/types.h>

struct iovec {
    void *iov_base;
    size_t iov_len;
};
#define process_vm_readv mt_win_process_vm_readv
ssize_t process_vm_readv(int pid, const struct iovec *local, unsigned long nlocal,
                         const struct iovec *remote, unsigned long nremote, unsigned long flags);

#endif /* MT_WIN32_SYS_UIO_H */
