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
 * declaration it may ask for. See src/README.md ("Feature-test macros") for the one visible
 * difference: strerror_r is the GNU variant.
 * ------------------------------------------------------------------------------------- */
#if defined(MEMORY_CONTROL_ON) && !defined(__cplusplus) && !defined(_FEATURES_H) &&                \
    !defined(_GNU_SOURCE) && !defined(_DEFAULT_SOURCE) && !defined(_BSD_SOURCE) &&                 \
    !defined(_SVID_SOURCE) && !defined(_XOPEN_SOURCE) && !defined(_POSIX_C_SOURCE) &&              \
    !defined(_POSIX_SOURCE) && !defined(_ISOC99_SOURCE) && !defined(_ISOC11_SOURCE) &&             \
    !defined(_LARGEFILE64_SOURCE) && !defined(_FILE_OFFSET_BITS) && !defined(_TIME_BITS) &&        \
    defined(__linux__)
#define _GNU_SOURCE
#define MEMTRACK_FEATURES_CHOSEN_
#endif

#include <stddef.h>

/* With the flag off the API is static inline functions: never emitted unless called, gone
 * when optimized. C89 has no `inline`, but GCC and clang accept __inline__ there, even with
 * -pedantic-errors. */
#if defined(__GNUC__) || defined(__clang__)
#define MEMTRACK_INLINE_ __inline__
#elif defined(__cplusplus) || (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L)
#define MEMTRACK_INLINE_ inline
#else
#define MEMTRACK_INLINE_
#endif

/* -------------------------------------------------------------------------------------
 * Caller sites (MEMTRACK_CALLER_SITES, set by `memtrack cc` for a C source that declares
 * malloc, free... itself, as configure probes and old code do, or that calls through struct
 * members named like them, `mem->calloc(1, n)`; in header mode, define it on that file's
 * command line or before its first #include). The function-like macros would turn such a
 * declaration into a call, and expand the member's name, so they are off; instead the allocation
 * functions are declared here, before any system header, under the names of tracked entry
 * points that site each block by the caller's return address (file and line from the debug
 * information). The source's own declarations then agree with these, and `free` taken as a
 * value is tracked too. GCC and clang on ELF targets; elsewhere the macros are simply off.
 * ------------------------------------------------------------------------------------- */
#if defined(MEMORY_CONTROL_ON) && defined(MEMTRACK_CALLER_SITES) && !defined(MEMTRACK_NO_MACROS)
#define MEMTRACK_NO_MACROS
#if !defined(__cplusplus) && !defined(MEMTRACK_INTERNAL) && defined(__ELF__) &&                    \
    (defined(__GNUC__) || defined(__clang__))
extern void *malloc(size_t size) __asm__("memtrack_malloc_caller");
extern void *calloc(size_t count, size_t size) __asm__("memtrack_calloc_caller");
extern void *realloc(void *ptr, size_t size) __asm__("memtrack_realloc_caller");
extern void *reallocarray(void *ptr, size_t count,
                          size_t size) __asm__("memtrack_reallocarray_caller");
extern void free(void *ptr) __asm__("memtrack_free_caller");
extern char *strdup(const char *s) __asm__("memtrack_strdup_caller");
extern char *strndup(const char *s, size_t n) __asm__("memtrack_strndup_caller");
extern void *aligned_alloc(size_t alignment, size_t size) __asm__("memtrack_aligned_alloc_caller");
extern int posix_memalign(void **out, size_t alignment,
                          size_t size) __asm__("memtrack_posix_memalign_caller");
extern void *memalign(size_t alignment, size_t size) __asm__("memtrack_memalign_caller");
extern void *valloc(size_t size) __asm__("memtrack_valloc_caller");
#endif
#endif

#ifdef MEMORY_CONTROL_ON
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__) || defined(__linux__) || defined(_WIN32)
/* <malloc.h> declares malloc and free again (and on Windows _aligned_malloc and
 * _aligned_free); it must be read before our macros exist. */
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
 * Statistics: filled by memtrack_stats(), over the program's own tracked blocks only.
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

/* The window where allocations may be made to fail (option fail_window=1, with fail_nth,
 * fail_rate...): between memtrack_fail_begin() and memtrack_fail_end(), so that start-up
 * and teardown are spared and only the code under test meets a NULL. Windows nest, and
 * count for every thread of the process. */
void memtrack_fail_begin(void);
void memtrack_fail_end(void);
/* Leaks now, for tests that check them mid-run: the live blocks nothing the program can
 * reach points at (lost), and those only lost blocks point at (indirectly lost), as the exit
 * report lists them with option leaks=lost. Prints them by site (nothing when there are
 * none) and returns how many there are. The program's globals, thread-local variables,
 * stacks and registers are read for pointers, and so is memory registered below. */
size_t memtrack_check_leaks(void);
/* Memory the leak scan reads for pointers as it reads globals: what the tracker cannot
 * find by itself (an engine's own mapped heap, a buffer a script interpreter keeps
 * pointers in). Blocks it points at are held by "the root registered at FILE:LINE".
 * memtrack_unregister_root(ptr) takes it back. */
void memtrack_register_root(const void *ptr, size_t size);
void memtrack_register_root_at(const void *ptr, size_t size, const char *file, int line,
                               const char *func);
void memtrack_unregister_root(const void *ptr);

/* Bare metal (make PLATFORM=cortexm) with an RTOS or interrupt handlers that allocate:
 * the tracker calls lock(ctx) when a call enters it and unlock(ctx) when that call returns,
 * in pairs, never nested (it counts its own nesting), so the pair must be a critical
 * section that keeps every other context that allocates out: interrupts masked (PRIMASK
 * saved and restored, or BASEPRI up to the highest interrupt that allocates), or an RTOS's
 * critical section (taskENTER_CRITICAL, irq_lock); not a mutex. Set them before such
 * interrupts or tasks start; set later, they take effect at the next call into the
 * tracker. NULL for both removes them. Returns 1 when the hooks are used, 0 when not:
 * always 0 on hosted platforms, where the tracker's own locks serve threads and signal
 * handlers (the call does nothing there). */
int memtrack_set_lock_hooks(void (*lock)(void *ctx), void (*unlock)(void *ctx), void *ctx);

/* -------------------------------------------------------------------------------------
 * Entry points that take the caller's site. The macros below call them; use them directly
 * to write wrappers (xmalloc...) that report their own caller's file and line.
 * func may be NULL. Each behaves as the C library function of the same name.
 * ------------------------------------------------------------------------------------- */
/* What the C library's own declarations tell the compiler: the result is new memory of the
 * size the arguments give (and alignment), so -Warray-bounds, -Wstringop-overflow and
 * _FORTIFY_SOURCE's checks see a tracked block's size as they see a malloc'd one's. */
#if defined(__GNUC__) || defined(__clang__)
#define MEMTRACK_NEW_ __attribute__((__malloc__))
#define MEMTRACK_SIZE_(n) __attribute__((__alloc_size__(n)))
#define MEMTRACK_SIZES_(n, m) __attribute__((__alloc_size__(n, m)))
#define MEMTRACK_ALIGN_(n) __attribute__((__alloc_align__(n)))
#else
#define MEMTRACK_NEW_
#define MEMTRACK_SIZE_(n)
#define MEMTRACK_SIZES_(n, m)
#define MEMTRACK_ALIGN_(n)
#endif
void *memtrack_malloc_at(size_t size, const char *file, int line, const char *func) MEMTRACK_NEW_
    MEMTRACK_SIZE_(1);
void *memtrack_calloc_at(size_t count, size_t size, const char *file, int line,
                         const char *func) MEMTRACK_NEW_ MEMTRACK_SIZES_(1, 2);
void *memtrack_realloc_at(void *ptr, size_t size, const char *file, int line, const char *func)
    MEMTRACK_SIZE_(2);
void *memtrack_reallocarray_at(void *ptr, size_t count, size_t size, const char *file, int line,
                               const char *func) MEMTRACK_SIZES_(2, 3);
void memtrack_free_at(void *ptr, const char *file, int line, const char *func);
char *memtrack_strdup_at(const char *s, const char *file, int line, const char *func) MEMTRACK_NEW_;
char *memtrack_strndup_at(const char *s, size_t n, const char *file, int line,
                          const char *func) MEMTRACK_NEW_;
void *memtrack_aligned_alloc_at(size_t alignment, size_t size, const char *file, int line,
                                const char *func) MEMTRACK_NEW_ MEMTRACK_SIZE_(2)
    MEMTRACK_ALIGN_(1);
int memtrack_posix_memalign_at(void **out, size_t alignment, size_t size, const char *file,
                               int line, const char *func);
void *memtrack_memalign_at(size_t alignment, size_t size, const char *file, int line,
                           const char *func) MEMTRACK_NEW_ MEMTRACK_SIZE_(2);
void *memtrack_valloc_at(size_t size, const char *file, int line, const char *func) MEMTRACK_NEW_
    MEMTRACK_SIZE_(1);
#ifdef _WIN32
/* Windows: _aligned_free of a tracked block, or of one the CRT's _aligned_malloc made. */
void memtrack_aligned_free_at(void *ptr, const char *file, int line, const char *func);
#endif

/* Used by the C++ opt-in macros (MEMTRACK_NEW_MACRO, MEMTRACK_DELETE_MACRO, at the end):
 * give the block this thread just made with new at ptr its file and line; name the file
 * and line of the delete expression about to run. */
void memtrack_cxx_new_site(const volatile void *ptr, const char *file, int line, const char *func);
void memtrack_cxx_delete_site(const char *file, int line, const char *func);

#else /* !MEMORY_CONTROL_ON: the introspection calls cost nothing. */

static MEMTRACK_INLINE_ int memtrack_check(void)
{
    return 0;
}
static MEMTRACK_INLINE_ void memtrack_report(void)
{
}
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
static MEMTRACK_INLINE_ unsigned long memtrack_checkpoint(void)
{
    return 0;
}
static MEMTRACK_INLINE_ size_t memtrack_report_since(unsigned long mark)
{
    (void)mark;
    return 0;
}
static MEMTRACK_INLINE_ void memtrack_fail_begin(void)
{
}
static MEMTRACK_INLINE_ void memtrack_fail_end(void)
{
}
static MEMTRACK_INLINE_ size_t memtrack_check_leaks(void)
{
    return 0;
}
static MEMTRACK_INLINE_ void memtrack_register_root(const void *ptr, size_t size)
{
    (void)ptr;
    (void)size;
}
static MEMTRACK_INLINE_ void memtrack_unregister_root(const void *ptr)
{
    (void)ptr;
}
static MEMTRACK_INLINE_ int memtrack_set_lock_hooks(void (*lock)(void *ctx),
                                                    void (*unlock)(void *ctx), void *ctx)
{
    (void)lock;
    (void)unlock;
    (void)ctx;
    return 0;
}

#endif /* MEMORY_CONTROL_ON */

/* -------------------------------------------------------------------------------------
 * Pools and arenas: allocators for game engines and other hot paths, with tracking on
 * and off (tools/doc/pools-and-arenas.md).
 *
 * A pool hands out objects of one size in O(1) whatever its fill level; an arena hands
 * out memory by bumping a pointer and takes it all back at once. Neither locks: use one
 * from one thread at a time. Both are real allocators without MEMORY_CONTROL_ON (no
 * tracker calls, no guard bytes). A pool or an arena created by code built with
 * MEMORY_CONTROL_ON is tracked: each object or allocation is a block in the report, with
 * its file and line and the owner's name, guard bytes around it, and every misuse is
 * reported. Code built without the flag, or calling (memtrack_pool_create)(...) in
 * parentheses, creates an untracked one. The functions behave the same either way; the
 * _at forms take the caller's site, as the malloc ones do.
 * ------------------------------------------------------------------------------------- */
typedef struct memtrack_pool memtrack_pool_t;
typedef struct memtrack_arena memtrack_arena_t;

/* A pool of `capacity` objects of `object_size` bytes, aligned for any type of that size
 * (at most as malloc aligns). The name shows in reports. NULL when out of memory. */
memtrack_pool_t *memtrack_pool_create(const char *name, size_t object_size, size_t capacity);
/* The same with objects aligned to `alignment` (a power of two); NULL if it is not. */
memtrack_pool_t *memtrack_pool_create_aligned(const char *name, size_t object_size,
                                              size_t alignment, size_t capacity);
/* Let a full pool grow by chunks of `chunk_objects` (0: never grow, the default), up to
 * `max_objects` in all (0: no limit). Objects never move. */
void memtrack_pool_set_growth(memtrack_pool_t *pool, size_t chunk_objects, size_t max_objects);
/* An object, or NULL when the pool is full (and cannot grow). Its contents are undefined. */
void *memtrack_pool_alloc(memtrack_pool_t *pool);
/* An object of `size` bytes, at most the pool's object size (NULL beyond it): one pool
 * serves a size class. Tracked, the bytes between size and the slot's end are checked as
 * guards, and the object counts as `size` bytes. */
void *memtrack_pool_alloc_size(memtrack_pool_t *pool, size_t size);
/* Give an object back. NULL is ignored. A pointer that is not a live object of this pool
 * (released twice, another pool's, inside an object) is reported when tracked and
 * ignored otherwise: the pool never corrupts itself. */
void memtrack_pool_free(memtrack_pool_t *pool, void *object);
/* Give every live object back at once (not leaks). */
void memtrack_pool_clear(memtrack_pool_t *pool);
/* Call fn for each live object. fn may release the object it is given or any other;
 * objects allocated meanwhile may or may not be visited; fn must not destroy the pool. */
void memtrack_pool_foreach(memtrack_pool_t *pool, void (*fn)(void *object, void *ctx), void *ctx);
/* Free the pool and its memory. Tracked: objects still live are reported, by site, unless
 * the pool is released all at once. */
void memtrack_pool_destroy(memtrack_pool_t *pool);
/* Declare (nonzero) that the pool is released all at once, as an engine destroys its
 * allocator with objects in it: destroy then releases them without an error, and a
 * level's leaks are found by memtrack_pool_mark(). */
void memtrack_pool_set_wholesale(memtrack_pool_t *pool, int wholesale);
/* A level's or a frame's end. Tracked: the objects made since the pool's last mark (or
 * its creation) and still live are reported, by site, and their number returned; 0
 * untracked. */
size_t memtrack_pool_mark(memtrack_pool_t *pool);
/* Live objects; objects the pool holds now (live or not); the object size it was made with. */
size_t memtrack_pool_live(const memtrack_pool_t *pool);
size_t memtrack_pool_capacity(const memtrack_pool_t *pool);
size_t memtrack_pool_object_size(const memtrack_pool_t *pool);
/* 1 when ptr is a live object of the pool, else 0. */
int memtrack_pool_owns(const memtrack_pool_t *pool, const void *ptr);
/* Tracked: check the guards of the live objects and the pattern of released ones now;
 * returns the problems found (each is reported). Untracked: 0. */
int memtrack_pool_check(memtrack_pool_t *pool);

/* An arena of `capacity` bytes. NULL when out of memory. */
memtrack_arena_t *memtrack_arena_create(const char *name, size_t capacity);
/* `size` bytes aligned as malloc aligns, or NULL when the arena is full. */
void *memtrack_arena_alloc(memtrack_arena_t *arena, size_t size);
/* The same aligned to `alignment` (a power of two); NULL if it is not. */
void *memtrack_arena_alloc_aligned(memtrack_arena_t *arena, size_t size, size_t alignment);
/* The arena's position now, for memtrack_arena_rewind (stack-style use). */
size_t memtrack_arena_mark(const memtrack_arena_t *arena);
/* Release everything allocated since `mark` was taken. */
void memtrack_arena_rewind(memtrack_arena_t *arena, size_t mark);
/* Release everything at once: the allocations are not leaks. */
void memtrack_arena_reset(memtrack_arena_t *arena);
/* Free the arena and its memory (its allocations are not leaks). */
void memtrack_arena_destroy(memtrack_arena_t *arena);
/* Bytes in use (with alignment padding) and the capacity, the same tracked or not. */
size_t memtrack_arena_used(const memtrack_arena_t *arena);
size_t memtrack_arena_capacity(const memtrack_arena_t *arena);

/* Entry points that take the caller's site; the macros below call them. */
memtrack_pool_t *memtrack_pool_create_at(const char *name, size_t object_size, size_t capacity,
                                         const char *file, int line, const char *func);
memtrack_pool_t *memtrack_pool_create_aligned_at(const char *name, size_t object_size,
                                                 size_t alignment, size_t capacity,
                                                 const char *file, int line, const char *func);
void *memtrack_pool_alloc_at(memtrack_pool_t *pool, const char *file, int line, const char *func);
void *memtrack_pool_alloc_size_at(memtrack_pool_t *pool, size_t size, const char *file, int line,
                                  const char *func);
void memtrack_pool_free_at(memtrack_pool_t *pool, void *object, const char *file, int line,
                           const char *func);
void memtrack_pool_clear_at(memtrack_pool_t *pool, const char *file, int line, const char *func);
void memtrack_pool_destroy_at(memtrack_pool_t *pool, const char *file, int line, const char *func);
int memtrack_pool_check_at(memtrack_pool_t *pool, const char *file, int line, const char *func);
size_t memtrack_pool_mark_at(memtrack_pool_t *pool, const char *file, int line, const char *func);
memtrack_arena_t *memtrack_arena_create_at(const char *name, size_t capacity, const char *file,
                                           int line, const char *func);
void *memtrack_arena_alloc_at(memtrack_arena_t *arena, size_t size, const char *file, int line,
                              const char *func);
void *memtrack_arena_alloc_aligned_at(memtrack_arena_t *arena, size_t size, size_t alignment,
                                      const char *file, int line, const char *func);
void memtrack_arena_rewind_at(memtrack_arena_t *arena, size_t mark, const char *file, int line,
                              const char *func);
void memtrack_arena_reset_at(memtrack_arena_t *arena, const char *file, int line, const char *func);
void memtrack_arena_destroy_at(memtrack_arena_t *arena, const char *file, int line,
                               const char *func);

/* -------------------------------------------------------------------------------------
 * The program's own allocators (like Valgrind's MALLOCLIKE_BLOCK and FREELIKE_BLOCK):
 * register each block handed out and released, under an owner name, and it is tracked
 * like a malloc'd block (no guard bytes: the layout is yours). A block may start at the
 * address of the malloc'd chunk it is carved from (free() takes the chunk, the register
 * calls the block), not at another tracked block's. Without MEMORY_CONTROL_ON these do
 * nothing.
 * ------------------------------------------------------------------------------------- */
#if defined(MEMORY_CONTROL_ON) || defined(MEMTRACK_INTERNAL)
void memtrack_register_alloc(const void *ptr, size_t size, const char *owner);
void memtrack_register_free(const void *ptr, const char *owner);
void memtrack_register_alloc_at(const void *ptr, size_t size, const char *owner, const char *file,
                                int line, const char *func);
void memtrack_register_free_at(const void *ptr, const char *owner, const char *file, int line,
                               const char *func);
/* Releases every block `owner` registered that starts in [start, start + size) (a chunk
 * given back whole); returns how many. It walks every tracked block: for a chunk's
 * release, not an object's. */
size_t memtrack_register_free_range(const void *start, size_t size, const char *owner);
size_t memtrack_register_free_range_at(const void *start, size_t size, const char *owner,
                                       const char *file, int line, const char *func);
#else /* as the introspection calls: static inline no-ops, never emitted */
static MEMTRACK_INLINE_ void memtrack_register_alloc(const void *ptr, size_t size,
                                                     const char *owner)
{
    (void)ptr;
    (void)size;
    (void)owner;
}
static MEMTRACK_INLINE_ void memtrack_register_free(const void *ptr, const char *owner)
{
    (void)ptr;
    (void)owner;
}
static MEMTRACK_INLINE_ size_t memtrack_register_free_range(const void *start, size_t size,
                                                            const char *owner)
{
    (void)start;
    (void)size;
    (void)owner;
    return 0;
}
#endif

/* -------------------------------------------------------------------------------------
 * Bare metal (Cortex-M, make PLATFORM=cortexm): the tracker's own memory (records, sites,
 * the report's scratch) is a static buffer the program defines once, at file scope, with
 * MEMTRACK_STATIC_MEMORY(bytes). It grows with what the program does: about 5 KiB of
 * tables at the first block, a 57-byte record per live block (and per block in the
 * quarantine), about 250 bytes per site (file, line, function), and while a report is
 * made about 3.5 KiB, 232 bytes per site and 344 per error logged; an eighth of it (2 KiB
 * at least) is kept back for the report. 32 KiB serves a few hundred blocks. When it
 * runs out, blocks are handed out untracked and the report says how many and what size to
 * give it instead. The reports name the program memtrack_program_name ("program" unless
 * the program sets it).
 * ------------------------------------------------------------------------------------- */
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
#define MEMTRACK_STATIC_MEMORY(bytes)                                                              \
    __attribute__((aligned(16))) unsigned char memtrack_static_memory[(bytes)];                    \
    const size_t memtrack_static_memory_size = (bytes)
extern const char *memtrack_program_name;
/* The most of the static buffer the tracker has had in use at once, reports included:
 * what MEMTRACK_STATIC_MEMORY needs for this run (keep an eighth more: it holds that much
 * back for the report). */
size_t memtrack_static_memory_peak(void);
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif

#if defined(MEMORY_CONTROL_ON) && !defined(MEMTRACK_INTERNAL) &&                                   \
    (defined(__GNUC__) || defined(__clang__))
/* Every unit built with the flag refers to libmemtrack, so the linker keeps it whatever
 * --as-needed says (and pulls it out of libmemtrack.a): a main that only calls a library,
 * whose blocks the process's malloc (libmemtrack's) makes, or a C++ program that never
 * calls new itself (the standard library's compiled code does, for std::string, iostreams,
 * locales), is still tracked. One pointer per unit; nothing at all without the flag. */
#ifdef __cplusplus
namespace memtrack_link_
{
static void (*const anchor)(memtrack_stats_t *) __attribute__((used)) = &memtrack_stats;
} /* namespace memtrack_link_ */
#else
static void (*const memtrack_link_anchor_)(memtrack_stats_t *)
    __attribute__((used)) = &memtrack_stats;
#endif
#endif

/* -------------------------------------------------------------------------------------
 * The drop-in macros. Function-like only, so a variable or struct member named `free` or
 * `malloc` still compiles, and `free` passed as a value (list_destroy(l, free)) is the real
 * function, which libmemtrack also provides. A call through a member, `hooks->free(p)` (an
 * allocator table {calloc, realloc, free}), would expand: build such a file with
 * -DMEMTRACK_CALLER_SITES (above; `memtrack cc` does it by itself and says so), or write
 * `(hooks->free)(p)`. The macros cannot let the member call through: the preprocessor does
 * not see the `->` before the name, and a `free(p)` that expanded to `free(...)` again with
 * the site passed aside (a thread-local note for the process's free to read) would cost
 * every untracked allocation a test, name the wrong line when the member is not the C
 * library's function, and fail where libmemtrack is not the process's allocator (Windows,
 * Cortex-M).
 * ------------------------------------------------------------------------------------- */
#if defined(MEMORY_CONTROL_ON) && !defined(MEMTRACK_INTERNAL)

/* C++ may call malloc in a namespace-scope initializer, where __func__ does not exist (a
 * warning, an error with -Werror): __builtin_FUNCTION() is "" there. */
#if defined(__cplusplus) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 5
#define MEMTRACK_FUNC_ __builtin_FUNCTION()
#elif defined(__cplusplus) && defined(__clang__) && defined(__has_builtin)
#if __has_builtin(__builtin_FUNCTION)
#define MEMTRACK_FUNC_ __builtin_FUNCTION()
#endif
#endif

#if defined(MEMTRACK_FUNC_)
/* chosen above */
#elif defined(__cplusplus) && __cplusplus >= 201103L
#define MEMTRACK_FUNC_ __func__
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L
#define MEMTRACK_FUNC_ __func__
#elif defined(__GNUC__) || defined(__clang__)
#define MEMTRACK_FUNC_ (__extension__ __func__)
#else
#define MEMTRACK_FUNC_ ((const char *)0)
#endif
#endif /* MEMORY_CONTROL_ON: the function names the macros pass */

#if defined(MEMORY_CONTROL_ON) && !defined(MEMTRACK_NO_MACROS) && !defined(MEMTRACK_INTERNAL)

#ifdef __cplusplus
/* std::malloc(n) expands to std::memtrack_malloc_at(...): make that name exist. */
namespace std
{
using ::memtrack_aligned_alloc_at;
using ::memtrack_calloc_at;
using ::memtrack_free_at;
using ::memtrack_malloc_at;
using ::memtrack_memalign_at;
using ::memtrack_posix_memalign_at;
using ::memtrack_realloc_at;
using ::memtrack_reallocarray_at;
using ::memtrack_strdup_at;
using ::memtrack_strndup_at;
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
#define calloc(count, size) memtrack_calloc_at((count), (size), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define realloc(ptr, size) memtrack_realloc_at((ptr), (size), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define reallocarray(ptr, count, size)                                                             \
    memtrack_reallocarray_at((ptr), (count), (size), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define free(ptr) memtrack_free_at((ptr), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define strdup(s) memtrack_strdup_at((s), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define strndup(s, n) memtrack_strndup_at((s), (n), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define aligned_alloc(alignment, size)                                                             \
    memtrack_aligned_alloc_at((alignment), (size), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define posix_memalign(out, alignment, size)                                                       \
    memtrack_posix_memalign_at((out), (alignment), (size), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define memalign(alignment, size)                                                                  \
    memtrack_memalign_at((alignment), (size), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define valloc(size) memtrack_valloc_at((size), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define memtrack_check() memtrack_check_at(__FILE__, __LINE__, MEMTRACK_FUNC_)

/* Windows' CRT names: _strdup is strdup, _aligned_malloc is memalign (size first), and
 * _aligned_free takes a tracked block or one the CRT made for untracked code. The CRT's
 * other _aligned_* and _msize are not tracked: never give them a tracked block. */
#ifdef _WIN32
#undef _strdup
#undef _aligned_malloc
#undef _aligned_free
#define _strdup(s) memtrack_strdup_at((s), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define _aligned_malloc(size, alignment)                                                           \
    memtrack_memalign_at((alignment), (size), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define _aligned_free(ptr) memtrack_aligned_free_at((ptr), __FILE__, __LINE__, MEMTRACK_FUNC_)
#endif

#endif /* MEMORY_CONTROL_ON && !MEMTRACK_NO_MACROS */

/* The pool, arena and register calls record their caller's file and line, as malloc does.
 * Under MEMTRACK_NO_MACROS too: their names clash with nothing a program defines (an
 * allocator table's `calloc` and `free` members are why a file turns the macros off), and
 * a pool or arena made by name is untracked, which turning the macros off must not make
 * it silently. */
#if defined(MEMORY_CONTROL_ON) && !defined(MEMTRACK_INTERNAL)
#define memtrack_pool_create(name, object_size, capacity)                                          \
    memtrack_pool_create_at((name), (object_size), (capacity), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define memtrack_pool_create_aligned(name, object_size, alignment, capacity)                       \
    memtrack_pool_create_aligned_at((name), (object_size), (alignment), (capacity), __FILE__,      \
                                    __LINE__, MEMTRACK_FUNC_)
#define memtrack_pool_alloc(pool) memtrack_pool_alloc_at((pool), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define memtrack_pool_alloc_size(pool, size)                                                       \
    memtrack_pool_alloc_size_at((pool), (size), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define memtrack_pool_free(pool, object)                                                           \
    memtrack_pool_free_at((pool), (object), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define memtrack_pool_clear(pool) memtrack_pool_clear_at((pool), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define memtrack_pool_destroy(pool)                                                                \
    memtrack_pool_destroy_at((pool), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define memtrack_pool_check(pool) memtrack_pool_check_at((pool), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define memtrack_pool_mark(pool) memtrack_pool_mark_at((pool), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define memtrack_arena_create(name, capacity)                                                      \
    memtrack_arena_create_at((name), (capacity), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define memtrack_arena_alloc(arena, size)                                                          \
    memtrack_arena_alloc_at((arena), (size), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define memtrack_arena_alloc_aligned(arena, size, alignment)                                       \
    memtrack_arena_alloc_aligned_at((arena), (size), (alignment), __FILE__, __LINE__,              \
                                    MEMTRACK_FUNC_)
#define memtrack_arena_rewind(arena, mark)                                                         \
    memtrack_arena_rewind_at((arena), (mark), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define memtrack_arena_reset(arena)                                                                \
    memtrack_arena_reset_at((arena), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define memtrack_arena_destroy(arena)                                                              \
    memtrack_arena_destroy_at((arena), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define memtrack_register_alloc(ptr, size, owner)                                                  \
    memtrack_register_alloc_at((ptr), (size), (owner), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define memtrack_register_free(ptr, owner)                                                         \
    memtrack_register_free_at((ptr), (owner), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define memtrack_register_root(ptr, size)                                                          \
    memtrack_register_root_at((ptr), (size), __FILE__, __LINE__, MEMTRACK_FUNC_)
#define memtrack_register_free_range(start, size, owner)                                           \
    memtrack_register_free_range_at((start), (size), (owner), __FILE__, __LINE__, MEMTRACK_FUNC_)
#endif /* MEMORY_CONTROL_ON: pools and arenas */

#undef MEMTRACK_INLINE_
#endif /* !__ASSEMBLER__ */

#endif /* MEMTRACK_H */

/* -------------------------------------------------------------------------------------
 * C++, opt-in: file and line from the new and delete expressions themselves.
 *
 * Without these macros, memtrack names the site of every new and delete by the caller's
 * address, which the report turns into file:line from the debug information (-g). These
 * macros, in the style of the 2006 paper, give file and line without debug information,
 * and the site of a delete through a virtual destructor. A macro named `new` or `delete`
 * cannot be read by code that declares or calls `operator new`/`operator delete` by name
 * (the standard library does), and `delete` also breaks `= delete`. So: include every
 * other header first, then
 *     #define MEMTRACK_NEW_MACRO       (new T, new T[n], new (std::nothrow) T, ::new...)
 *     #define MEMTRACK_DELETE_MACRO    (delete p, delete[] p)
 *     #include <memtrack.h>
 * (again, if it was force-included). Placement new and nothrow new keep working; around
 * code that names the operators, use #pragma push_macro("new") / #undef new /
 * #pragma pop_macro("new"). Both macros do nothing without MEMORY_CONTROL_ON.
 * ------------------------------------------------------------------------------------- */
#if defined(__cplusplus) && defined(MEMORY_CONTROL_ON) && !defined(MEMTRACK_NO_MACROS) &&          \
    !defined(MEMTRACK_INTERNAL)

#if (defined(MEMTRACK_NEW_MACRO) || defined(MEMTRACK_DELETE_MACRO)) && !defined(MEMTRACK_CXX_SITES_)
#define MEMTRACK_CXX_SITES_
/* `memtrack_new_here_(...) ->* new T` is `new T`, then its block named; the result is the
 * new-expression's, and `*new T` (parsed as `(*tag) ->* new T`) is still `*(new T)`. */
struct memtrack_new_tag_ {
    const char *file;
    int line;
    const char *func;
};
struct memtrack_new_deref_tag_ {
    memtrack_new_tag_ tag;
};
inline memtrack_new_tag_ memtrack_new_here_(const char *file, int line, const char *func)
{
    memtrack_new_tag_ tag = {file, line, func};
    return tag;
}
inline memtrack_new_deref_tag_ operator*(const memtrack_new_tag_ &tag)
{
    memtrack_new_deref_tag_ deref = {tag};
    return deref;
}
template <class T> inline T *operator->*(const memtrack_new_tag_ &tag, T *p)
{
    memtrack_cxx_new_site(p, tag.file, tag.line, tag.func);
    return p;
}
template <class T> inline T &operator->*(const memtrack_new_deref_tag_ &deref, T *p)
{
    memtrack_cxx_new_site(p, deref.tag.file, deref.tag.line, deref.tag.func);
    return *p;
}
#endif

#ifdef __clang__ /* "keyword is hidden by macro definition": that is the point here */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunknown-warning-option"
#pragma clang diagnostic ignored "-Wkeyword-macro"
#endif

#if defined(MEMTRACK_NEW_MACRO) && !defined(MEMTRACK_NEW_MACRO_ON_)
#define MEMTRACK_NEW_MACRO_ON_
#define new memtrack_new_here_(__FILE__, __LINE__, MEMTRACK_FUNC_)->*new
#endif

#if defined(MEMTRACK_DELETE_MACRO) && !defined(MEMTRACK_DELETE_MACRO_ON_)
#define MEMTRACK_DELETE_MACRO_ON_
#define delete                                                                                     \
    memtrack_cxx_delete_site(__FILE__, __LINE__, MEMTRACK_FUNC_), false ? (void)0 : delete
#endif

#ifdef __clang__
#pragma clang diagnostic pop
#endif

#endif /* C++ opt-in macros */
