/* platform.h - what the tracker needs from the system and the compiler: the C library's
 * allocator underneath ours, thread numbers, per-thread flags, pages from the kernel and
 * the program's name. Every other file reaches the system through here.
 */
#ifndef MT_PLATFORM_H
#define MT_PLATFORM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The library sees the whole API (not the drop-in macros, not the no-op versions). */
#define MEMTRACK_INTERNAL
#include "memtrack.h"

#define MT_LIKELY(x) __builtin_expect(!!(x), 1)
#define MT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define MT_NOINLINE __attribute__((noinline))
#ifdef MT_BARE_METAL /* one thread, and no thread pointer to reach TLS with */
#define MT_TLS
#else
#define MT_TLS __thread __attribute__((tls_model("initial-exec")))
#endif
#define MT_EXPORT __attribute__((visibility("default")))
/* Large arrays a short process never touches (the error log, the tables of site chunks, the
 * timeline's samples, option texts): placed after .bss, so that the small state every
 * process touches lies on a few neighbouring pages rather than between them (each page of
 * the library's data a process touches is a page fault at start-up, tools/bench/README.md
 * "Start-up"). GCC puts .lbss, the x86-64 psABI's section for large data, after .bss;
 * elsewhere (and with clang, which would store it in the file) they stay where they are, and
 * under AddressSanitizer too, which gives no redzones to globals in a named section. */
#if defined(__x86_64__) && defined(__ELF__) && defined(__GNUC__) && !defined(__clang__) &&         \
    !defined(__SANITIZE_ADDRESS__)
#define MT_COLD __attribute__((section(".lbss")))
#else
#define MT_COLD
#endif

/* For the tracker's own data that every call reads, on its declaration: code built with
 * -fPIC then reads it at its address instead of loading that from the GOT first (one
 * instruction less each time). The definitions are hidden already (-fvisibility=hidden);
 * this tells the files that only declare them. ELF only: PE has no such visibility. */
#ifdef __ELF__
#define MT_HIDDEN __attribute__((visibility("hidden")))
#else
#define MT_HIDDEN
#endif

/* A type through which any object may be read (the table's view of a record). */
#define MT_MAY_ALIAS __attribute__((__may_alias__))

/* A hint to the CPU that this thread is spinning on a lock (base/lock.c). */
#if defined(__x86_64__) || defined(__i386__)
#define MT_CPU_RELAX() __builtin_ia32_pause()
#elif defined(__aarch64__) || defined(__arm__)
#define MT_CPU_RELAX() __asm__ __volatile__("yield" ::: "memory")
#else
#define MT_CPU_RELAX() __asm__ __volatile__("" ::: "memory")
#endif

/* Internal invariants, checked in debug and sanitizer builds (-DMT_DEBUG: make sanitize,
 * make DEBUG=1) and compiled out otherwise. A broken one is a bug in memtrack, not in the
 * program: it says which and where, and aborts. */
#ifdef MT_DEBUG
#define MT_ASSERT(cond) ((cond) ? (void)0 : mt_assert_failed(#cond, __FILE__, __LINE__))
#else
#define MT_ASSERT(cond) ((void)0)
#endif
__attribute__((noreturn)) void mt_assert_failed(const char *what, const char *file, int line);

/* Page guards (checks/page_guard.c) need a handler for the fault at a guard page, a POSIX
 * signal; Windows gives none here (base/win32/posix.h), so they are off there and no
 * message suggests them. */
#if defined(_WIN32) || defined(MT_BARE_METAL)
#define MT_HAVE_PAGE_GUARDS 0
#else
#define MT_HAVE_PAGE_GUARDS 1
#endif

/* The tracker's own memory comes in chunks of this many bytes (base/memory.c): address
 * space, touched as used, where there is an MMU; a program's static buffer on bare metal,
 * where a chunk is all used soon and a board may have 16 KiB to give: small ones. */
#ifdef MT_BARE_METAL
#define MT_OWN_CHUNK_BYTES 1024u
#else
#define MT_OWN_CHUNK_BYTES (1024u * 1024u)
#endif

/* MT_SMALL(hosted, bare): the size of one of the tracker's tables. On bare metal every
 * table is sized for a microcontroller's RAM (tens of KiB for the tracker, records
 * included: README "Platforms"), since its own memory and its .bss are the board's RAM;
 * what a smaller table changes is said where it is used. */
#ifdef MT_BARE_METAL
#define MT_SMALL(hosted, bare) (bare)
#else
#define MT_SMALL(hosted, bare) (hosted)
#endif

/* The alignment malloc gives on this platform; user pointers keep it. */
#define MT_MIN_ALIGN 16u
/* The alignment every block of the C library has, which a pointer it made must have:
 * newlib on 32-bit ARM gives 8. */
#ifdef MT_BARE_METAL
#define MT_LIBC_ALIGN 8u
#else
#define MT_LIBC_ALIGN MT_MIN_ALIGN
#endif

/* Built with AddressSanitizer or ThreadSanitizer (make sanitize), the sanitizer's allocator
 * is underneath instead and libmemtrack does not provide malloc, free... for the process
 * (the sanitizer does): the sanitizer then sees every block the tracker makes, checks the
 * tracker's own accesses and knows when memory is reused. Code built without the header
 * must not free tracked blocks in that build (README, "Sanitizers"). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MT_SANITIZER_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define MT_SANITIZER_ALLOCATOR 1
#endif
#endif

/* MT_GLIBC_MALLOC: glibc's allocator is underneath, reached through its own entry points
 * (__libc_malloc...), so libmemtrack provides malloc, free... for the whole process
 * (api/override.c) and knows glibc's chunk layout (checks/foreign.c, checks/guard.c).
 * Elsewhere (musl: MT_MUSL_MALLOC below; Windows' CRT, newlib, the sanitizers) the C library's
 * public malloc is underneath and the process keeps its own: blocks cross to untracked code only
 * through tracked code's free and realloc (README, "Platforms"). */
#if defined(__GLIBC__) && !defined(MT_SANITIZER_ALLOCATOR)
#define MT_GLIBC_MALLOC 1
#endif

/* MT_STACKS_INTERPOSED: libmemtrack gives the process its mmap, mprotect, munmap,
 * swapcontext and setcontext (api/stacks.c), on glibc where those system calls take their
 * arguments as the functions do (x86-64, arm64); the tracker's own calls are system calls
 * (base/os_memory.h). */
#if defined(MT_GLIBC_MALLOC) && (defined(__x86_64__) || defined(__aarch64__))
#define MT_STACKS_INTERPOSED 1
#endif

/* MT_MUSL_MALLOC (make PLATFORM=musl sets MT_MUSL): musl 1.2.1 or later lets a program
 * define malloc, free... itself, statically linked too, so libmemtrack provides them as it
 * does over glibc (api/override.c). musl has no public entry point under another name:
 * the allocator underneath is musl's internal one in a static link, its public one found
 * with dlsym in a dynamic link, and every block it lends carries a small header of ours
 * (base/platform_musl.c), by which a pointer the allocator never made is told exactly. */
#if defined(MT_MUSL) && !defined(__GLIBC__) && !defined(MT_SANITIZER_ALLOCATOR)
#define MT_MUSL_MALLOC 1
#endif

/* The process's malloc, free... are libmemtrack's (api/override.c). */
#if defined(MT_GLIBC_MALLOC) || defined(MT_MUSL_MALLOC)
#define MT_PROCESS_MALLOC 1
#endif

#ifdef MT_GLIBC_MALLOC
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *ptr);
#define mt_libc_malloc __libc_malloc
#define mt_libc_calloc __libc_calloc
#define mt_libc_realloc __libc_realloc
#define mt_libc_memalign __libc_memalign
#define mt_libc_free __libc_free
/* glibc judges a pointer itself (api/override.c hands it any pointer it is not tracking). */
#define mt_libc_may_own(ptr) ((void)(ptr), true)
#elif defined(MT_MUSL_MALLOC) /* base/platform_musl.c */
void *mt_libc_malloc(size_t size);
void *mt_libc_calloc(size_t count, size_t size);
void *mt_libc_realloc(void *ptr, size_t size);
void *mt_libc_memalign(size_t alignment, size_t size);
void mt_libc_free(void *ptr);
/* True when ptr is a live block of the allocator underneath, by its header: the 16 bytes
 * before ptr are read as they are, so they must be readable (a pointer the C library
 * would take has them). */
bool mt_libc_may_own(const void *ptr);
/* The same for header, the 16 bytes before ptr as the caller read them. */
bool mt_libc_header_is_ours(const void *ptr, const unsigned char header[16]);
#else
#include <stdlib.h>
#ifdef MT_SANITIZER_ALLOCATOR
/* The sanitizers' allocator interface (GCC ships no header for it). */
int __sanitizer_get_ownership(const volatile void *p);
size_t __sanitizer_get_allocated_size(const volatile void *p);
#endif
/* In parentheses: a test that sees the drop-in macros must still reach the functions. */
#define mt_libc_malloc (malloc)
#define mt_libc_calloc (calloc)
#define mt_libc_realloc (realloc)
#define mt_libc_memalign(alignment, size) mt_libc_aligned((alignment), (size))
#ifdef _WIN32
/* Windows: aligned blocks are the tracker's own over the CRT's (base/platform_windows.c),
 * so freeing and growing tell them apart. */
void mt_win_free(void *ptr);
void *mt_win_realloc(void *ptr, size_t size);
#undef mt_libc_realloc
#define mt_libc_realloc mt_win_realloc
#define mt_libc_free mt_win_free
#else
#define mt_libc_free (free)
#endif
void *mt_libc_aligned(size_t alignment, size_t size);
#endif
size_t mt_libc_usable_size(void *ptr);

/* Small number of the calling thread (1 for the first thread seen), for reports. */
extern MT_TLS unsigned mt_thread_number;
unsigned mt_thread_number_slow(void);
static inline unsigned mt_thread(void)
{
    return MT_LIKELY(mt_thread_number != 0) ? mt_thread_number : mt_thread_number_slow();
}

/* MT_ENTRY(); first in each entry point of the library: on bare metal the call runs inside
 * the program's critical section (memtrack_set_lock_hooks), entered here and left when the
 * function returns, so an interrupt handler that allocates never finds the tracker half
 * way through a call (its per-thread state is the one thread's there). Nothing elsewhere:
 * threads have locks and thread-local state of their own. */
#ifdef MT_BARE_METAL
static inline void mt_bare_leave_scope(int *entered)
{
    (void)entered;
    mt_bare_leave();
}
#define MT_ENTRY()                                                                                 \
    __attribute__((cleanup(mt_bare_leave_scope))) int mt_entered_ = (mt_bare_enter(), 1);          \
    (void)mt_entered_
#else
#define MT_ENTRY() ((void)0)
#endif

/* Nonzero while this thread runs tracker code: nested calls go straight to the C library. */
extern MT_TLS int mt_busy;

/* Nonzero in the thread running the crash handler: locks are only tried, nothing waits,
 * nothing is looked up (see api/crash.c). */
extern MT_TLS int mt_in_crash;
/* Set just before abort_on_error aborts: that SIGABRT is ours, no crash report for it. */
extern atomic_bool mt_abort_expected;

const char *mt_program_name(void);
/* The process id the tracker's messages print; 0 on bare metal, which has no processes
 * (mt_buf_program prints none then). */
#ifdef MT_BARE_METAL
#define mt_process_id() ((uint64_t)0)
#else
#define mt_process_id() ((uint64_t)getpid())
#endif
/* True when p lies in the program's own image (code, data, bss): static, for programs
 * linked statically too, where dladdr knows nothing. */
bool mt_in_program_image(uintptr_t p);
/* True when pc is code the linker placed after libmemtrack's own in the program's image:
 * in a static link, the C library and the libraries named after libmemtrack.a, which the
 * report counts as system libraries (records/place.c). base/code_end.c marks where
 * libmemtrack's code ends (the Makefile links it last into memtrack-c.o). */
bool mt_in_code_linked_after(uintptr_t pc);
void mt_code_end(void);
/* Anonymous memory straight from the kernel, zero-filled (memory.c relies on it to skip
 * clearing fresh tables); async-signal-safe; NULL on failure. */
void *mt_pages_alloc(size_t size);
void mt_pages_free(void *ptr, size_t size);
/* How many mappings the kernel allows the process (Linux: vm.max_map_count). */
size_t mt_map_limit(void);
/* Makes pages inaccessible (a guard page in front of the tracker's own mappings). */
void mt_pages_protect_none(void *ptr, size_t size);
/* The same as mt_pages_alloc for the report's working memory, which on bare metal may also
 * take the part of the static buffer kept back for it (base/platform_bare.c): a buffer
 * the records filled up still gets its report. */
#ifdef MT_BARE_METAL
void *mt_pages_alloc_for_report(size_t size);
/* The static buffer: its size, the most of it ever in use, and the requests it refused
 * (how many, the largest). */
typedef struct mt_own_memory {
    size_t size, peak, refused, largest_refused;
} mt_own_memory_t;
void mt_own_memory_read(mt_own_memory_t *out);
#else
#define mt_pages_alloc_for_report mt_pages_alloc
#endif

#ifdef _WIN32
/* Windows, which has no fatal signals to catch: report is called when the program dies of
 * an exception none of its own handlers took (an access violation, the heap's corruption
 * check...) and at abort(), before the system ends it as it would have without us. */
typedef void mt_crash_report_fn(const char *what, bool has_address, uintptr_t address);
void mt_platform_catch_crashes(mt_crash_report_fn *report);
/* The return addresses of the calls that led to an entry point whose frame is `frame`
 * (its __builtin_frame_address(0)) and return address `caller`, innermost first (caller
 * first), from the unwind tables every x86-64 PE image has (RtlVirtualUnwind): right
 * whether or not the program keeps frame pointers. Up to max; 0 when they cannot be had. */
unsigned mt_platform_capture_stack(void *frame, void *caller, void **out, unsigned max);
#endif

#endif /* MT_PLATFORM_H */
