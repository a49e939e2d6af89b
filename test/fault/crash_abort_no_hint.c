/* A program that ends itself with SIGABRT (abort(), a failed assertion) while a register
 * holds memtrack's fill of new blocks (a value read from never-written memory, say): no
 * access faulted, so the crash report says nothing of a pointer followed. (Before, the
 * registers of every signal without an address, SIGABRT's included, were held against the
 * patterns as for x86-64's fault without one.) On x86-64 the signal is sent by tgkill's
 * system call itself, r12 holding the pattern, so that the signal's context holds it.
 * fault-exit: 134
 * fault-abort: no
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
#if defined(__x86_64__)
    long pid = getpid(), tid = syscall(SYS_gettid), ret;
    register uint64_t r12 __asm__("r12") = UINT64_C(0xcdcdcdcdcdcdcdcd);
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"((long)SYS_tgkill), "D"(pid), "S"(tid), "d"((long)SIGABRT), "r"(r12)
                     : "rcx", "r11", "memory");
    (void)ret;
#endif
    abort();
}
