/* platform_bare.c - the platform on bare metal (Cortex-M with newlib; MT_BARE_METAL): one
 * thread and no operating system. newlib's malloc is underneath ours; the tracker's own
 * memory is the static buffer the program defines with MEMTRACK_STATIC_MEMORY
 * (include/memtrack.h); output is write(2), which newlib hands to the program's _write.
 * The POSIX names the other sources use are base/bare/ and base/shim/ over these.
 */
#ifdef MT_BARE_METAL
#include <malloc.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "base/platform.h"

/* ---- the raw allocator: newlib's ---------------------------------------------------------- */

size_t mt_libc_usable_size(void *ptr)
{
    return ptr != NULL ? malloc_usable_size(ptr) : 0;
}

/* newlib's memalign blocks go back with free. */
void *mt_libc_aligned(size_t alignment, size_t size)
{
    return memalign(alignment < sizeof(void *) ? sizeof(void *) : alignment, size);
}

/* ---- the tracker's own memory: the program's static buffer ------------------------------- */

/* The program's buffer (MEMTRACK_STATIC_MEMORY). Taken from the bottom up; a range given
 * back is reused first fit (the report's scratch memory comes and goes with each report),
 * or taken back into the untouched rest when it ends there. Everything handed out is zero,
 * as a kernel's fresh pages are (memory.c relies on it). No MMU: nothing is protected.
 *
 * The last eighth of the buffer (at least 2 KiB, at most a quarter) is kept for the
 * report's working memory (a report of a few sites takes about 4 KiB, which the records
 * given back may add to):
 * when records and sites have filled the rest, blocks are handed out untracked
 * (api/alloc.c) and the report, which says so, still has room to be made. Requests the
 * buffer refused are counted for that report (mt_own_memory_read). */
extern unsigned char memtrack_static_memory[];
extern const size_t memtrack_static_memory_size;

#define FREED_MAX 16
#define BARE_ALIGN 16u
static size_t used, peak;
static struct {
    unsigned char *at;
    size_t size;
} freed[FREED_MAX];
static struct {
    size_t count, largest; /* requests refused, and the largest */
} refused;

static size_t report_reserve(void)
{
    size_t eighth = memtrack_static_memory_size / 8, quarter = memtrack_static_memory_size / 4;
    size_t least = 2048 < quarter ? 2048 : quarter;
    return eighth > least ? eighth : least;
}

static void *pages_alloc(size_t size, size_t keep)
{
    size = (size + BARE_ALIGN - 1) & ~(size_t)(BARE_ALIGN - 1);
    for (unsigned i = 0; i < FREED_MAX; i++) {
        if (freed[i].size >= size) {
            unsigned char *p = freed[i].at;
            freed[i].at += size;
            freed[i].size -= size;
            memset(p, 0, size);
            return p;
        }
    }
    unsigned char *base = memtrack_static_memory;
    uintptr_t start = ((uintptr_t)base + used + BARE_ALIGN - 1) & ~(uintptr_t)(BARE_ALIGN - 1);
    size_t offset = (size_t)(start - (uintptr_t)base);
    size_t room = memtrack_static_memory_size > keep ? memtrack_static_memory_size - keep : 0;
    if (offset > room || size > room - offset) {
        refused.count++;
        if (size > refused.largest)
            refused.largest = size;
        return NULL;
    }
    used = offset + size;
    if (used > peak)
        peak = used;
    return base + offset;
}

void *mt_pages_alloc(size_t size)
{
    return pages_alloc(size, report_reserve());
}

void *mt_pages_alloc_for_report(size_t size)
{
    return pages_alloc(size, 0);
}

void mt_own_memory_read(mt_own_memory_t *out)
{
    out->size = memtrack_static_memory_size;
    out->peak = peak;
    out->refused = refused.count;
    out->largest_refused = refused.largest;
}

MT_EXPORT size_t memtrack_static_memory_peak(void)
{
    return peak;
}

void mt_pages_free(void *ptr, size_t size)
{
    unsigned char *p = ptr;
    if (p == NULL)
        return;
    size = (size + BARE_ALIGN - 1) & ~(size_t)(BARE_ALIGN - 1);
    if (p + size == memtrack_static_memory + used) {
        used = (size_t)(p - memtrack_static_memory);
        memset(p, 0, size); /* handed out again as fresh */
        return;
    }
    for (unsigned i = 0; i < FREED_MAX; i++) {
        if (freed[i].size == 0) {
            freed[i].at = p;
            freed[i].size = size;
            return;
        }
    }
    /* (more ranges given back than kept: this one stays lost) */
}

void mt_pages_protect_none(void *ptr, size_t size)
{
    (void)ptr, (void)size;
}

/* A "page" is only the unit the tracker rounds its own mappings to: small, since no MMU
 * protects it. */
long sysconf(int name)
{
    if (name != _SC_PAGESIZE) {
        errno = EINVAL;
        return -1;
    }
    return 256;
}

/* ---- the program ------------------------------------------------------------------------- */

/* The name reports give the program; the program may set it (from argv[0]). */
MT_EXPORT const char *memtrack_program_name = "program";

const char *mt_program_name(void)
{
    return memtrack_program_name != NULL ? memtrack_program_name : "?";
}

/* The image, as the linker script names it (GNU ld's default names for ELF). */
extern const char mt_bare_image_start[] __asm__("__executable_start") __attribute__((weak));
extern const char mt_bare_image_end[] __asm__("end") __attribute__((weak));

bool mt_in_program_image(uintptr_t p)
{
    /* (A Cortex-M image may start at address 0: only its end says whether it is known.) */
    return mt_bare_image_end != NULL && p >= (uintptr_t)mt_bare_image_start &&
           p < (uintptr_t)mt_bare_image_end;
}

/* ---- POSIX names (base/bare, base/shim) ------------------------------------------------- */

/* No clock the tracker needs: time stands at 0 (the timeline's samples and page guards'
 * seed are all it is asked for). */
int clock_gettime(clockid_t clock, struct timespec *ts)
{
    (void)clock;
    ts->tv_sec = 0;
    ts->tv_nsec = 0;
    return 0;
}

int nanosleep(const struct timespec *request, struct timespec *remain)
{
    (void)request, (void)remain;
    return 0;
}

int sched_yield(void)
{
    return 0;
}

ssize_t readlink(const char *path, char *buf, size_t size)
{
    (void)path, (void)buf, (void)size;
    errno = ENOSYS;
    return -1;
}

/* One process: it is always first to a report file. */
int fcntl(int fd, int cmd, ...)
{
    (void)fd, (void)cmd;
    return 0;
}

int pipe2(int fds[2], int flags)
{
    (void)fds, (void)flags;
    errno = ENOSYS;
    return -1;
}

int ftruncate(int fd, off_t length)
{
    (void)fd, (void)length;
    errno = ENOSYS;
    return -1;
}

pid_t getpid(void)
{
    return 1;
}

/* Every address of a Cortex-M's memory map reads without an MMU to refuse it (an address
 * outside every region faults: the tracker asks only about addresses near blocks, the
 * stack and the image). */
ssize_t process_vm_readv(int pid, const struct iovec *local, unsigned long nlocal,
                         const struct iovec *remote, unsigned long nremote, unsigned long flags)
{
    (void)pid, (void)flags;
    if (nlocal != 1 || nremote != 1 || local->iov_len < remote->iov_len) {
        errno = EINVAL;
        return -1;
    }
    memcpy(local->iov_base, remote->iov_base, remote->iov_len);
    return (ssize_t)remote->iov_len;
}

/* The one thread's stack, from the linker script's symbols: the top and the lowest the
 * stack may reach, as ARM's CMSIS scripts name them. */
extern char mt_bare_stack_top[] __asm__("__StackTop") __attribute__((weak));
extern char mt_bare_stack_limit[] __asm__("__StackLimit") __attribute__((weak));

/* Without them (an ST or vendor script: _estack, or none), the stack is what the hardware
 * says: its top is the stack pointer the core starts with, the first word of the vector
 * table (which VTOR locates, ARMv7-M and v8-M), and the part in use runs from the current
 * stack pointer up to it, which is where the frames of every caller of the tracker are.
 * Nothing on ARMv6-M (no VTOR to find the table by). */
static bool hardware_stack(uintptr_t *low, uintptr_t *high)
{
#if defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__) || defined(__ARM_ARCH_8M_MAIN__) ||      \
    defined(__ARM_ARCH_8M_BASE__)
    const volatile uint32_t *vtor = (const volatile uint32_t *)(uintptr_t)0xE000ED08u;
    const volatile uint32_t *table = (const volatile uint32_t *)(uintptr_t)*vtor;
    uintptr_t top = (uintptr_t)table[0], sp = (uintptr_t)__builtin_frame_address(0);
    if (top <= sp || (top & 7) != 0) /* not a stack pointer this code runs below */
        return false;
    *low = sp;
    *high = top;
    return true;
#else
    (void)low, (void)high;
    return false;
#endif
}

int pthread_getattr_np(pthread_t thread, pthread_attr_t *attr)
{
    (void)thread;
    uintptr_t low, high;
    if (mt_bare_stack_top != NULL && mt_bare_stack_limit != NULL) {
        low = (uintptr_t)mt_bare_stack_limit;
        high = (uintptr_t)mt_bare_stack_top;
    } else if (!hardware_stack(&low, &high)) {
        return ENOSYS;
    }
    attr->base = (void *)low;
    attr->size = (size_t)(high - low);
    return 0;
}

/* A key is one pointer's room; there are few keys (one per module that keeps a per-thread
 * value), never deleted. */
int pthread_key_create(pthread_key_t *key, void (*destructor)(void *))
{
    static void *values[8];
    static unsigned next;
    (void)destructor; /* the one thread never exits */
    if (next == sizeof values / sizeof values[0])
        return EAGAIN;
    *key = &values[next++];
    return 0;
}

char *getcwd(char *buf, size_t size)
{
    (void)buf, (void)size;
    errno = ENOSYS;
    return NULL;
}

/* ---- 64-bit atomics ---------------------------------------------------------------------- */

/* ARMv7-M has no 64-bit exclusive access, and arm-none-eabi ships no libatomic: the calls
 * GCC makes for the tracker's 64-bit counters are here, each with interrupts masked (the
 * one thread may be interrupted; an interrupt handler must not allocate, but may read). */
static inline uint32_t mask_interrupts(void)
{
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
    return primask;
}

static inline void restore_interrupts(uint32_t primask)
{
    __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
}

uint64_t mt_bare_atomic_load_8(const volatile void *mem, int model) __asm__("__atomic_load_8");
uint64_t mt_bare_atomic_load_8(const volatile void *mem, int model)
{
    (void)model;
    uint32_t m = mask_interrupts();
    uint64_t v = *(const volatile uint64_t *)mem;
    restore_interrupts(m);
    return v;
}

void mt_bare_atomic_store_8(volatile void *mem, uint64_t v, int model) __asm__("__atomic_store_8");
void mt_bare_atomic_store_8(volatile void *mem, uint64_t v, int model)
{
    (void)model;
    uint32_t m = mask_interrupts();
    *(volatile uint64_t *)mem = v;
    restore_interrupts(m);
}

/* The read-modify-writes below, one way: the old value, with interrupts masked. */
typedef enum { RMW_ADD, RMW_OR, RMW_AND, RMW_SET } rmw_t;

static uint64_t read_modify_write_8(volatile void *mem, rmw_t op, uint64_t v)
{
    uint32_t m = mask_interrupts();
    uint64_t old = *(volatile uint64_t *)mem;
    *(volatile uint64_t *)mem = op == RMW_ADD   ? old + v
                                : op == RMW_OR  ? old | v
                                : op == RMW_AND ? old & v
                                                : v;
    restore_interrupts(m);
    return old;
}

uint64_t mt_bare_atomic_fetch_add_8(volatile void *mem, uint64_t v,
                                    int model) __asm__("__atomic_fetch_add_8");
uint64_t mt_bare_atomic_fetch_add_8(volatile void *mem, uint64_t v, int model)
{
    (void)model;
    return read_modify_write_8(mem, RMW_ADD, v);
}

uint64_t mt_bare_atomic_fetch_sub_8(volatile void *mem, uint64_t v,
                                    int model) __asm__("__atomic_fetch_sub_8");
uint64_t mt_bare_atomic_fetch_sub_8(volatile void *mem, uint64_t v, int model)
{
    (void)model;
    return read_modify_write_8(mem, RMW_ADD, (uint64_t)0 - v);
}

uint64_t mt_bare_atomic_fetch_or_8(volatile void *mem, uint64_t v,
                                   int model) __asm__("__atomic_fetch_or_8");
uint64_t mt_bare_atomic_fetch_or_8(volatile void *mem, uint64_t v, int model)
{
    (void)model;
    return read_modify_write_8(mem, RMW_OR, v);
}

uint64_t mt_bare_atomic_fetch_and_8(volatile void *mem, uint64_t v,
                                    int model) __asm__("__atomic_fetch_and_8");
uint64_t mt_bare_atomic_fetch_and_8(volatile void *mem, uint64_t v, int model)
{
    (void)model;
    return read_modify_write_8(mem, RMW_AND, v);
}

uint64_t mt_bare_atomic_exchange_8(volatile void *mem, uint64_t v,
                                   int model) __asm__("__atomic_exchange_8");
uint64_t mt_bare_atomic_exchange_8(volatile void *mem, uint64_t v, int model)
{
    (void)model;
    return read_modify_write_8(mem, RMW_SET, v);
}

bool mt_bare_atomic_compare_exchange_8(volatile void *mem, void *expected, uint64_t desired,
                                       bool weak, int success,
                                       int failure) __asm__("__atomic_compare_exchange_8");
bool mt_bare_atomic_compare_exchange_8(volatile void *mem, void *expected, uint64_t desired,
                                       bool weak, int success, int failure)
{
    (void)weak, (void)success, (void)failure;
    uint32_t m = mask_interrupts();
    uint64_t now = *(volatile uint64_t *)mem;
    bool same = now == *(uint64_t *)expected;
    if (same)
        *(volatile uint64_t *)mem = desired;
    else
        *(uint64_t *)expected = now;
    restore_interrupts(m);
    return same;
}

#endif /* MT_BARE_METAL */
