/* api.h - the entry points' shared parts: the lifecycle (init.c), making blocks (alloc.c),
 * releasing and resizing them (free.c), checking them (check.c). The process allocator
 * (override.c), pools, arenas, registered blocks and the C++ operators sit on these.
 */
#ifndef MT_API_H
#define MT_API_H

#include "base/options.h"
#include "checks/guard.h"
#include "records/site.h"
#include "records/stack.h"
#include "records/table.h"

/* ---- init.c: the lifecycle ----------------------------------------------------------- */
void mt_init(void);
extern atomic_int mt_state; /* 0 not started, 1 running, 2 reported at exit */
/* Fixes the block layout from the options at the first block (after mt_init). */
void mt_freeze_layout_slow(void);
static inline void mt_freeze_layout(void)
{
    if (MT_UNLIKELY(!atomic_load_explicit(&mt_options_frozen, memory_order_acquire)))
        mt_freeze_layout_slow();
}
/* The guard bytes every block gets (option `guard`), fixed once the first block is made. */
size_t mt_guard_size(void);

/* ---- alloc.c: making blocks ------------------------------------------------------------ */
/* Allocate a tracked block; align 0 means malloc's. Sets errno and returns NULL on failure.
 * A site inside a system library makes a system block: no sequence number, counted apart. */
void *mt_alloc(size_t size, size_t align, uint32_t site, bool zero);
/* The same for a site the macros named (a file and line: never a system library's), which
 * need not be asked. */
void *mt_alloc_placed(size_t size, size_t align, uint32_t site, bool zero);
/* Counts a failed allocation, sets errno to err and returns NULL. */
void *mt_fail(int err);
#ifdef MT_BARE_METAL
/* Blocks handed out untracked since the static buffer was full (api/alloc.c). */
void mt_untracked_read(uint64_t *blocks, uint64_t *bytes);
#endif
/* break_on=N: says which allocation it is, then raises SIGTRAP. */
void mt_break_now(uint64_t seq, size_t size, uint32_t site);
/* check_every=N: every Nth tracked allocation or free checks every block. */
void mt_periodic_check(uint32_t site);
#define MT_AFTER_OPERATION(site)                                                                   \
    do {                                                                                           \
        if (MT_UNLIKELY(mt_opt.check_every != 0))                                                  \
            mt_periodic_check(site);                                                               \
    } while (0)

static inline bool mt_mul_overflows(size_t a, size_t b, size_t *out)
{
    return __builtin_mul_overflow(a, b, out);
}
static inline bool mt_power_of_two(size_t v)
{
    return v != 0 && (v & (v - 1)) == 0;
}
/* memalign rounds a bad alignment up to a power of two, as glibc's does. */
static inline size_t mt_round_alignment(size_t alignment)
{
    size_t a = MT_MIN_ALIGN;
    while (a < alignment && a <= SIZE_MAX / 2)
        a <<= 1;
    return a;
}

/* ---- free.c: releasing and resizing ------------------------------------------------------ */
/* What a pointer is to the tracker. OWNED: a live block a pool, an arena or a registrar
 * owns (free() and realloc() report it and leave it; see register.c). */
typedef enum { MT_FOUND_NONE, MT_FOUND_LIVE, MT_FOUND_FREED, MT_FOUND_OWNED } mt_found_t;
/* Copies the record of a live or freed tracked block without changing anything. */
mt_found_t mt_peek_block(const void *ptr, mt_block_t *out);
/* Where a free happened: known already (tracked code), or only by the caller's address and
 * the entry point's frame (inline in which the release runs), interned with its stack only
 * when needed, so that the C library's own frees never pay for it. */
typedef struct mt_free_site {
    uint32_t id;
    void *pc, *frame;
    mt_kind_t kind;
} mt_free_site_t;
/* Releases ptr if it is a tracked block, under one lock round trip; a block already freed
 * is a double free. delete_size, when not 0, is what a sized delete says the block holds.
 * Returns what ptr was; with MT_FOUND_NONE nothing was done. */
mt_found_t mt_release(void *ptr, mt_free_site_t *where, size_t delete_size);
/* A pointer the tracker never made (nor holds in quarantine), released by code it checks:
 * the C library gets it back only when it surely made it; otherwise it is reported (a double
 * free of a block gone back, an interior, stack, static or wild pointer) and left alone. */
void mt_release_foreign(void *ptr, uint32_t site);
void *mt_realloc_foreign(void *ptr, size_t size, uint32_t site);
/* A free nested inside the tracker: only tries the lock; false when it is taken. */
bool mt_free_nested(void *ptr);
/* Release a block; from_tracked is false when the caller was built without the header. */
void mt_free(void *ptr, uint32_t site, bool from_tracked);
void *mt_realloc(void *ptr, size_t size, uint32_t site, bool from_tracked);
/* realloc of a live (or owned) block whose record copy is old, and of a freed one. */
void *mt_realloc_live(void *ptr, const mt_block_t *old, size_t size, uint32_t site,
                      bool from_tracked);
void *mt_realloc_freed(const mt_block_t *old, uint32_t site);
/* Releases ptr if it is a live tracked block and returns true; a block in quarantine is a
 * double free (reported, true); otherwise does nothing and returns false. size, when not
 * 0, is what a sized delete says the block holds (checked). Not for nested calls
 * (mt_busy): it takes the block's lock. */
bool mt_free_known(void *ptr, uint32_t site, size_t size);

/* ---- override.c: the caller-site door -------------------------------------------------
 * What memtrack.h declares malloc, free... to be under MEMTRACK_CALLER_SITES (a source that
 * declares them itself): always tracked, sited by the caller's return address. */
void *memtrack_malloc_caller(size_t size);
void *memtrack_calloc_caller(size_t count, size_t size);
char *memtrack_strdup_caller(const char *s);
char *memtrack_strndup_caller(const char *s, size_t n);
void memtrack_free_caller(void *ptr);
void *memtrack_realloc_caller(void *ptr, size_t size);
void *memtrack_reallocarray_caller(void *ptr, size_t count, size_t size);
void *memtrack_memalign_caller(size_t alignment, size_t size);
void *memtrack_aligned_alloc_caller(size_t alignment, size_t size);
int memtrack_posix_memalign_caller(void **out, size_t alignment, size_t size);
void *memtrack_valloc_caller(size_t size);
#ifdef MT_GLIBC_MALLOC
/* Says once, with the fix, when libmemtrack's malloc or free is not the process's (a
 * library built with memtrack loaded it after the C library); at load time. */
void mt_allocator_check(void);
#endif

/* ---- crash.c: the report on a fatal signal ------------------------------------------ */
void mt_crash_install(void);
/* Gives the calling thread an alternate signal stack of its own, once (a thread that
 * overflows its stack, or faults on a small one, still gets the crash report); freed when
 * the thread ends. Called at a thread's first tracked allocation: cheap after the first. */
extern MT_TLS bool mt_thread_crash_ready;
void mt_crash_thread_start(void);
/* Prints the crash report once (what: "SIGSEGV", "EXCEPTION_ACCESS_VIOLATION"...; the
 * faulting address when has_address): the guards of every block, then the live blocks.
 * Returns at once while another thread prints it. The platform's fatal-error hook calls it
 * where there are no signals (Windows). */
void mt_crash_report_now(const char *what, bool has_address, uintptr_t address);

/* ---- check.c ---------------------------------------------------------------------------- */
/* Checks every live block and every block in quarantine; returns the damaged ones. */
int mt_check_all(uint32_t found_site);

#endif /* MT_API_H */
