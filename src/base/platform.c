/* platform.c - what libmemtrack needs from the system: the C library's allocator
 * underneath ours, thread numbers, pages from the kernel and the program's name.
 *
 * The C library's own entry points (__libc_malloc and friends, exported by glibc for
 * exactly this use) let libmemtrack provide malloc, free... for the whole process while
 * still handing the real work to glibc, without dlsym bootstrapping.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if !defined(_WIN32) && !defined(MT_BARE_METAL) /* platform_windows.c, platform_bare.c */
#include <dlfcn.h>
#include <fcntl.h>
#include <malloc.h>
#include <sys/mman.h>
#endif

#include "base/os_memory.h"
#include "base/platform.h"

MT_TLS unsigned mt_thread_number;
MT_TLS int mt_busy;
MT_TLS int mt_in_crash;
atomic_bool mt_abort_expected;

static atomic_uint next_thread_number = 1;

unsigned mt_thread_number_slow(void)
{
    mt_thread_number = atomic_fetch_add_explicit(&next_thread_number, 1, memory_order_relaxed);
    if (mt_thread_number == 0) /* wrapped after 4 billion threads: 0 means "unset" */
        mt_thread_number = atomic_fetch_add_explicit(&next_thread_number, 1, memory_order_relaxed);
    return mt_thread_number;
}

#if defined(_WIN32) || defined(MT_BARE_METAL)
/* The raw allocator, pages, the program's name and image: base/platform_windows.c and
 * base/platform_bare.c. */
#elif defined(MT_SANITIZER_ALLOCATOR)

size_t mt_libc_usable_size(void *ptr)
{
    return ptr != NULL ? __sanitizer_get_allocated_size(ptr) : 0;
}
#elif defined(MT_GLIBC_MALLOC)
/* glibc exports malloc_usable_size only under its public name, which we provide
 * ourselves; the C library's is found once with dlsym (see mt_init). */
static size_t (*libc_usable_size)(void *);

size_t mt_libc_usable_size(void *ptr)
{
    if (MT_UNLIKELY(libc_usable_size == NULL)) {
        int saved = errno;
        libc_usable_size = (size_t(*)(void *))dlsym(RTLD_NEXT, "malloc_usable_size");
        errno = saved;
        if (libc_usable_size == NULL)
            return 0;
    }
    return libc_usable_size(ptr);
}
#elif defined(MT_MUSL_MALLOC)
/* base/platform_musl.c */
#else
/* Another C library (musl without MT_MUSL): its own malloc_usable_size. */
size_t mt_libc_usable_size(void *ptr)
{
    return ptr != NULL ? malloc_usable_size(ptr) : 0;
}
#endif

#if !defined(MT_PROCESS_MALLOC) && !defined(_WIN32) && !defined(MT_BARE_METAL)
void *mt_libc_aligned(size_t alignment, size_t size)
{
    void *p = NULL;
    int saved = errno;
    if (alignment < sizeof(void *))
        alignment = sizeof(void *);
    if (posix_memalign(&p, alignment, size) != 0)
        p = NULL;
    errno = saved;
    return p;
}
#endif

#if !defined(_WIN32) && !defined(MT_BARE_METAL)
void *mt_pages_alloc(size_t size)
{
    void *p = mt_os_map(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS);
    return p == MAP_FAILED ? NULL : p;
}

void mt_pages_protect_none(void *ptr, size_t size)
{
    (void)mt_os_protect(ptr, size, PROT_NONE);
}

void mt_pages_free(void *ptr, size_t size)
{
    if (ptr != NULL)
        (void)mt_os_unmap(ptr, size);
}

size_t mt_map_limit(void)
{
    size_t limit = 0;
    int fd = open("/proc/sys/vm/max_map_count", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        char text[32];
        ssize_t n = read(fd, text, sizeof text - 1);
        for (ssize_t i = 0; i < n && text[i] >= '0' && text[i] <= '9'; i++)
            limit = limit * 10 + (size_t)(text[i] - '0');
        close(fd);
    }
    return limit != 0 ? limit : 65530; /* Linux's default */
}

/* The program's name as the C library saw argv[0]; never allocates. */
extern char *program_invocation_name;

const char *mt_program_name(void)
{
    return program_invocation_name != NULL ? program_invocation_name : "?";
}

/* The program's image, from its first byte to the end of its data and bss, as the linker
 * names them (weak: a linker that does not gives 0 and the test is false). */
extern const char mt_image_start[] __asm__("__executable_start") __attribute__((weak));
extern const char mt_image_end[] __asm__("end") __attribute__((weak));

bool mt_in_program_image(uintptr_t p)
{
    return mt_image_start != NULL && mt_image_end != NULL && p >= (uintptr_t)mt_image_start &&
           p < (uintptr_t)mt_image_end;
}

/* The end of the program's code (GNU ld's etext: after .text, before read-only data). */
extern const char mt_text_end[] __asm__("etext") __attribute__((weak));

bool mt_in_code_linked_after(uintptr_t pc)
{
    return mt_text_end != NULL && pc > (uintptr_t)&mt_code_end && pc < (uintptr_t)mt_text_end;
}
#else
size_t mt_map_limit(void)
{
    return SIZE_MAX; /* no page guards there */
}
#ifdef MT_BARE_METAL
bool mt_in_code_linked_after(uintptr_t pc)
{
    (void)pc;
    return false; /* no static C library after ours to tell apart */
}
#endif /* (Windows': platform_windows.c) */
#endif /* !_WIN32 && !MT_BARE_METAL (Windows: platform_windows.c) */

void mt_assert_failed(const char *what, const char *file, int line)
{
    char digits[16];
    size_t i = sizeof digits;
    unsigned v = line > 0 ? (unsigned)line : 0;
    do {
        digits[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0 && i > 0);
    const char *parts[] = {"memtrack: internal error (a bug in memtrack): ", what, " at ", file,
                           ":"};
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++)
        (void)!write(STDERR_FILENO, parts[k], strlen(parts[k]));
    (void)!write(STDERR_FILENO, digits + i, sizeof digits - i);
    (void)!write(STDERR_FILENO, "\n", 1);
    abort();
}
