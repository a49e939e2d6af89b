/* memtrack.h - drop-in debug memory tracker for C and C++.
 *
 * Build with -DMEMORY_CONTROL_ON and include this header (or force-include it with
 * `-include memtrack.h`): malloc, calloc, realloc, free and their relatives become macros
 * that record the caller's file, line and function, and libmemtrack reports every leaked
 * block and every heap corruption at exit.
 *
 * Without MEMORY_CONTROL_ON the header changes nothing: it includes only <stddef.h>,
 * defines no allocation macros, and the introspection calls below become no-ops, so the
 * object code is the same as without the header.
 *
 * The header is written for every dialect real projects use: C89 with -pedantic-errors
 * (no variadic macros, no inline, no long long), C99 and later, and C++ (extern "C").
 */
#ifndef MEMTRACK_H
#define MEMTRACK_H
/* Force-included into preprocessed assembler (a .S file in the same build): nothing. */
#ifndef __ASSEMBLER__

#define MEMTRACK_VERSION_MAJOR 1
#define MEMTRACK_VERSION_MINOR 0
#define MEMTRACK_VERSION_PATCH 0
#define MEMTRACK_VERSION "1.0.0"

/* -------------------------------------------------------------------------------------
 * Feature-test macros (tracking on only).
 *
 * Force-included, this header is read before the source's own `#define _XOPEN_SOURCE 600`
 * (or _POSIX_C_SOURCE, _GNU_SOURCE...). The system headers we include below would then lock
 * glibc's feature set to the compiler's default, and with -std=c99 the source would lose
 * sigaction, popen, fseeko... So when no feature-test macro is set yet and no system header
 * has been read, we ask for glibc's complete set (_GNU_SOURCE), include what we need, and
 * remove every feature-test macro name again. The source then finds the macro state it
 * expects on its first line (nothing defined, so its own #defines are silent) and every
 * declaration it may ask for. See the README ("Feature-test macros") for the one visible
 * difference: strerror_r is the GNU variant.
 * ------------------------------------------------------------------------------------- */
#if defined(MEMORY_CONTROL_ON) && !defined(__cplusplus) && !defined(_FEATURES_H)          \
    && !defined(_GNU_SOURCE) && !defined(_DEFAULT_SOURCE) && !defined(_BSD_SOURCE)        \
    && !defined(_SVID_SOURCE) && !defined(_XOPEN_SOURCE) && !defined(_POSIX_C_SOURCE)     \
    && !defined(_POSIX_SOURCE) && !defined(_ISOC99_SOURCE) && !defined(_ISOC11_SOURCE)    \
    && !defined(_LARGEFILE64_SOURCE) && !defined(_FILE_OFFSET_BITS)                       \
    && !defined(_TIME_BITS) && defined(__linux__)
#define _GNU_SOURCE
#define MEMTRACK_FEATURES_CHOSEN_
#endif

#include <stddef.h>

#ifdef MEMORY_CONTROL_ON
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__) || defined(__linux__)
/* <malloc.h> declares malloc and free again; it must be read before our macros exist. */
#include <malloc.h>
#endif
#endif

#ifdef MEMTRACK_FEATURES_CHOSEN_
#undef MEMTRACK_FEATURES_CHOSEN_
#undef _GNU_SOURCE
#undef _DEFAULT_SOURCE
#undef _ISOC95_SOURCE
#undef _ISOC99_SOURCE
#undef _ISOC11_SOURCE
#undef _ISOC2X_SOURCE
#undef _POSIX_SOURCE
#undef _POSIX_C_SOURCE
#undef _XOPEN_SOURCE
#undef _XOPEN_SOURCE_EXTENDED
#undef _LARGEFILE64_SOURCE
#undef _ATFILE_SOURCE
#undef _DYNAMIC_STACK_SIZE_SOURCE
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* -------------------------------------------------------------------------------------
 * Statistics: filled by memtrack_stats(). Byte and block counts cover tracked blocks only.
 * ------------------------------------------------------------------------------------- */
typedef struct memtrack_stats_s {
    size_t current_bytes;  /* bytes in live tracked blocks now */
    size_t current_blocks; /* live tracked blocks now */
    size_t peak_bytes;     /* highest current_bytes seen */
    size_t peak_blocks;    /* highest current_blocks seen */
    size_t total_bytes;    /* bytes allocated over the whole run */
    size_t total_blocks;   /* allocations over the whole run (realloc counts as one) */
    size_t frees;          /* tracked blocks released */
    size_t failed;         /* allocations that returned NULL (out of memory, bad size) */
    size_t errors;         /* heap errors found so far (overruns, bad frees...) */
} memtrack_stats_t;

#if defined(MEMORY_CONTROL_ON) || defined(MEMTRACK_INTERNAL)

/* -------------------------------------------------------------------------------------
 * Introspection
 * ------------------------------------------------------------------------------------- */

/* Check the guard bytes of every live block now; returns the number of problems found.
 * With the macros on, memtrack_check() names its own file and line in what it reports. */
int memtrack_check(void);
int memtrack_check_at(const char *file, int line, const char *func);
/* Print the leak report now (live blocks are reported as "still live"). */
void memtrack_report(void);
/* Fill *out with the current counters. */
void memtrack_stats(memtrack_stats_t *out);
/* Set one option as MEMTRACK_OPTIONS would ("guard", "16"); returns 0, or -1 and warns. */
int memtrack_set_option(const char *key, const char *value);
/* Set options from a "key=value:key=value" string; returns the number of bad entries. */
int memtrack_set_options(const char *options);

/* Checkpoints, for leaks that hide until exit (a level loaded and unloaded, a request
 * served): memtrack_checkpoint() returns a mark, and memtrack_report_since(mark) prints
 * the blocks allocated after it that are still live, by site (nothing when there are
 * none), and returns how many there are. A block realloc'd after the mark counts as made
 * after it. */
unsigned long memtrack_checkpoint(void);
size_t memtrack_report_since(unsigned long mark);

/* -------------------------------------------------------------------------------------
 * Entry points that take the caller's site. The macros below call them; use them directly
 * to write wrappers (xmalloc...) that report their own caller's file and line.
 * func may be NULL. Each behaves as the C library function of the same name.
 * ------------------------------------------------------------------------------------- */
void *memtrack_malloc_at(size_t size, const char *file, int line, const char *func);
void *memtrack_calloc_at(size_t count, size_t size, const char *file, int line,
                         const char *func);
void *memtrack_realloc_at(void *ptr, size_t size, const char *file, int line,
                          const char *func);
void *memtrack_reallocarray_at(void *ptr, size_t count, size_t size, const char *file,
                               int line, const char *func);
void memtrack_free_at(void *ptr, const char *file, int line, const char *func);
char *memtrack_strdup_at(const char *s, const char *file, int line, const char *func);
char *memtrack_strndup_at(const char *s, size_t n, const char *file, int line,
                          const char *func);
void *memtrack_aligned_alloc_at(size_t alignment, size_t size, const char *file, int line,
                                const char *func);
int memtrack_posix_memalign_at(void **out, size_t alignment, size_t size, const char *file,
                               int line, const char *func);
void *memtrack_memalign_at(size_t alignment, size_t size, const char *file, int line,
                           const char *func);
void *memtrack_valloc_at(size_t size, const char *file, int line, const char *func);

#else /* !MEMORY_CONTROL_ON: the introspection calls cost nothing. */

/* static inline functions: never emitted unless called, gone when optimized. C89 has no
 * `inline`, but GCC and clang accept __inline__ there, even with -pedantic-errors. */
#if defined(__GNUC__) || defined(__clang__)
#define MEMTRACK_INLINE_ __inline__
#elif defined(__cplusplus) || (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L)
#define MEMTRACK_INLINE_ inline
#else
#define MEMTRACK_INLINE_
#endif
static MEMTRACK_INLINE_ int memtrack_check(void) { return 0; }
static MEMTRACK_INLINE_ void memtrack_report(void) {}
static MEMTRACK_INLINE_ void memtrack_stats(memtrack_stats_t *out)
{
    out->current_bytes = 0;
    out->current_blocks = 0;
    out->peak_bytes = 0;
    out->peak_blocks = 0;
    out->total_bytes = 0;
    out->total_blocks = 0;
    out->frees = 0;
    out->failed = 0;
    out->errors = 0;
}
static MEMTRACK_INLINE_ int memtrack_set_option(const char *key, const char *value)
{
    (void)key;
    (void)value;
    return 0;
}
static MEMTRACK_INLINE_ int memtrack_set_options(const char *options)
{
    (void)options;
    return 0;
}
static MEMTRACK_INLINE_ unsigned long memtrack_checkpoint(void) { return 0; }
static MEMTRACK_INLINE_ size_t memtrack_report_since(unsigned long mark)
{
    (void)mark;
    return 0;
}
#undef MEMTRACK_INLINE_

#endif /* MEMORY_CONTROL_ON */

#ifdef __cplusplus
} /* extern "C" */
#endif

/* -------------------------------------------------------------------------------------
 * The drop-in macros. Function-like only, so a variable or struct member named `free` or
 * `malloc` still compiles, and `free` passed as a value (list_destroy(l, free)) is the real
 * function, which libmemtrack also provides. A call through a member, `hooks->free(p)`,
 * would expand: write `(hooks->free)(p)` there.
 * ------------------------------------------------------------------------------------- */
#if defined(MEMORY_CONTROL_ON) && !defined(MEMTRACK_NO_MACROS) && !defined(MEMTRACK_INTERNAL)

#if defined(__cplusplus) && __cplusplus >= 201103L
#define MEMTRACK_FUNC_ __func__
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L
#define MEMTRACK_FUNC_ __func__
#elif defined(__GNUC__) || defined(__clang__)
#define MEMTRACK_FUNC_ (__extension__ __func__)
#else
#define MEMTRACK_FUNC_ ((const char *)0)
#endif

#ifdef __cplusplus
/* std::malloc(n) expands to std::memtrack_malloc_at(...): make that name exist. */
namespace std {
using ::memtrack_malloc_at;
using ::memtrack_calloc_at;
using ::memtrack_realloc_at;
using ::memtrack_reallocarray_at;
using ::memtrack_free_at;
using ::memtrack_strdup_at;
using ::memtrack_strndup_at;
using ::memtrack_aligned_alloc_at;
using ::memtrack_posix_memalign_at;
using ::memtrack_memalign_at;
using ::memtrack_valloc_at;
} /* namespace std */
#endif

/* Some C libraries define these as macros themselves; ours replace them. */
#undef malloc
#undef calloc
#undef realloc
#undef reallocarray
#undef free
#undef strdup
#undef strndup
#undef aligned_alloc
#undef posix_memalign
#undef memalign
#undef valloc

#define malloc(size) memtrack_malloc_at((size), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define calloc(count, size)                                                               \
    memtrack_calloc_at((count), (size), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define realloc(ptr, size)                                                                \
    memtrack_realloc_at((ptr), (size), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define reallocarray(ptr, count, size)                                                    \
    memtrack_reallocarray_at((ptr), (count), (size), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define free(ptr) memtrack_free_at((ptr), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define strdup(s) memtrack_strdup_at((s), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define strndup(s, n) memtrack_strndup_at((s), (n), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define aligned_alloc(alignment, size)                                                    \
    memtrack_aligned_alloc_at((alignment), (size), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define posix_memalign(out, alignment, size)                                              \
    memtrack_posix_memalign_at((out), (alignment), (size), __FILE__, __LINE__,            \
                               MEMTRACK_FUNC_)
#define memalign(alignment, size)                                                         \
    memtrack_memalign_at((alignment), (size), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define valloc(size) memtrack_valloc_at((size), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define memtrack_check() memtrack_check_at(__FILE__, __LINE__, MEMTRACK_FUNC_)

#endif /* MEMORY_CONTROL_ON && !MEMTRACK_NO_MACROS */

#endif /* !__ASSEMBLER__ */
#endif /* MEMTRACK_H */
