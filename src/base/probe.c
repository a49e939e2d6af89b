/* probe.c - reading memory that may not be there: through the kernel (process_vm_readv, or
 * a pipe where that is refused), so that a bad address makes a system call fail, never a
 * fault. For the checks of pointers the tracker never made (checks/foreign.c) and for the
 * careful stack walk (base/unwind.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/lock.h"
#include "base/probe.h"

static int probe_pipe[2] = {-1, -1};
static dev_t probe_pipe_dev; /* the pipe's identity: both its ends are one inode */
static ino_t probe_pipe_ino;
static pid_t probe_pipe_pid;
static pthread_mutex_t probe_pipe_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool vm_readv_refused;

/* True while fd is still an end of the pipe made here: the program may have closed it (a
 * daemon closes every descriptor it does not know) and opened a file of its own under the
 * same number, which must never be written to or read from. */
static bool still_the_pipe(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode) && st.st_dev == probe_pipe_dev &&
           st.st_ino == probe_pipe_ino;
}

/* Makes the pipe, or again when it is gone: a forked child makes its own (closing its copy
 * of the parent's), and one whose descriptors are no longer the pipe forgets them, without
 * closing what is now the program's. False when no pipe can be had. */
static bool pipe_ready_locked(void)
{
    bool same_process = probe_pipe_pid == getpid();
    if (probe_pipe[0] >= 0 && same_process && still_the_pipe(probe_pipe[0]) &&
        still_the_pipe(probe_pipe[1]))
        return true;
    if (probe_pipe[0] >= 0 && !same_process) {
        close(probe_pipe[0]);
        close(probe_pipe[1]);
    }
    struct stat st;
    probe_pipe_pid = getpid();
    if (pipe2(probe_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        probe_pipe[0] = probe_pipe[1] = -1;
        return false;
    }
    if (fstat(probe_pipe[0], &st) != 0) {
        close(probe_pipe[0]);
        close(probe_pipe[1]);
        probe_pipe[0] = probe_pipe[1] = -1;
        return false;
    }
    probe_pipe_dev = st.st_dev;
    probe_pipe_ino = st.st_ino;
    return true;
}

/* Through a pipe: write(2) copies from addr and fails with EFAULT if it cannot. */
static bool probe_with_pipe(uintptr_t addr, void *out, size_t n)
{
    bool ok = false;
    mt_mutex_lock(&probe_pipe_lock);
    if (pipe_ready_locked() && write(probe_pipe[1], (const void *)addr, n) == (ssize_t)n)
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
