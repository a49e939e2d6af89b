/* internal.h - types and cross-file prototypes of libmemtrack, grouped by file.
 *
 * Notes on locking (every lock in the library and what it protects):
 *   - mt_shard_t.lock (table.c): one shard's hash of live blocks, its quarantine, its
 *     record free list and its counters. Held for a lookup, an insert or a removal only
 *     (and the doubling of the shard's buckets); guard checks, the fill of a freed block
 *     and calls into the C library happen outside it. One exception: a block leaving the
 *     quarantine is checked and handed to the C library under the lock, so a second free
 *     racing with it always finds it (in the quarantine, or released: see foreign.c).
 *     Messages found under it are kept and printed when the thread releases its last
 *     mt_lock (see mt_locks_held). A spin-then-yield lock (mt_lock_t below), not a mutex.
 *   - stats.c has no lock: each thread writes only its own slot (see there).
 *   - mt_sites.lock (site.c): creation of new sites. Readers of existing sites take no
 *     lock: a site never moves or changes once published.
 *   - mt_errors.lock (error.c): the error log and the message counters.
 *   - mt_out_lock (output.c): the report stream, so lines of two threads do not mix.
 *   - report_lock (report.c): one report built and written at a time; the suppression
 *     rules (suppress.c). Taken before any other.
 *   - owners.lock (register.c): the list of tracked pools and arenas and the interned
 *     owner names. Pools and arenas themselves have no lock: one thread uses one at a time.
 *   - timeline.lock (timeline.c): the samples; only tried on the allocation path.
 *   - symbols.lock (symbolize.c): libdw (not thread-safe) and the cache of symbols.
 *   - mem.lock (memory.c): the free lists of the tracker's own memory.
 * Lock order: report -> owners -> shard -> sites -> errors -> timeline -> out -> symbols
 * -> mem.
 * No lock is held while calling user code.
 *
 * The tracker never calls itself: its own memory comes from mappings of its own (memory.c),
 * the blocks it hands out from the C library's own entry points (mt_libc_*), its output is formatted in fixed buffers and written with write(2), and a
 * thread-local flag sends any nested call straight to the C library.
 */
#ifndef MT_INTERNAL_H
#define MT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The library sees the whole API (not the drop-in macros, not the no-op versions). */
#define MEMTRACK_INTERNAL
#include "memtrack.h"

/* uthash allocates from the tracker's own memory (memory.c), and its failures are
 * recoverable: every function that adds to a hash declares `bool mt_hash_oom = false;`
 * and checks it. */
void *mt_mem_alloc(size_t size);
void mt_mem_free(void *ptr);
#define uthash_malloc(sz) mt_mem_alloc(sz)
#define uthash_free(ptr, sz) mt_mem_free(ptr)
#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(obj) (mt_hash_oom = true)
#include <uthash.h>

#define MT_LIKELY(x) __builtin_expect(!!(x), 1)
#define MT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define MT_NOINLINE __attribute__((noinline))
#define MT_TLS __thread __attribute__((tls_model("initial-exec")))
#define MT_EXPORT __attribute__((visibility("default")))

/* The report model, its renderers and the formatting buffer (shared with tools/). */
#include "model.h"

/* The alignment malloc gives on this platform; user pointers keep it. */
#define MT_MIN_ALIGN 16u

/* ----------------------------------------------------------------------------------
 * Allocation kinds: how a block was made or released. One table; every printer uses it.
 * X(name, text, family): family is the kind of release that matches the allocation.
 * ---------------------------------------------------------------------------------- */
#define MT_KIND_LIST(X)                                                                  \
    X(MALLOC, "malloc", FREE)                                                            \
    X(CALLOC, "calloc", FREE)                                                            \
    X(REALLOC, "realloc", FREE)                                                          \
    X(REALLOCARRAY, "reallocarray", FREE)                                                \
    X(STRDUP, "strdup", FREE)                                                            \
    X(STRNDUP, "strndup", FREE)                                                          \
    X(ALIGNED_ALLOC, "aligned_alloc", FREE)                                              \
    X(POSIX_MEMALIGN, "posix_memalign", FREE)                                            \
    X(MEMALIGN, "memalign", FREE)                                                        \
    X(VALLOC, "valloc", FREE)                                                            \
    X(NEW, "new", DELETE)                                                                \
    X(NEW_ARRAY, "new[]", DELETE_ARRAY)                                                  \
    X(POOL, "pool", POOL_FREE)                                                           \
    X(ARENA, "arena", ARENA_RELEASE)                                                     \
    X(REGISTERED, "registered", UNREGISTER)                                              \
    X(FREE, "free", NONE)                                                                \
    X(DELETE, "delete", NONE)                                                            \
    X(DELETE_ARRAY, "delete[]", NONE)                                                    \
    X(POOL_FREE, "pool free", NONE)                                                      \
    X(ARENA_RELEASE, "arena release", NONE)                                              \
    X(UNREGISTER, "unregister", NONE)                                                    \
    /* where pool.c, arena.c and register.c find errors (never an allocation's kind) */  \
    X(POOL_ALLOC, "pool alloc", NONE)                                                    \
    X(POOL_CLEAR, "pool clear", NONE)                                                    \
    X(POOL_DESTROY, "pool destroy", NONE)                                                \
    X(POOL_CHECK, "pool check", NONE)                                                    \
    X(ARENA_ALLOC, "arena alloc", NONE)                                                  \
    X(ARENA_RESET, "arena reset", NONE)                                                  \
    X(ARENA_REWIND, "arena rewind", NONE)                                                \
    X(ARENA_DESTROY, "arena destroy", NONE)                                              \
    X(REGISTER, "register", NONE)                                                        \
    X(CHECK, "check", NONE)                                                              \
    X(PERIODIC, "periodic check", NONE)                                                  \
    X(CRASH, "crash report", NONE)                                                       \
    X(EXIT, "exit", NONE)                                                                \
    X(NONE, "?", NONE)

typedef enum {
#define MT_KIND_ENUM(name, text, family) MT_KIND_##name,
    MT_KIND_LIST(MT_KIND_ENUM)
#undef MT_KIND_ENUM
        MT_KIND_COUNT
} mt_kind_t;

extern const char *const mt_kind_names[MT_KIND_COUNT];
extern const unsigned char mt_kind_release[MT_KIND_COUNT];

/* ----------------------------------------------------------------------------------
 * platform.c: the C library underneath, threads, time, process facts.
 * ---------------------------------------------------------------------------------- */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *ptr);

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

#ifndef MT_SANITIZER_ALLOCATOR
#define mt_libc_malloc __libc_malloc
#define mt_libc_calloc __libc_calloc
#define mt_libc_realloc __libc_realloc
#define mt_libc_memalign __libc_memalign
#define mt_libc_free __libc_free
#else
#include <malloc.h>
#include <stdlib.h>
/* The sanitizers' allocator interface (GCC ships no header for it). */
int __sanitizer_get_ownership(const volatile void *p);
size_t __sanitizer_get_allocated_size(const volatile void *p);
/* In parentheses: a test that sees the drop-in macros must still reach the functions. */
#define mt_libc_malloc (malloc)
#define mt_libc_calloc (calloc)
#define mt_libc_realloc (realloc)
#define mt_libc_memalign (memalign)
#define mt_libc_free (free)
#endif
size_t mt_libc_usable_size(void *ptr);

/* Small number of the calling thread (1 for the first thread seen), for reports. */
extern MT_TLS unsigned mt_thread_number;
unsigned mt_thread_number_slow(void);
static inline unsigned mt_thread(void)
{
    return MT_LIKELY(mt_thread_number != 0) ? mt_thread_number : mt_thread_number_slow();
}

/* Nonzero while this thread runs tracker code: nested calls go straight to the C library. */
extern MT_TLS int mt_busy;

/* The shards' lock: taking it is one atomic exchange and releasing it a plain store, where
 * a mutex costs an atomic operation each way (together a quarter of a tracked malloc+free
 * pair). Held for a few hundred instructions at most; a thread that finds it taken spins
 * briefly, then yields the CPU until it is free. Not recursive. */
typedef struct mt_lock {
    atomic_int taken;
} mt_lock_t;
#define MT_LOCK_INIT {0}
void mt_lock_wait(mt_lock_t *l);

/* How many mt_locks this thread holds. While it holds any, error messages are kept and
 * printed when it releases the last one (error.c): printing may look up symbols, which
 * takes the dynamic loader's lock, and a thread inside dlopen holding that lock may be
 * waiting for one of ours. */
extern MT_TLS int mt_locks_held;
extern MT_TLS int mt_messages_pending;
void mt_error_print_pending(void);

static inline void mt_lock(mt_lock_t *l)
{
    if (MT_UNLIKELY(atomic_exchange_explicit(&l->taken, 1, memory_order_acquire) != 0))
        mt_lock_wait(l);
    mt_locks_held++;
}
static inline bool mt_trylock(mt_lock_t *l)
{
    bool taken = atomic_load_explicit(&l->taken, memory_order_relaxed) == 0 &&
                 atomic_exchange_explicit(&l->taken, 1, memory_order_acquire) == 0;
    mt_locks_held += taken;
    return taken;
}
static inline void mt_unlock(mt_lock_t *l)
{
    atomic_store_explicit(&l->taken, 0, memory_order_release);
    if (--mt_locks_held == 0 && MT_UNLIKELY(mt_messages_pending != 0))
        mt_error_print_pending();
}

const char *mt_program_name(void);
/* Anonymous memory straight from the kernel (async-signal-safe); NULL on failure. */
void *mt_pages_alloc(size_t size);
void mt_pages_free(void *ptr, size_t size);
/* Makes pages inaccessible (a guard page in front of the tracker's own mappings). */
void mt_pages_protect_none(void *ptr, size_t size);

/* ----------------------------------------------------------------------------------
 * memory.c: the tracker's own memory, in mappings of its own (never the C library's heap,
 * where the program's overruns and stray frees could reach it). malloc's interface.
 * ---------------------------------------------------------------------------------- */
void *mt_mem_calloc(size_t count, size_t size);
void *mt_mem_realloc(void *ptr, size_t size);
void mt_mem_lock_all(void);
void mt_mem_unlock_all(void);

/* ----------------------------------------------------------------------------------
 * options.c: the one options table.
 * X(name, type, default, help)
 * ---------------------------------------------------------------------------------- */
#define MT_OPTION_LIST(X)                                                                \
    X(guard, SIZE, "16", "bytes of guard before and after each block; 0 turns guards off") \
    X(report, STRING, "stderr",                                                          \
      "where reports and messages go: stderr, stdout or a file path (%p is the pid)")    \
    X(quiet, BOOL, "0", "print nothing: no report and no messages (exit status still tells)") \
    X(verbose, BOOL, "0",                                                                \
      "print a one-line summary for a clean run, and the options in effect at start")    \
    X(exitcode, INT, "-1",                                                               \
      "exit status when leaks or errors were found; -1 leaves the program's status")     \
    X(leaks, BOOL, "1", "report leaks at exit (0: report errors only)")                  \
    X(report_sites, COUNT, "30", "leak sites listed in the report; the rest are summed")  \
    X(report_seqs, COUNT, "5", "sequence numbers listed per leak site")                   \
    X(max_messages, COUNT, "20",                                                          \
      "messages printed per kind of error and site; the rest are counted")               \
    X(json, STRING, "", "at exit, write the report as JSON to this file (%p is the pid)")     \
    X(sarif, STRING, "",                                                                  \
      "at exit, write leaks and errors as SARIF 2.1.0 to this file (%p is the pid)")     \
    X(html, STRING, "",                                                                   \
      "at exit, write the report as one self-contained HTML page (%p is the pid)")       \
    X(suppressions, STRING, "",                                                           \
      "file of rules (file:, function:, site:, module:) whose leaks are left out")       \
    X(timeline, BOOL, "1", "sample live bytes and blocks over the run for the report")   \
    X(track_all, BOOL, "0",                                                               \
      "also track blocks made by code built without memtrack, sited by return address")  \
    X(system_leaks, BOOL, "0",                                                            \
      "with track_all: also list blocks made inside system libraries")                   \
    X(symbolize, BOOL, "1",                                                              \
      "turn code addresses into file:line from the debug information (libdw)")           \
    /* issue 3: catching heap corruption (quarantine.c, foreign.c, crash.c) */           \
    X(quarantine, SIZE, "1m",                                                            \
      "bytes of freed blocks each heap shard keeps before giving them back; 0: none")    \
    X(fill_new, BOOL, "1", "fill new blocks (not calloc) with 0xCD")                     \
    X(fill_freed, BOOL, "1",                                                             \
      "fill freed blocks with 0xDD and check them for writes after free")                \
    X(unwritten, BOOL, "0",                                                              \
      "report per site the share of freed bytes never written (needs fill_new)")         \
    X(realloc_moves, BOOL, "1", "realloc always moves the block (0: resize in place when it fits)") \
    X(abort_on_error, BOOL, "0", "abort (core dump, debugger) right after the first error") \
    X(break_on, COUNT, "0", "raise SIGTRAP when allocation number N is made (0: never)")  \
    X(check_every, COUNT, "0", "check every live block every N allocations and frees (0: never)") \
    X(crash_report, BOOL, "1",                                                           \
      "on SIGSEGV, SIGBUS or SIGABRT, print the heap's state before the default action") \
    X(test_fail_storage, COUNT, "0",                                                     \
      "testing only: the Nth and later allocations of record storage fail (0: never)")   \
    X(help, BOOL, "0", "print every option with its default and meaning, then go on")

typedef enum { MT_OPT_BOOL, MT_OPT_INT, MT_OPT_SIZE, MT_OPT_COUNT, MT_OPT_STRING } mt_option_type_t;

#define MT_OPTION_STRING_MAX 1024

typedef struct mt_options {
#define MT_OPTION_FIELD_BOOL int
#define MT_OPTION_FIELD_INT long
#define MT_OPTION_FIELD_SIZE size_t
#define MT_OPTION_FIELD_COUNT size_t
#define MT_OPTION_FIELD_STRING char *
#define MT_OPTION_FIELD(name, type, def, help) MT_OPTION_FIELD_##type name;
    MT_OPTION_LIST(MT_OPTION_FIELD)
#undef MT_OPTION_FIELD
} mt_options_t;

extern mt_options_t mt_opt;
/* Read MEMTRACK_OPTIONS once (idempotent). Warnings go to stderr. */
void mt_options_init(void);
/* Parse "k=v:k=v" from `source` (a name used in warnings); returns bad entry count. */
int mt_options_parse(const char *text, const char *source);
void mt_options_print_help(void);
/* The options in effect, for the report: count, name, type and value. */
size_t mt_option_count(void);
const char *mt_option_name(size_t i);
mt_option_type_t mt_option_type(size_t i);
void mt_buf_option_value(mt_buf_t *b, size_t i);
/* Set once the first block is made: options that shape blocks can no longer change. */
extern atomic_bool mt_options_frozen;

/* ----------------------------------------------------------------------------------
 * output.c: the report stream. The formatting buffer (mt_buf_*) is declared in model.h.
 * ---------------------------------------------------------------------------------- */
/* The descriptor reports and messages go to (opened on first use); -1 when quiet. */
int mt_out_fd(void);
void mt_out_lock(void);
void mt_out_unlock(void);
void mt_out_after_fork_child(void);
void mt_out_reopen(void);
/* Expands "%p" in path to the pid into dst; false when it does not fit. */
bool mt_expand_path(const char *path, char *dst, size_t cap);

/* ----------------------------------------------------------------------------------
 * site.c: where blocks are made and released, interned to small ids.
 * ---------------------------------------------------------------------------------- */
typedef struct mt_site {
    const char *file;  /* NULL when only the caller's address is known */
    const char *func;  /* may be NULL */
    const char *owner; /* pool, arena or registrar name, or NULL */
    void *pc;          /* caller's return address for sites without a file */
    int line;
    mt_kind_t kind;
} mt_site_t;

#define MT_SITE_NONE 0u /* id 0: an unknown site */
uint32_t mt_site_id(const char *file, int line, const char *func, mt_kind_t kind,
                    const char *owner);
uint32_t mt_site_pc(void *pc, mt_kind_t kind);
/* A site known by the caller's address, with an owner (a pool used by untracked code). */
uint32_t mt_site_pc_owner(void *pc, mt_kind_t kind, const char *owner);
const mt_site_t *mt_site_get(uint32_t id);
uint32_t mt_site_count(void);
/* Writes "file:line in func()" or "0x... in func (module)". */
void mt_buf_site(mt_buf_t *b, uint32_t id);
/* True when two sites print the same (same file, line, function, kind and owner). */
bool mt_site_same(uint32_t a, uint32_t b);
void mt_sites_lock_all(void);
void mt_sites_unlock_all(void);

/* ----------------------------------------------------------------------------------
 * symbolize.c: return addresses into function, file and line (libdw, opened lazily).
 * ---------------------------------------------------------------------------------- */
typedef struct mt_symbol {
    const char *file;   /* relative to its compilation directory when inside it; NULL when
                           there is no line information (no -g, no libdw) */
    int line;
    const char *func;   /* the function at file:line (an inlined one when the code was
                           inlined), else the symbol; NULL when unknown */
    const char *symbol; /* the symbol around pc, from the symbol tables, or NULL */
    uintptr_t offset;   /* pc - symbol's address */
    const char *module; /* file name of the object (program or library), or NULL */
} mt_symbol_t;
/* Function names are demangled when the program has the C++ runtime, and shown without
 * their parameters, as __func__ names them. */

/* Describes the return address pc (the call is the instruction before it); true when a
 * symbol or a file was found. Strings stay valid for the life of the process. Lazy
 * (libdw is opened at the first call) and cached by pc; never allocates through the
 * tracker. Not async-signal-safe. Option symbolize=0 keeps it to the symbol tables. */
bool mt_symbolize(void *pc, mt_symbol_t *out);
void mt_symbols_lock_all(void);
void mt_symbols_unlock_all(void);

/* ----------------------------------------------------------------------------------
 * table.c: live blocks in a doubly linked hash (uthash) keyed on the user address.
 * ---------------------------------------------------------------------------------- */
typedef struct mt_block {
    /* uthash: bucket chain, insertion-order list; hh.key is the user address itself (it is
     * never dereferenced: see HASH_KEYCMP in table.c), which saves a field. In the free
     * list of records, hh.next links the records. */
    UT_hash_handle hh;
    size_t size;       /* requested size */
    uint64_t meta;     /* sequence number, thread, alignment, flags: see MT_META_* */
    uint32_t site;     /* where it was allocated (or last reallocated) */
    uint32_t free_site;/* where it was released (blocks in quarantine) */
} mt_block_t;

/* The address the user sees, the block's key. */
static inline uintptr_t mt_block_addr(const mt_block_t *b)
{
    return (uintptr_t)b->hh.key;
}

static inline void mt_block_set_addr(mt_block_t *b, uintptr_t addr)
{
    b->hh.key = (const void *)addr;
}

#define MT_SEQ_BITS 40
#define MT_META_SEQ(m) ((m) & ((UINT64_C(1) << MT_SEQ_BITS) - 1))
#define MT_META_THREAD(m) ((unsigned)(((m) >> MT_SEQ_BITS) & 0xffffu))
#define MT_META_ALIGN_SHIFT(m) ((unsigned)(((m) >> 56) & 0x1fu)) /* alignments to 2^31 */
#define MT_META_FLAG_REPORTED (UINT64_C(1) << 62) /* its damage was reported */
#define MT_META_FLAG_OWNED (UINT64_C(1) << 63) /* a pool's, an arena's or a registrar's */
/* In quarantine, still being checked and filled by the thread that freed it: nobody else
 * may check or release it yet. Cleared with an atomic store; read with mt_meta_load(). */
#define MT_META_FLAG_PENDING (UINT64_C(1) << 61)
#define MT_META_MAKE(seq, thread, align_shift)                                           \
    (((uint64_t)(seq) & ((UINT64_C(1) << MT_SEQ_BITS) - 1)) |                            \
     ((uint64_t)((thread) & 0xffffu) << MT_SEQ_BITS) | ((uint64_t)((align_shift) & 0x1fu) << 56))

#define MT_SHARD_COUNT 16u
#define MT_TABLE_INITIAL_BUCKETS 1024u

typedef struct mt_shard {
    mt_lock_t lock;
    mt_block_t *live;         /* uthash head of the live blocks; NULL when none */
    mt_block_t *free_records; /* records ready for reuse, linked through hh.next */
    size_t records_made;
    mt_block_t *quarantine;   /* uthash head of the freed blocks held back (quarantine.c),
                                 in the order they were freed: the oldest first */
    size_t quarantine_bytes;  /* what they hold (mt_quarantine_cost of each) */
} __attribute__((aligned(64))) mt_shard_t; /* shards do not share cache lines */

extern mt_shard_t mt_shards[MT_SHARD_COUNT];

/* The shard that owns an address: blocks of one glibc arena (64 MiB aligned heaps, one
 * per thread) fall in one shard, so threads rarely wait on each other's locks. */
static inline mt_shard_t *mt_shard_of(uintptr_t addr)
{
    uint64_t region = (uint64_t)addr >> 26;
    region *= UINT64_C(0x9E3779B97F4A7C15);
    return &mt_shards[region >> 60];
}

/* The bucket uthash uses for addr in a shard of `buckets` buckets (a power of two). */
unsigned mt_table_bucket_of(uintptr_t addr, unsigned buckets);

mt_block_t *mt_record_new_locked(mt_shard_t *s);
void mt_record_recycle_locked(mt_shard_t *s, mt_block_t *b);
/* Returns false (and recycles nothing) when the table could not be made. */
bool mt_table_insert_locked(mt_shard_t *s, mt_block_t *b);
/* Records a new live block (takes its shard's lock); false when there is no room. */
bool mt_table_track(uintptr_t user, size_t size, uint64_t meta, uint32_t site);
mt_block_t *mt_table_find_locked(mt_shard_t *s, uintptr_t addr);
void mt_table_remove_locked(mt_shard_t *s, mt_block_t *b);
/* The quarantine's hash (same key, same index); its insertion order is the FIFO
 * (quarantine.c keeps the budget). insert is false when the hash cannot grow. */
bool mt_quarantine_insert_locked(mt_shard_t *s, mt_block_t *b);
mt_block_t *mt_quarantine_find_locked(mt_shard_t *s, uintptr_t addr);
/* The oldest block in quarantine, or NULL; and its removal (from hash and FIFO). */
mt_block_t *mt_quarantine_oldest_locked(mt_shard_t *s);
void mt_quarantine_remove_oldest_locked(mt_shard_t *s);
/* Calls fn for every live block, shard by shard, each under its lock; fn must not add
 * or remove blocks. Within a shard the order is the allocations'. In the crash handler
 * (mt_in_crash) a shard whose lock is taken is skipped and counted. */
void mt_table_foreach(void (*fn)(mt_block_t *b, void *ctx), void *ctx);
/* The same for the blocks in quarantine, oldest first (pending ones included: see
 * MT_META_FLAG_PENDING); fn must not add or remove blocks. */
void mt_quarantine_foreach(void (*fn)(mt_shard_t *s, mt_block_t *b, void *ctx), void *ctx);
/* Shards the crash handler found locked and skipped. */
extern atomic_uint mt_shards_skipped;
void mt_table_lock_all(void);
void mt_table_unlock_all(void);
/* Table shape, for tests and the benchmark. */
typedef struct mt_table_shape {
    size_t items, buckets, max_chain;
    size_t noexpand_shards; /* shards where uthash stopped expanding */
    double mean_visits;     /* mean records visited to find a live block */
} mt_table_shape_t;
void mt_table_shape(mt_table_shape_t *out);

/* ----------------------------------------------------------------------------------
 * guard.c: block layout, guard bytes and fill patterns.
 * ---------------------------------------------------------------------------------- */
#define MT_GUARD_BYTE 0xFDu /* "fence": around every block */
#define MT_ALLOC_FILL_BYTE 0xCDu /* "clean": new blocks, not calloc */

typedef struct mt_guard_damage {
    size_t changed; /* guard bytes that differ from the pattern */
    size_t extent;  /* how far from the block the farthest changed byte lies */
} mt_guard_damage_t;

/* Bytes before the user pointer for this alignment (a multiple of the alignment). */
size_t mt_front_size(size_t guard, size_t align);
void mt_guard_fill(unsigned char *user, size_t size, size_t front, size_t back);
/* Counts the bytes of [p, p+n) that differ from `byte`; *first gets the first one's index. */
size_t mt_pattern_check(const unsigned char *p, size_t n, unsigned char byte, size_t *first);
/* Fills in *under and *over; returns true when either guard was changed. */
bool mt_guard_check(const unsigned char *user, size_t size, size_t front, size_t back,
                    mt_guard_damage_t *under, mt_guard_damage_t *over);
/* The C++ cookie slot: the last bytes of the front guard of a scalar operator new block
 * are zero, so a mismatched delete[] reads an element count of 0 (see guard.c). */
#define MT_COOKIE_SLOT 8u
void mt_guard_clear_cookie(unsigned char *user, size_t front);
/* Recomputes the front damage of such a block, its cookie slot expected zero. */
void mt_guard_recheck_cookie(const unsigned char *user, size_t front, mt_guard_damage_t *under);

/* ----------------------------------------------------------------------------------
 * error.c: heap errors, printed when found and kept for the report.
 * ---------------------------------------------------------------------------------- */
#define MT_ERROR_LIST(X)                                                                 \
    X(OVERRUN, "overrun")                                                                \
    X(UNDERRUN, "underrun")                                                              \
    /* pools, arenas and registered blocks (pool.c, arena.c, register.c) */              \
    X(POOL_DOUBLE_RELEASE, "pool double release")                                        \
    X(POOL_INTERIOR_RELEASE, "pool release of an interior pointer")                      \
    X(POOL_FOREIGN_RELEASE, "pool release of a foreign pointer")                         \
    X(POOL_WRITE_AFTER_RELEASE, "pool write after release")                              \
    X(POOL_LIVE_AT_DESTROY, "pool destroyed with live objects")                          \
    X(ARENA_WRITE_AFTER_RELEASE, "arena write after release")                            \
    X(ARENA_BAD_MARK, "arena rewind to a bad mark")                                      \
    X(OWNED_FREE, "free of pool, arena or registered memory")                            \
    X(REGISTER_CONFLICT, "register over a live block")                                   \
    X(UNREGISTER_UNKNOWN, "unregister of an unknown block")                              \
    X(UNREGISTER_OWNER, "unregister by another owner")                                   \
    MT_ERROR_LIST_CXX(X)                                                                 \
    /* issue 3: freed blocks and pointers the tracker never made */                      \
    X(DOUBLE_FREE, "double free")         /* also realloc of a freed block */            \
    X(WRITE_AFTER_FREE, "write after free")                                              \
    X(INVALID_FREE, "invalid free")       /* free or realloc of a pointer: see what */

/* A block released by the wrong family: new[] by delete, new by free... (mismatch.c);
 * a sized delete given another size than the block's (the object deleted through a base
 * class without a virtual destructor): its error's extent is the size given. */
#define MT_ERROR_LIST_CXX(X)                                                             \
    X(MISMATCH, "mismatch")                                                              \
    X(DELETE_SIZE, "delete size")

typedef enum {
#define MT_ERROR_ENUM(name, text) MT_ERROR_##name,
    MT_ERROR_LIST(MT_ERROR_ENUM)
#undef MT_ERROR_ENUM
        MT_ERROR_COUNT
} mt_error_kind_t;

extern const char *const mt_error_names[MT_ERROR_COUNT];

typedef struct mt_error {
    mt_error_kind_t kind;
    uintptr_t addr;      /* the block (or pointer) involved */
    size_t size;         /* the block's requested size */
    uint64_t seq;        /* the block's sequence number, 0 if none */
    unsigned thread;     /* the thread that allocated it, 0 if unknown */
    uint32_t alloc_site; /* where the block was allocated */
    uint32_t free_site;  /* where it was first released, when that matters */
    uint32_t found_site; /* where the error was found (a free, a check, exit) */
    size_t changed;      /* bytes found changed */
    size_t extent;       /* bytes past the end / before the start reached; write after
                            free: one past the last changed byte */
    int64_t offset;      /* pool and arena errors: where, from the block's start; write
                            after free: the first changed byte; invalid free inside a
                            block: the pointer minus the block's start */
    /* issue 3 */
    uintptr_t pointer;   /* invalid free: the pointer the program passed */
    unsigned what;       /* invalid free: what the pointer is (mt_pointer_class_t) */
} mt_error_t;

/* What a pointer released by tracked code turned out to be (foreign.c). For INSIDE_LIVE
 * and INSIDE_FREED the error's block fields name the block it points into. */
#define MT_POINTER_CLASS_LIST(X)                                                         \
    X(UNKNOWN, "a pointer")                                                              \
    X(INSIDE_LIVE, "a pointer inside a block")                                           \
    X(INSIDE_FREED, "a pointer inside a freed block")                                    \
    X(STACK, "a stack address")                                                          \
    X(STATIC, "a static address")                                                        \
    X(WILD, "a wild pointer")                                                            \
    X(NOT_HEAP, "an address the C library did not allocate")                             \
    X(RELEASED, "a block the C library already has back")

typedef enum {
#define MT_POINTER_ENUM(name, text) MT_POINTER_##name,
    MT_POINTER_CLASS_LIST(MT_POINTER_ENUM)
#undef MT_POINTER_ENUM
        MT_POINTER_COUNT
} mt_pointer_class_t;

extern const char *const mt_pointer_class_names[MT_POINTER_COUNT];

/* Records and prints (within the message cap) one error; with abort_on_error, aborts. */
void mt_error_report(const mt_error_t *e);
/* True while messages for (kind, site) are still printed: work done only to make a message
 * better (classifying a pointer) is skipped once the cap is reached. */
bool mt_error_will_print(mt_error_kind_t kind, uint32_t site);
/* (kind, site) pairs whose messages passed the cap, with how many were not printed, most
 * first; returns how many (at most max). */
typedef struct mt_capped {
    mt_error_kind_t kind;
    uint32_t site;
    uint64_t count;
} mt_capped_t;
size_t mt_error_not_printed(mt_capped_t *out, size_t max);
/* Tests observe every error here (called before printing, outside any shard lock only on
 * the free path). NULL by default. */
extern void (*mt_error_observer)(const mt_error_t *e);
size_t mt_error_total(void);
size_t mt_error_count(mt_error_kind_t kind);
#define MT_ERROR_LOG_MAX 1024
/* Copies up to max logged errors into out; returns how many. */
size_t mt_error_log(mt_error_t *out, size_t max);
void mt_errors_lock_all(void);
void mt_errors_unlock_all(void);

/* ----------------------------------------------------------------------------------
 * cxx_blocks.c: the tracker's side of the C++ operators. Its interface with cxx.cpp is
 * cxx_glue.h (C and C++); the opt-in macros call memtrack_cxx_new_site() and
 * memtrack_cxx_delete_site() (memtrack.h).
 * ---------------------------------------------------------------------------------- */

/* ----------------------------------------------------------------------------------
 * mismatch.c: releases of the wrong family (new[] by delete, malloc by delete...).
 * ---------------------------------------------------------------------------------- */
/* True when a block made at alloc_site must not be released the way release_site does. */
bool mt_release_mismatched(uint32_t alloc_site, uint32_t release_site);
/* Reports a mismatched release of b (an error naming both sites); the caller still
 * releases the block. */
void mt_check_release(const mt_block_t *b, uint32_t release_site);
/* Reports a sized delete of b given `size` bytes when it holds another size (and the
 * release is not already a mismatch). */
void mt_check_delete_size(const mt_block_t *b, uint32_t release_site, size_t size);

/* ----------------------------------------------------------------------------------
 * stats.c: counters.
 * ---------------------------------------------------------------------------------- */
void mt_stats_alloc(size_t size);
void mt_stats_free(size_t size);
void mt_stats_failed(void);
void mt_stats_read(memtrack_stats_t *out);
uint64_t mt_next_seq(void);
/* The sequence number the next block will get. */
uint64_t mt_seq_upcoming(void);

/* ----------------------------------------------------------------------------------
 * tracker.c: the entry points and the process lifecycle.
 * ---------------------------------------------------------------------------------- */
void mt_init(void);
extern atomic_int mt_state; /* 0 not started, 1 running, 2 reported at exit */
/* Allocate a tracked block; align 0 means malloc's. Sets errno and returns NULL on failure. */
void *mt_alloc(size_t size, size_t align, uint32_t site, bool zero);
/* Release a block; from_tracked is false when the caller was built without the header. */
void mt_free(void *ptr, uint32_t site, bool from_tracked);
void *mt_realloc(void *ptr, size_t size, uint32_t site, bool from_tracked);
/* Releases ptr if it is a live tracked block and returns true; a block in quarantine is a
 * double free (reported, true); otherwise does nothing and returns false. size, when not
 * 0, is what a sized delete says the block holds (checked). Not for nested calls
 * (mt_busy): it takes the block's lock. */
bool mt_free_known(void *ptr, uint32_t site, size_t size);
/* Checks the guards of one live block; reports damage once per block. Caller holds its lock. */
int mt_check_block_locked(mt_block_t *b, uint32_t found_site);
/* Checks every live block; returns the number of damaged blocks. */
int mt_check_all(uint32_t found_site);
/* The guard bytes every block gets (option `guard`), fixed once the first block is made. */
size_t mt_guard_size(void);

/* ----------------------------------------------------------------------------------
 * report.c: builds the report model (model.h) and writes the reports.
 * ---------------------------------------------------------------------------------- */
/* Builds the model of the live blocks allocated at or after sequence number `since`
 * (1: all), the error log, the timeline and the options. Never allocates through the
 * tracker: the arrays live in one mapping, released by mt_report_free. */
bool mt_report_build(mt_report_t *r, mt_when_t when, uint64_t since);
void mt_report_free(mt_report_t *r);
void mt_report_at_exit(void);
/* Around fork, so a child never inherits a report being built. */
void mt_report_lock(void);
void mt_report_unlock(void);

/* ----------------------------------------------------------------------------------
 * place.c: what a report shows of a site.
 * ---------------------------------------------------------------------------------- */
/* Fills *out for site id; returns true when the site lies inside a system library (the C
 * library, the loader, libmemtrack: see place.c), which only address-only sites can. */
bool mt_place_of(uint32_t id, mt_place_t *out);

/* ----------------------------------------------------------------------------------
 * timeline.c: live bytes and blocks sampled over the run.
 * ---------------------------------------------------------------------------------- */
#define MT_TIMELINE_MAX 1024u
/* stats.c samples when an allocation or free count n has (n & mt_timeline_mask) == 0. */
extern _Atomic uint64_t mt_timeline_mask;
void mt_timeline_sample(void);
/* Live bytes reached a new peak (stats.c, when it raised peak_bytes). */
void mt_timeline_peak(uint64_t bytes, uint64_t blocks, uint64_t event);
/* Copies the samples, then one for now, into out; *peak gets the highest point. */
size_t mt_timeline_copy(mt_sample_t *out, size_t max, mt_sample_t *peak);
/* Around fork, so a child never inherits the samples' lock taken. */
void mt_timeline_lock(void);
void mt_timeline_unlock(void);

/* ----------------------------------------------------------------------------------
 * suppress.c: suppression rules (option suppressions). Caller holds the report lock.
 * ---------------------------------------------------------------------------------- */
/* Loads the rules when the option changed; returns how many there are. */
size_t mt_suppress_count(void);
const char *mt_suppress_rule(size_t i);
/* The first rule that matches p, or -1. */
long mt_suppress_match(const mt_place_t *p);

/* ----------------------------------------------------------------------------------
 * register.c: blocks whose memory a pool, an arena or the program's own allocator owns.
 * Their records sit in the table like malloc'd blocks (same report, same statistics, same
 * guard checks), flagged MT_META_FLAG_OWNED: free() and realloc() report them instead of
 * handing them to the C library. pool.c and arena.c reach the tracker only through these
 * functions (and mt_site_*, mt_error_report, mt_guard_*), never through its variables:
 * test/e2e/pool_nocalls.sh links their untracked paths with every one of them aborting.
 * ---------------------------------------------------------------------------------- */
#define MT_RELEASED_BYTE 0xDDu /* "dead": released pool slots and arena bytes */

/* True for the kinds of sites that make owned blocks. */
static inline bool mt_kind_owned(mt_kind_t kind)
{
    return kind == MT_KIND_POOL || kind == MT_KIND_ARENA || kind == MT_KIND_REGISTERED;
}
/* False for registered blocks: their bytes are the registrar's, with no guards around. */
bool mt_block_guarded(const mt_block_t *b);

/* Starts tracking [user, user + size), laid out as guard.c draws it for `align` (guards
 * already filled by the caller). site must be of an owned kind. *seq gets the block's
 * sequence number. Returns false, tracking nothing, when the table is out of memory or
 * the caller runs inside the tracker (a signal handler). */
bool mt_owned_insert(const void *user, size_t size, size_t align, uint32_t site,
                     uint64_t *seq);
/* Stops tracking the owned block at user: checks its guards (damage is reported as found
 * at found_site) and takes its record out; *out gets a copy. False if there is none. */
bool mt_owned_remove(const void *user, uint32_t found_site, mt_block_t *out);
/* Checks the guards of the owned block at user now (damage reported once); returns 1 if
 * they are damaged. */
int mt_owned_check(const void *user, uint32_t found_site);
/* Copies the record of any live tracked block starting at addr. */
bool mt_block_peek(const void *addr, mt_block_t *out);
/* free(), realloc() or delete of an owned block (b, a copy of its record): reported, and
 * the block stays as it was. */
void mt_owned_misuse(const mt_block_t *b, uint32_t found_site);
/* Interned copy of an owner name (pool, arena, registrar), never freed, so sites and
 * reports can keep it after the pool is gone. NULL stays NULL; "?" if out of memory. */
const char *mt_owner_intern(const char *name);
/* The site of a call into a pool or an arena: file and line when the macros gave them,
 * else the caller's address. */
uint32_t mt_owned_site(const char *file, int line, const char *func, void *pc,
                       mt_kind_t kind, const char *owner);
/* Fills the error's block fields from a record copy. */
void mt_error_from_block(mt_error_t *e, const mt_block_t *b);

/* Tracked pools and arenas, so the exit-time check can look at their released memory. */
typedef struct mt_owner {
    struct mt_owner *next, *prev;
    /* Checks released memory still holds its pattern; returns problems found. Runs with
     * owners.lock held, from the exit-time check only. */
    int (*check)(struct mt_owner *self, uint32_t found_site);
    /* True when addr lies in the allocator's memory (live or not). With owners.lock. */
    bool (*contains)(struct mt_owner *self, uintptr_t addr);
    const char *name; /* interned */
    mt_kind_t kind;   /* MT_KIND_POOL or MT_KIND_ARENA */
    bool listed;      /* added and not removed yet */
} mt_owner_t;
void mt_owner_add(mt_owner_t *o);
void mt_owner_remove(mt_owner_t *o);
/* free() or realloc() by tracked code of a pointer the tracker does not know: when it
 * lies in a tracked pool's or arena's memory (a stale pointer), reports it and returns
 * true, and the caller leaves it alone. */
bool mt_owned_memory_misuse(const void *ptr, uint32_t found_site);
/* Runs every registered check; returns the problems found. */
int mt_owners_check(uint32_t found_site);
void mt_owners_lock_all(void);
void mt_owners_unlock_all(void);

/* ==================================================================================
 * issue 3: catching what corrupts a heap.
 * ================================================================================== */

/* ---- tracker.c: block layout fixed when the first block is made --------------------- */
extern bool mt_fill_new;   /* option fill_new, frozen */
extern bool mt_fill_freed; /* option fill_freed, frozen */
/* Bytes of guard before the user pointer (for an alignment of 1 << align_shift) and after
 * the block; the pointer the C library gave. */
size_t mt_block_front(unsigned align_shift);
size_t mt_block_back(void);
static inline unsigned char *mt_block_raw(uintptr_t addr, uint64_t meta)
{
    return (unsigned char *)addr - mt_block_front(MT_META_ALIGN_SHIFT(meta));
}

/* ---- guard.c: fill patterns, a word at a time -------------------------------------- */
#define MT_FREE_FILL_BYTE 0xDDu /* "dead": freed blocks in quarantine */
/* Fills [p, p+n) with `fill` and returns how many of its bytes were `counted` before. */
size_t mt_fill_counting(unsigned char *p, size_t n, unsigned char fill, unsigned char counted);
size_t mt_count_byte(const unsigned char *p, size_t n, unsigned char byte);
/* Counts the bytes of [p, p+n) that differ from `byte`, with the first and last offsets. */
size_t mt_pattern_scan(const unsigned char *p, size_t n, unsigned char byte, size_t *first,
                       size_t *last);

/* ---- quarantine.c: freed blocks held back to catch double frees and late writes ----- */
static inline uint64_t mt_meta_load(const mt_block_t *b)
{
    return __atomic_load_n(&b->meta, __ATOMIC_ACQUIRE);
}
/* What a freed block counts against the quarantine budget: all it holds from the C
 * library (guards included), at least 16 bytes so empty blocks count too. */
size_t mt_quarantine_cost(size_t size, unsigned align_shift);
/* Puts a block just taken out of the live table into quarantine as pending. False when it
 * does not fit the budget or the hash cannot grow: the caller releases it at once. */
bool mt_quarantine_put_locked(mt_shard_t *s, mt_block_t *b, size_t budget);
/* Releases the oldest non-pending blocks while the shard holds more than `budget`. Blocks
 * found written after free are described in errs[0..max) for the caller to report once
 * the lock is released; returns how many. Stops early when errs is full. */
#define MT_EVICT_REPORTS 8u
size_t mt_quarantine_evict_locked(mt_shard_t *s, size_t budget, uint32_t site,
                                  mt_error_t *errs, size_t max);
/* The freeing thread's part, outside the lock: fill the block (counting bytes never
 * written), then end its pending state so it may leave the quarantine. */
void mt_quarantine_fill_and_publish(mt_block_t *b, const mt_block_t *copy);
/* Releases every quarantined block (out of memory); returns bytes given back. */
size_t mt_quarantine_drain(uint32_t site);
/* Checks every block in quarantine for writes after free, reporting each damaged block
 * once; returns how many were damaged (memtrack_check, the exit-time check). */
int mt_quarantine_check_all(uint32_t site);
/* Fills e for a double free of the quarantined block copy, found at site. */
void mt_error_double_free(const mt_block_t *copy, uint32_t site);

/* ---- foreign.c: pointers the tracker never made ------------------------------------ */
/* Copies n bytes at addr into out through the kernel: never faults. False if unreadable. */
bool mt_probe_read(uintptr_t addr, void *out, size_t n);
/* True when ptr is plausibly the start of a block the C library made and still lends out,
 * so handing it to the C library's free or realloc cannot crash. Otherwise *why says what
 * it is as far as the cheap checks tell (WILD, NOT_HEAP, RELEASED). */
bool mt_foreign_is_libc_block(const void *ptr, mt_pointer_class_t *why);
/* Describes a bad pointer released by tracked code for an INVALID_FREE error: points
 * inside a tracked block (live or freed; names it), stack, static, or `why`. The table
 * scan behind "inside a block" is skipped when detailed is false. */
void mt_foreign_describe(const void *ptr, mt_pointer_class_t why, bool detailed,
                         mt_error_t *e);

/* ---- crash.c: the report on a fatal signal ------------------------------------------ */
/* Nonzero in the thread running the crash handler: locks are only tried, nothing waits. */
extern MT_TLS int mt_in_crash;
void mt_crash_install(void);
/* report.c: renders the live blocks for the crash report; false when it could not. */
bool mt_report_crash_text(int fd);
/* abort_on_error is about to abort: the SIGABRT is ours, no crash report for it. */
void mt_crash_expect_abort(void);

/* ---- unwritten.c: bytes never written, per allocation site ------------------------- */
typedef struct mt_unwritten_site {
    uint32_t site;
    uint64_t blocks;    /* blocks freed (not calloc) */
    uint64_t bytes;     /* their bytes */
    uint64_t unwritten; /* of which still held the new-block fill when freed */
} mt_unwritten_site_t;
void mt_unwritten_add(uint32_t site, size_t bytes, size_t unwritten);
/* Sites with counted bytes, most unwritten bytes first; returns how many (at most max). */
size_t mt_unwritten_collect(mt_unwritten_site_t *out, size_t max);

#endif /* MT_INTERNAL_H */
