/* cxx_blocks.c - the tracker's side of the C++ operators (cxx.cpp): blocks made by new
 * and new[], and deletes that find their block even when a mismatch moved the pointer.
 *
 * The Itanium C++ ABI puts an "array cookie" (the element count) in front of the elements
 * of new T[n] when T has a destructor: operator new[] returns the block, the program gets
 * block + cookie, and delete[] hands block back. A mismatched delete breaks that:
 *   - delete on new T[n] gives operator delete block + cookie, which is no block;
 *   - delete[] on new T reads a count from the 8 bytes before the object, destroys that
 *     many elements, and gives operator delete[] object - cookie.
 * The second would run destructors over arbitrary memory; the zero cookie slot in the
 * front guard of every scalar new block (guard.c) makes the count 0. Both cases are then
 * recognized here by the distance to a live block of the other form, the mismatch is
 * reported (mismatch.c) and the real block released.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/cxx_glue.h"
#include "api/api.h"
#include "api/owned.h"
#include "base/output.h"

/* ---- the opt-in macros of memtrack.h (MEMTRACK_NEW_MACRO, MEMTRACK_DELETE_MACRO) -------
 *
 * `new T` becomes `memtrack_new_here_(file, line, func) ->* new T`: the new-expression
 * runs unchanged, then its result is given its file and line. Only a block this thread
 * made with new a moment ago is renamed (the last few are remembered), so placement new
 * into any other memory changes nothing.
 *
 * `delete p` becomes `memtrack_cxx_delete_site(file, line, func), false ? (void)0 :
 * delete p`, the original design's form: the site waits, per thread, for the operator delete this
 * expression calls, which the compiler emits in the same function, after the destructor.
 * So a waiting site is taken only by an operator delete called from that very frame:
 * the members a destructor deletes first come from deeper frames and leave it alone (a
 * destructor that uses the macro pushes its own sites above it). A virtual destructor
 * calls operator delete itself, from a deeper frame: that delete keeps its return-address
 * site, which is never wrong, rather than guessing. A site whose frame has returned is
 * dropped; one that a delete of a null pointer (no operator delete call) left behind is
 * dropped by the frame's next delete expression, but optimized code may first inline an
 * untagged delete into that frame (a container's destructor), which then takes it. */

#define RECENT_NEWS 8u
#define DELETE_SITES 8u

typedef struct recent_new {
    uintptr_t block;
    size_t reach;   /* the array cookie may put the object this far into the block */
    mt_kind_t kind; /* MT_KIND_NEW or MT_KIND_NEW_ARRAY */
} recent_new_t;

typedef struct delete_site {
    const char *file, *func;
    int line;
    uintptr_t frame; /* __builtin_frame_address(0) of memtrack_cxx_delete_site */
} delete_site_t;

static MT_TLS recent_new_t recent_news[RECENT_NEWS];
static MT_TLS unsigned recent_next;
static MT_TLS delete_site_t delete_sites[DELETE_SITES];
static MT_TLS unsigned delete_sites_waiting;

uint32_t mt_cxx_stack(void *frame, void *pc)
{
    return mt_stack_here(frame, pc);
}

void *mt_cxx_alloc(size_t size, size_t align, bool array, void *pc, uint32_t stack)
{
    if (MT_UNLIKELY(mt_reentered())) /* nested in the tracker: untracked, as mt_alloc would */
        return mt_alloc(size, align, MT_SITE_NONE, false);
    uint32_t site = mt_site_pc_stacked(pc, array ? MT_KIND_NEW_ARRAY : MT_KIND_NEW, NULL, stack);
    unsigned char *p = mt_alloc(size, align, site, false);
    if (p == NULL)
        return NULL;
    if (!array) /* options are frozen now: this is the block's front */
        mt_guard_clear_cookie(p, mt_front_size(mt_opt.guard, align));
    recent_new_t *r = &recent_news[recent_next++ % RECENT_NEWS];
    r->block = (uintptr_t)p;
    r->reach = array ? (align > MT_MIN_ALIGN ? align : MT_MIN_ALIGN) : 0;
    r->kind = array ? MT_KIND_NEW_ARRAY : MT_KIND_NEW;
    return p;
}

MT_EXPORT void memtrack_cxx_new_site(const volatile void *ptr, const char *file, int line,
                                     const char *func)
{
    uintptr_t at = (uintptr_t)ptr;
    if (ptr == NULL || mt_reentered())
        return;
    for (unsigned i = 0; i < RECENT_NEWS; i++) {
        recent_new_t *r = &recent_news[i];
        if (r->block == 0 || at < r->block || at - r->block > r->reach)
            continue;
        mt_shard_t *s = mt_shard_of(r->block);
        uint32_t site = MT_SITE_NONE, stack = 0;
        mt_lock(&s->lock);
        mt_block_t *b = mt_table_find_locked(s, r->block);
        if (b != NULL) /* the macro's place, with the stack operator new found */
            stack = mt_site_get(b->site)->stack;
        mt_unlock(&s->lock);
        site = mt_site_stacked(file, line, func, r->kind, NULL, stack); /* (no lock held) */
        mt_lock(&s->lock);
        b = mt_table_find_locked(s, r->block);
        /* still that new's block, and the program's: a system library's block keeps its
         * site, by which it was counted apart */
        if (b != NULL && mt_site_get(b->site)->kind == r->kind && !(b->meta & MT_META_FLAG_SYSTEM))
            b->site = site;
        mt_unlock(&s->lock);
        r->block = 0;
        return;
    }
}

MT_EXPORT void memtrack_cxx_delete_site(const char *file, int line, const char *func)
{
    uintptr_t frame = (uintptr_t)__builtin_frame_address(0);
    /* Sites from frames that returned, or left by an earlier delete of a null pointer in
     * this same frame (which calls no operator delete), are stale. */
    while (delete_sites_waiting > 0 && delete_sites[delete_sites_waiting - 1].frame <= frame)
        delete_sites_waiting--;
    if (delete_sites_waiting == DELETE_SITES) { /* deep recursion: forget the oldest */
        memmove(&delete_sites[0], &delete_sites[1], (DELETE_SITES - 1) * sizeof delete_sites[0]);
        delete_sites_waiting--;
    }
    delete_site_t *d = &delete_sites[delete_sites_waiting++];
    d->file = file;
    d->func = func;
    d->line = line;
    d->frame = frame;
}

/* The site of an operator delete called from pc with the given frame: a waiting macro
 * site when there is one for this frame, else the return address. Both frames are those
 * of a function called by the same caller, so they are equal for the same caller. */
static uint32_t release_site(void *pc, void *frame, uint32_t stack, mt_kind_t kind)
{
    if (MT_UNLIKELY(delete_sites_waiting > 0)) {
        uintptr_t f = (uintptr_t)frame;
        while (delete_sites_waiting > 0 && delete_sites[delete_sites_waiting - 1].frame < f)
            delete_sites_waiting--; /* deeper frames, which have returned */
        if (delete_sites_waiting > 0 && delete_sites[delete_sites_waiting - 1].frame == f) {
            const delete_site_t *d = &delete_sites[--delete_sites_waiting];
            return mt_site_stacked(d->file, d->line, d->func, kind, NULL, stack);
        }
    }
    return mt_site_pc_stacked(pc, kind, NULL, stack);
}

/* The cookie sizes the compiler may have used for an element alignment of `align` (0:
 * the default new alignment): max(sizeof(size_t), alignof(T)). */
static size_t cookie_sizes(size_t align, size_t out[2])
{
    if (align > MT_MIN_ALIGN) {
        out[0] = align;
        return 1;
    }
    out[0] = sizeof(size_t);
    out[1] = MT_MIN_ALIGN;
    return 2;
}

static mt_kind_t kind_of(const mt_block_t *b)
{
    return mt_site_get(b->site)->kind;
}

/* delete on new T[n]: ptr is block + cookie. The count before ptr must fit the block. */
static void *array_block_before(void *ptr, size_t align)
{
    size_t cookies[2], n = cookie_sizes(align, cookies);
    for (size_t i = 0; i < n; i++) {
        mt_block_t b;
        uintptr_t at = (uintptr_t)ptr - cookies[i];
        if (!mt_block_peek((void *)at, &b) || kind_of(&b) != MT_KIND_NEW_ARRAY ||
            b.size < cookies[i])
            continue;
        size_t count;
        memcpy(&count, (const unsigned char *)ptr - sizeof count, sizeof count);
        size_t bytes = b.size - cookies[i];
        if (count != 0 && count <= bytes && bytes % count == 0)
            return (void *)at;
    }
    return NULL;
}

/* delete[] on new T: ptr is object - cookie, and the count read was the zero slot. */
static void *object_after(void *ptr, size_t align)
{
    size_t cookies[2], n = cookie_sizes(align, cookies);
    for (size_t i = 0; i < n; i++) {
        mt_block_t b;
        uintptr_t at = (uintptr_t)ptr + cookies[i];
        if (mt_block_peek((void *)at, &b) && kind_of(&b) == MT_KIND_NEW)
            return (void *)at;
    }
    return NULL;
}

void mt_cxx_release(void *ptr, size_t align, size_t size, bool array, void *pc, void *frame,
                    uint32_t stack)
{
    if (ptr == NULL)
        return;
    if (MT_UNLIKELY(mt_reentered())) {
        mt_free(ptr, MT_SITE_NONE, true);
        return;
    }
    uint32_t site = release_site(pc, frame, stack, array ? MT_KIND_DELETE_ARRAY : MT_KIND_DELETE);
    if (MT_LIKELY(mt_free_known(ptr, site, size)))
        return;
    void *block = array ? object_after(ptr, align) : array_block_before(ptr, align);
    mt_free(block != NULL ? block : ptr, site, true);
}

void mt_cxx_no_runtime(size_t size)
{
    mt_buf_t b;
    mt_buf_init(&b, mt_std_fd(STDERR_FILENO));
    mt_buf_line(&b);
    mt_buf_str(&b, "operator new(");
    mt_buf_u64(&b, size);
    mt_buf_str(&b, "): out of memory, and no C++ runtime is loaded to throw std::bad_alloc;"
                   " aborting\n");
    mt_buf_flush(&b);
    abort();
}
