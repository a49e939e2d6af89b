/* probe.c - reading memory that may not be there: through the kernel (process_vm_readv, or
 * a pipe where that is refused), so that a bad address makes a system call fail, never a
 * fault. For the checks of pointers the tracker never made (checks/foreign.c) and for the
 * careful stack walk (base/unwind.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/lock.h"
#include "base/probe.h"

static int probe_pipe[2] = {-1, -1};
static pid_t probe_pipe_pid;
static pthread_mutex_t probe_pipe_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool vm_readv_refused;

/* Through a pipe: write(2) copies from addr and fails with EFAULT if it cannot. */
static bool probe_with_pipe(uintptr_t addr, void *out, size_t n)
{
    bool ok = false;
    mt_mutex_lock(&probe_pipe_lock);
    if (probe_pipe[0] < 0 || probe_pipe_pid != getpid()) { /* a forked child: its own */
        if (probe_pipe[0] >= 0) {
            close(probe_pipe[0]);
            close(probe_pipe[1]);
        }
        if (pipe2(probe_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
            probe_pipe[0] = probe_pipe[1] = -1;
        probe_pipe_pid = getpid();
    }
    if (probe_pipe[0] >= 0 && write(probe_pipe[1], (const void *)addr, n) == (ssize_t)n)
        ok = read(probe_pipe[0], out, n) == (ssize_t)n;
    mt_mutex_unlock(&probe_pipe_lock);
    return ok;
}

bool mt_probe_read(uintptr_t addr, void *out, size_t n)
{
    int saved = errno;
    bool ok;
    if (addr + n < addr) {
        ok = false;
    } else if (!atomic_load_explicit(&vm_readv_refused, memory_order_relaxed)) {
        struct iovec local = {out, n}, remote = {(void *)addr, n};
        ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
        ok = got == (ssize_t)n;
        if (got < 0 && (errno == ENOSYS || errno == EPERM)) { /* seccomp, old kernel */
            atomic_store(&vm_readv_refused, true);
            ok = probe_with_pipe(addr, out, n);
        }
    } else {
        ok = probe_with_pipe(addr, out, n);
    }
    errno = saved;
    return ok;
}
