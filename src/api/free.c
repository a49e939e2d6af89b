/* free.c - releasing and resizing tracked blocks: a pointer is looked up once, under its
 * shard's lock; a live block goes to the quarantine (or back to the C library), a freed
 * one is a double free, a pool's is reported, and one the tracker never made goes back to
 * the C library only when it surely made it (checks/foreign.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "api/api.h"
#include "api/owned.h"
#include "checks/foreign.h"
#include "checks/mismatch.h"
#include "checks/page_guard.h"
#include "checks/quarantine.h"
#include "checks/unwritten.h"
#include "records/stats.h"

/* ---- finding a pointer ---------------------------------------------------------------- */

/* A copy of a quarantined record, its meta as loaded once (mt_meta_load: it may change under
 * us, the pending flag). */
static void copy_freed(const mt_block_t *b, uint64_t meta, mt_block_t *out)
{
    out->hh.key = b->hh.key;
    out->size = b->size;
    out->meta = meta & ~(MT_META_FLAG_PENDING | MT_META_FLAG_FREED);
    out->site = b->site;
    out->free_site = b->free_site;
}

/* A copy of a live record: what the checks and reports read, as copy_freed's (the table's
 * links stay behind). */
static inline void copy_live(const mt_block_t *b, mt_block_t *out)
{
    out->hh.key = b->hh.key;
    out->size = b->size;
    out->meta = b->meta;
    out->site = b->site;
    out->free_site = b->free_site;
}

/* Copies the record of a live or freed tracked block without changing anything. */
mt_found_t mt_peek_block(const void *ptr, mt_block_t *out)
{
    mt_shard_t *s = mt_shard_of((uintptr_t)ptr);
    mt_found_t found = MT_FOUND_NONE;
    mt_lock(&s->lock);
    mt_block_t *b = mt_table_lookup_locked(s, (uintptr_t)ptr);
    if (b != NULL && !(mt_meta_load(b) & MT_META_FLAG_FREED)) {
        *out = *b;
        found = MT_FOUND_LIVE;
    } else if (b != NULL) {
        copy_freed(b, mt_meta_load(b), out);
        found = MT_FOUND_FREED;
    }
    mt_unlock(&s->lock);
    return found;
}

/* The site of a release known only by its caller's address, with the stack of its call:
 * the entry point's frame is still there (it called release, which holds the shard). */
static MT_NOINLINE uint32_t site_by_caller(void *pc, void *frame, mt_kind_t kind)
{
    return mt_site_pc_stacked(pc, kind, NULL, mt_stack_here_in_shard(frame, pc));
}

static inline uint32_t site_of(mt_free_site_t *f)
{
    if (MT_UNLIKELY(f->id == MT_SITE_NONE) && f->pc != NULL)
        f->id = site_by_caller(f->pc, f->frame, f->kind);
    return f->id;
}

/* ---- releasing -------------------------------------------------------------------------- */

/* The reports of blocks the quarantine shed, written after free. Out of line: a loop the
 * free keeps no counter for. */
static MT_NOINLINE void report_late(const mt_error_t *late, size_t nlate)
{
    for (size_t i = 0; i < nlate; i++)
        mt_error_report(&late[i]);
}

/* A live block's release, its lock released: the checks of the free (the size a sized delete
 * gives, the family, the guards), then its memory given back (or, held in the quarantine,
 * filled and published), the count, and the reports of blocks the quarantine shed. Inline
 * once for each way a block leaves (held, page-guarded, given back), so that each passes its
 * own constants and tests only what may differ. */
static inline __attribute__((always_inline)) void
release_checked(mt_block_t *copy, uint32_t site, size_t delete_size, mt_block_t *held, bool paged,
                const mt_error_t *late, size_t nlate, bool system)
{
    if (MT_UNLIKELY(delete_size != 0))
        mt_check_delete_size(copy, site, delete_size);
    mt_check_release(copy, site); /* the right family: free for malloc, delete for new */
    /* Live, so no registrar's: unless page-guarded, intact guards need no call. A block of
     * malloc's alignment with 16 bytes of guard has a front of 16 too (alloc.c's
     * mt_guard_fill_plain): one test tells the default guards. A page-guarded block's guards
     * are not read here: its front may be the guard page itself (page_guard_side=start). */
    size_t front = 0; /* (unused for a page-guarded block: its memory is its slot's) */
    if (MT_UNLIKELY(paged)) {
        (void)mt_check_block(copy, site);
    } else {
        const unsigned char *user = (const unsigned char *)mt_block_addr(copy);
        bool intact;
        if (MT_LIKELY(MT_META_ALIGN_SHIFT(copy->meta) <= MT_MIN_ALIGN_SHIFT &&
                      mt_guard_bytes == 16)) {
            front = 16;
            intact = mt_guard_intact(user - 16, 16) && mt_guard_intact(user + copy->size, 16);
        } else {
            front = mt_block_front_of(copy);
            intact = mt_guards_intact(copy, front);
        }
        if (MT_UNLIKELY(!intact))
            (void)mt_check_block(copy, site);
    }
    if (held != NULL) {
        mt_quarantine_fill_and_publish(held, copy);
    } else {
        if (mt_unwritten_counts(copy))
            mt_unwritten_count_block(copy);
        if (MT_UNLIKELY(paged))
            mt_page_guard_free(copy);
        else
            mt_libc_free((unsigned char *)mt_block_addr(copy) - front);
    }
    if (system) /* a system library's block: counted apart */
        mt_stats_system_free(copy->size);
    else
        mt_stats_free(copy->size);
    if (MT_UNLIKELY(nlate != 0))
        report_late(late, nlate);
    MT_AFTER_OPERATION(site);
}

/* s, as a pointer the compiler keeps: otherwise gcc takes &mt_shards[i] apart and works out
 * each field's address from the index again (a shift and an add each time). An empty asm:
 * no instruction, the compiler only forgets where s came from. */
static inline __attribute__((always_inline)) mt_shard_t *shard_kept(mt_shard_t *s)
{
    __asm__("" : "+r"(s));
    return s;
}

/* A live block's release once it is found (b, in bucket) with its shard's lock held, its
 * meta loaded: noted as freed at where's site, then held in the quarantine or given back, the
 * lock released before the checks. system: a system library's block, counted apart. */
static inline __attribute__((always_inline)) mt_found_t
release_live_locked(mt_shard_t *s, mt_block_t *b, UT_hash_bucket *bucket, void *ptr,
                    mt_free_site_t *where, size_t delete_size, size_t budget, bool system)
{
    mt_block_t copy;
    mt_error_t late[MT_EVICT_REPORTS]; /* blocks the quarantine shed, written after free */
    size_t nlate;
    uint32_t site = site_of(where);
    b->free_site = site;
    copy_live(b, &copy);
    if (MT_UNLIKELY(mt_page_guarded((uintptr_t)ptr))) {
        /* a page-guarded block: its pages hold it, not the quarantine */
        mt_page_guard_retire_locked(b);
        mt_table_drop_locked(s, b);
        mt_unlock(&s->lock);
        release_checked(&copy, site, delete_size, NULL, true, NULL, 0, system);
    } else if (budget != 0 &&
               (nlate = mt_quarantine_hold_locked(s, b, budget, site, late)) != MT_NOT_HELD) {
        /* it stays in the table, flagged freed */
        mt_unlock(&s->lock);
        release_checked(&copy, site, delete_size, b, false, late, nlate, system);
    } else {
        /* given back at once: remembered for a second free (calling nothing, so that the
         * free saves no registers for it) */
        mt_gone_drop_inline_locked(s, b, bucket, &copy);
        mt_unlock(&s->lock);
        release_checked(&copy, site, delete_size, NULL, false, NULL, 0, system);
    }
    return MT_FOUND_LIVE;
}

/* The release of a system library's block, found by the common release with the lock held:
 * out of line, so that the common one counts only program blocks and keeps its constants,
 * and without a second lookup (an interpreter from the system's libraries frees nothing
 * else). where's fields one by one: a pointer to it would keep the common free's where in
 * memory. */
static MT_NOINLINE mt_found_t release_system_locked(mt_shard_t *s, mt_block_t *b,
                                                    UT_hash_bucket *bucket, void *ptr, uint32_t id,
                                                    void *pc, void *frame, mt_kind_t kind,
                                                    size_t delete_size)
{
    mt_free_site_t where = {id, pc, frame, kind};
    return release_live_locked(s, b, bucket, ptr, &where, delete_size, mt_opt.quarantine, true);
}

/* A malloc'd chunk whose registered first piece has its address (twins, records/table.h),
 * met after the piece in its chain (uthash's doublings turn a chain over): the chunk is the
 * one freed, live or already freed. Out of line: a malloc and free pay nothing for it. */
static MT_NOINLINE mt_found_t release_twin_locked(mt_shard_t *s, mt_block_t *chunk,
                                                  UT_hash_bucket *bucket, void *ptr, uint32_t id,
                                                  void *pc, void *frame, mt_kind_t kind,
                                                  size_t delete_size)
{
    mt_free_site_t where = {id, pc, frame, kind};
    uint64_t meta = mt_meta_load(chunk);
    if (meta & MT_META_FLAG_FREED) {
        mt_block_t copy;
        copy_freed(chunk, meta, &copy);
        mt_unlock(&s->lock);
        mt_error_double_free(&copy, site_of(&where));
        return MT_FOUND_FREED;
    }
    return release_live_locked(s, chunk, bucket, ptr, &where, delete_size, mt_opt.quarantine,
                               (meta & MT_META_FLAG_SYSTEM) != 0);
}

/* Releases ptr if it is a tracked block, all under one lock round trip: a live block moves
 * to the quarantine (or, when it does not fit, back to the C library) and the quarantine
 * sheds its oldest blocks; a block already freed is a double free. delete_size, when not
 * 0, is what a sized delete says the block holds (checked). Returns what ptr was; with
 * MT_FOUND_NONE nothing was done. A system library's block is found by the test of the
 * flags made anyway and released out of line (release_system_locked), and so is a chunk
 * whose registered first piece came first in the chain (release_twin_locked). */
static inline __attribute__((always_inline)) mt_found_t release(void *ptr, mt_free_site_t *where,
                                                                size_t delete_size)
{
    mt_shard_t *s = shard_kept(mt_shard_of((uintptr_t)ptr));
    mt_block_t copy;
    size_t budget = mt_opt.quarantine;
    uint32_t site;

    /* The guards are checked next, and the C library reads the chunk's header: start
     * loading them while the table is searched (a prefetch never faults). */
    __builtin_prefetch((const char *)ptr - MT_MIN_ALIGN);
    mt_lock(&s->lock);
    /* live or freed: one lookup */
    UT_hash_bucket *bucket;
    mt_block_t *b = mt_table_lookup_bucket_locked(s, (uintptr_t)ptr, &bucket);
    if (MT_UNLIKELY(b == NULL)) {
        mt_unlock(&s->lock);
        return MT_FOUND_NONE;
    }
    __builtin_prefetch((const char *)ptr + b->size);
    uint64_t meta = mt_meta_load(b); /* a freed block's may change under us (pending) */
    if (MT_UNLIKELY(meta & (MT_META_FLAG_OWNED | MT_META_FLAG_FREED | MT_META_FLAG_SYSTEM))) {
        if (!(meta & (MT_META_FLAG_OWNED | MT_META_FLAG_FREED)))
            return release_system_locked(s, b, bucket, ptr, where->id, where->pc, where->frame,
                                         where->kind, delete_size);
        mt_block_t *twin;
        if ((meta & MT_META_FLAG_OWNED) && (twin = mt_table_twin_locked(b)) != NULL)
            return release_twin_locked(s, twin, bucket, ptr, where->id, where->pc, where->frame,
                                       where->kind, delete_size);
        site = site_of(where);
        if (meta & MT_META_FLAG_FREED) {
            copy_freed(b, meta, &copy);
            mt_unlock(&s->lock);
            mt_error_double_free(&copy, site);
            return MT_FOUND_FREED;
        }
        copy = *b; /* it stays in the table: its owner releases it */
        mt_unlock(&s->lock);
        mt_owned_misuse(&copy, site);
        return MT_FOUND_OWNED;
    }
    return release_live_locked(s, b, bucket, ptr, where, delete_size, budget, false);
}

mt_found_t mt_release(void *ptr, mt_free_site_t *where, size_t delete_size)
{
    if (ptr == NULL)
        return MT_FOUND_NONE;
    return release(ptr, where, delete_size);
}

/* A pointer the tracker never made (nor holds in quarantine), released by tracked code:
 * the C library gets it back only when it surely made it (foreign.c). */
static void report_bad_pointer(void *ptr, mt_pointer_class_t why, uint32_t site)
{
    mt_error_t e;
    memset(&e, 0, sizeof e);
    e.kind = MT_ERROR_INVALID_FREE;
    e.found_site = site;
    bool detailed = mt_error_observer != NULL || mt_error_will_print(e.kind, site);
    mt_foreign_describe(ptr, why, detailed, &e);
    mt_error_report(&e);
}

/* ptr started a block whose memory went back to the C library, and no tracked block has
 * taken that memory since (then ptr would point inside it: an invalid free). */
static bool gone_again(const void *ptr, mt_block_t *gone)
{
    return mt_gone_find(ptr, gone) && !mt_foreign_inside_tracked(ptr);
}

void mt_release_foreign(void *ptr, uint32_t site)
{
    mt_pointer_class_t why;
    if (MT_UNLIKELY(mt_owned_memory_misuse(ptr, site)))
        return; /* a stale pointer into a pool's or an arena's memory */
    if (MT_UNLIKELY(mt_page_guarded((uintptr_t)ptr)) && mt_page_guard_freed_again(ptr, site))
        return;
    mt_block_t gone;
    if (MT_LIKELY(mt_foreign_is_libc_block(ptr, &why)))
        mt_libc_free(ptr);
    else if (gone_again(ptr, &gone)) /* its memory went back to the C library already */
        mt_error_double_free(&gone, site);
    else
        report_bad_pointer(ptr, why, site);
}

/* A free nested inside the tracker (the C library freeing its own memory while a report
 * is printed, a signal handler): this thread may hold the shard's lock, so only try it.
 * Returns false when the lock is taken: leaking the pointer is safer than guessing. */
bool mt_free_nested(void *ptr)
{
    mt_shard_t *s = mt_shard_of((uintptr_t)ptr);
    if (!mt_trylock(&s->lock))
        return false;
    bool tracked =
        mt_table_lookup_locked(s, (uintptr_t)ptr) != NULL || mt_page_guarded((uintptr_t)ptr);
    mt_unlock(&s->lock);
    if (!tracked)
        mt_libc_free(ptr);
    return true;
}

bool mt_free_known(void *ptr, uint32_t site, size_t size)
{
    mt_free_site_t where = {site, NULL, NULL, MT_KIND_DELETE};
    return mt_release(ptr, &where, size) != MT_FOUND_NONE;
}

/* mt_free's body, with mt_release's: inline in memtrack_free_at too, which every free of
 * tracked code calls, so a free is one call deep. */
static inline __attribute__((always_inline)) void free_block(void *ptr, uint32_t site,
                                                             bool from_tracked)
{
    if (ptr == NULL)
        return;
    if (MT_UNLIKELY(mt_reentered())) {
        (void)mt_free_nested(ptr);
        return;
    }
    mt_free_site_t where = {site, NULL, NULL, MT_KIND_FREE};
    if (release(ptr, &where, 0) != MT_FOUND_NONE)
        return;
    if (from_tracked || mt_page_guarded((uintptr_t)ptr)) /* never the C library's */
        mt_release_foreign(ptr, site);
    else
        mt_libc_free(ptr);
}

void mt_free(void *ptr, uint32_t site, bool from_tracked)
{
    free_block(ptr, site, from_tracked);
}

/* ---- reallocating ----------------------------------------------------------------------- */

/* The C library moved a block whose new record could not be stored (the tracker's memory is
 * exhausted): its bytes are kept in a plain block of the C library, untracked, as a
 * library's block would be (a later free hands it back to the C library). */
static MT_NOINLINE void *moved_untracked(unsigned char *user, size_t size, size_t front)
{
    memmove(user - front, user, size);
    return user - front;
}

/* realloc_moves=0: resizes the block where it is when its C library block has the room, else
 * asks the C library to grow that block (glibc extends it into the free memory after it
 * when it can, or moves it, copying the guards with the bytes); the guards are checked first
 * and the back guard rewritten. All under the shard's lock, so that no thread is lent the
 * old address while its record is still there. Returns the block (ptr, or where the C library
 * moved it), or NULL when it was not resized: the caller then moves it itself. */
static void *resize_in_place(void *ptr, size_t size, uint32_t site)
{
    unsigned char *user = ptr;
    mt_shard_t *s = mt_shard_of((uintptr_t)ptr);
    mt_block_t before;
    if (mt_page_guarded((uintptr_t)ptr))
        return NULL; /* its memory is a slot of pages, not the C library's block */
    mt_guard_damage_t under, over;
    bool resized = false, damaged = false, moved = false;
    bool system = mt_site_system(site); /* (asked before the lock: it may make nothing) */
    size_t front = 0;
    uint64_t seq = 0;

    mt_lock(&s->lock);
    mt_block_t *b = mt_table_find_locked(s, (uintptr_t)ptr);
    if (b != NULL && size <= SIZE_MAX / 2) {
        size_t back = mt_block_back();
        front = mt_block_front_of(b);
        size_t room = mt_libc_usable_size(user - front);
        bool fits = size <= b->size || (room >= front + back && room - front - back >= size);
        /* (an aligned block stays where it is: the C library's realloc would not keep its
         * alignment) */
        if (fits || MT_META_ALIGN_SHIFT(b->meta) <= MT_MIN_ALIGN_SHIFT) {
            before = *b;
            damaged = mt_block_damaged(b, &under, &over);
            unsigned char *raw = user - front;
            if (!fits)
                raw = mt_libc_realloc(raw, front + size + back);
            if (raw != NULL) {
                moved = raw + front != user;
                user = raw + front;
                if (size > before.size && mt_fill_new)
                    mt_fill_new_bytes(user + before.size, size - before.size);
                memset(user + size, MT_GUARD_BYTE, back);
                seq = system ? 0 : mt_next_seq(); /* a system library's: no number */
                if (moved) { /* the old address is the C library's again: a second free of it
                              * is a double free (the shard's notes) */
                    b->free_site = site;
                    mt_gone_drop_locked(s, b);
                } else {
                    b->size = size;
                    b->site = site;
                    b->meta = MT_META_MAKE(seq, mt_thread(), MT_META_ALIGN_SHIFT(b->meta)) |
                              (system ? MT_META_FLAG_SYSTEM : 0);
                }
                resized = true;
            }
        }
    }
    mt_unlock(&s->lock);
    if (!resized)
        return NULL;
    uint64_t meta = MT_META_MAKE(seq, mt_thread(), MT_META_ALIGN_SHIFT(before.meta)) |
                    (system ? MT_META_FLAG_SYSTEM : 0);
    void *result = user;
    if (moved && MT_UNLIKELY(!mt_table_track((uintptr_t)user, size, meta, site)))
        result = moved_untracked(user, size, front);
    mt_check_release(&before, site); /* realloc of a block new made */
    if (damaged && !(before.meta & MT_META_FLAG_REPORTED))
        mt_report_guard_damage(&before, site, &under, &over);
    if (before.meta & MT_META_FLAG_SYSTEM)
        mt_stats_system_free(before.size);
    else
        mt_stats_free(before.size);
    if (result != user) /* moved_untracked: its bytes went untracked, counted nowhere */
        return result;
    if (system) {
        mt_stats_system_alloc(size);
    } else {
        mt_stats_alloc(size);
        if (MT_UNLIKELY(mt_opt.break_on == seq))
            mt_break_now(seq, size, site);
    }
    return result;
}

void *mt_realloc_live(void *ptr, const mt_block_t *old, size_t size, uint32_t site,
                      bool from_tracked)
{
    if (MT_UNLIKELY(old->meta & MT_META_FLAG_OWNED)) {
        mt_owned_misuse(old, site); /* its memory is not the C library's to move */
        errno = EINVAL;
        return NULL;
    }
    if (size == 0) { /* glibc frees and returns NULL */
        mt_free(ptr, site, from_tracked);
        return NULL;
    }
    if (!mt_opt.realloc_moves) {
        void *same = resize_in_place(ptr, size, site);
        if (same != NULL)
            return same;
    }
    /* Move: a stale pointer to the old block then shows up at once. On failure the old
     * block stays valid and tracked, as the C library's realloc leaves it. */
    void *fresh = mt_alloc(size, 0, site, false);
    if (fresh == NULL)
        return NULL;
    memcpy(fresh, ptr, old->size < size ? old->size : size);
    mt_free(ptr, site, from_tracked);
    return fresh;
}

/* realloc of a block in quarantine: a double free. Nothing is allocated or released. */
void *mt_realloc_freed(const mt_block_t *old, uint32_t site)
{
    mt_error_double_free(old, site);
    errno = EINVAL;
    return NULL;
}

/* realloc by tracked code of a pointer the tracker never made. */
void *mt_realloc_foreign(void *ptr, size_t size, uint32_t site)
{
    mt_pointer_class_t why;
    if (MT_UNLIKELY(mt_owned_memory_misuse(ptr, site))) {
        errno = EINVAL; /* a stale pointer into a pool's or an arena's memory */
        return NULL;
    }
    mt_block_t gone;
    if (MT_UNLIKELY(mt_page_guarded((uintptr_t)ptr)) && mt_page_guard_freed_again(ptr, site)) {
        errno = EINVAL; /* a double free: reported */
        return NULL;
    }
    if (MT_LIKELY(mt_foreign_is_libc_block(ptr, &why)))
        return mt_libc_realloc(ptr, size);
    if (gone_again(ptr, &gone))
        return mt_realloc_freed(&gone, site); /* a double free: reported, NULL and EINVAL */
    report_bad_pointer(ptr, why, site);
    errno = EINVAL;
    return NULL;
}

void *mt_realloc(void *ptr, size_t size, uint32_t site, bool from_tracked)
{
    mt_block_t old;
    if (ptr == NULL)
        return mt_alloc(size, 0, site, false);
    switch (mt_peek_block(ptr, &old)) {
    case MT_FOUND_LIVE:
    case MT_FOUND_OWNED: return mt_realloc_live(ptr, &old, size, site, from_tracked);
    case MT_FOUND_FREED: return mt_realloc_freed(&old, site);
    case MT_FOUND_NONE: break;
    }
    return from_tracked || mt_page_guarded((uintptr_t)ptr) ? mt_realloc_foreign(ptr, size, site)
                                                           : mt_libc_realloc(ptr, size);
}

/* ---- entry points for code built with the header --------------------------------------- */

/* A realloc's site is also its new block's: it has the stack of calls that led to it. */
#define SITE(kind)                                                                                 \
    mt_site_here(file, line, func, MT_KIND_##kind, __builtin_frame_address(0),                     \
                 __builtin_return_address(0))

MT_EXPORT void *memtrack_realloc_at(void *ptr, size_t size, const char *file, int line,
                                    const char *func)
{
    MT_ENTRY();
    return mt_realloc(ptr, size, SITE(REALLOC), true);
}

MT_EXPORT void *memtrack_reallocarray_at(void *ptr, size_t count, size_t size, const char *file,
                                         int line, const char *func)
{
    MT_ENTRY();
    size_t total;
    if (mt_mul_overflows(count, size, &total))
        return mt_fail(ENOMEM);
    return mt_realloc(ptr, total, SITE(REALLOCARRAY), true);
}

MT_EXPORT void memtrack_free_at(void *ptr, const char *file, int line, const char *func)
{
    MT_ENTRY();
    if (ptr == NULL)
        return;                        /* free(NULL) is frequent: no site lookup, no lock */
    free_block(ptr, SITE(FREE), true); /* its stack: the release's, for errors */
}
