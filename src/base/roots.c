/* roots.c - the list of roots every platform's file fills (roots_linux.c, roots_windows.c,
 * roots_bare.c): ranges with the tracker's own data cut out of them, register values, and
 * the calling thread's frames.
 *
 * The list lives in pages of its own, never in the tracker's heap or the C library's: the
 * scan that reads it must not find it among the roots, nor make blocks while it runs.
 */
#include <string.h>

#include "base/roots.h"

/* ---- the tracker's own data (base/own_data.h) ------------------------------------------ */

size_t mt_own_data_spans(mt_span_t *out)
{
    size_t n = 0;
#define MT_OWN_SPAN(name)                                                                          \
    if ((uintptr_t)mt_own_end_##name >= (uintptr_t)mt_own_begin_##name)                            \
        out[n++] = (mt_span_t){(uintptr_t)mt_own_begin_##name, (uintptr_t)mt_own_end_##name + 1};
    MT_OWN_SECTIONS(MT_OWN_SPAN)
#undef MT_OWN_SPAN
    return n;
}

size_t mt_own_thread_spans(mt_span_t *out)
{
    size_t n = 0;
#define MT_OWN_THREAD_SPAN(name)                                                                   \
    if ((uintptr_t)mt_own_end_##name >= (uintptr_t)mt_own_begin_##name)                            \
        out[n++] = (mt_span_t){(uintptr_t)mt_own_begin_##name, (uintptr_t)mt_own_end_##name + 1};
    MT_OWN_THREAD_SECTIONS(MT_OWN_THREAD_SPAN)
#undef MT_OWN_THREAD_SPAN
    (void)out;
    return n;
}

/* ---- the list --------------------------------------------------------------------------- */

/* Grows an array in pages of its own: count items of size bytes, doubled. */
static bool grow(void **array, size_t *cap, size_t size)
{
    size_t more = *cap != 0 ? *cap * 2 : MT_SMALL(256u, 8u);
    void *fresh = mt_pages_alloc_for_report(more * size);
    if (fresh == NULL)
        return false;
    if (*array != NULL) {
        memcpy(fresh, *array, *cap * size);
        mt_pages_free(*array, *cap * size);
    }
    *array = fresh;
    *cap = more;
    return true;
}

static bool append(mt_roots_t *r, mt_root_t root)
{
    if (root.end <= root.start)
        return true;
    if (r->n == r->cap && !grow((void **)&r->list, &r->cap, sizeof *r->list))
        return false;
    r->list[r->n++] = root;
    return true;
}

bool mt_roots_add(mt_roots_t *r, uintptr_t start, uintptr_t end, mt_root_kind_t kind,
                  unsigned thread, const mt_span_t *holes, size_t nholes)
{
    /* Words only: a pointer the program keeps is aligned. */
    start = (start + sizeof(void *) - 1) & ~(uintptr_t)(sizeof(void *) - 1);
    if (end <= start)
        return true;
    /* The first hole that cuts [start, end) splits it: the part before is added, the rest
     * goes on against the remaining holes (a handful, so no sorting). */
    for (size_t i = 0; i < nholes; i++) {
        const mt_span_t *h = &holes[i];
        if (h->end <= start || h->start >= end)
            continue;
        if (h->start > start &&
            !mt_roots_add(r, start, h->start, kind, thread, holes + i + 1, nholes - i - 1))
            return false;
        return h->end >= end ||
               mt_roots_add(r, h->end, end, kind, thread, holes + i + 1, nholes - i - 1);
    }
    return append(r, (mt_root_t){start, end, kind, thread, false, 0});
}

bool mt_roots_add_values(mt_roots_t *r, const uintptr_t *values, size_t n, unsigned thread)
{
    while (r->nvalues + n > r->values_cap)
        if (!grow((void **)&r->values, &r->values_cap, sizeof *r->values))
            return false;
    /* Kept as indexes into the values until mt_roots_finish: the array may still move. */
    size_t at = r->nvalues;
    memcpy(r->values + at, values, n * sizeof *values);
    r->nvalues += n;
    return append(r, (mt_root_t){at, at + n, MT_ROOT_REGISTERS, thread, false, 0});
}

bool mt_roots_add_program(mt_roots_t *r, uintptr_t start, uintptr_t end, uint32_t index)
{
    mt_span_t own[MT_OWN_SPANS_MAX];
    size_t nown = mt_own_data_spans(own);
    start = (start + sizeof(void *) - 1) & ~(uintptr_t)(sizeof(void *) - 1);
    size_t first = r->n;
    if (!mt_roots_add(r, start, end, MT_ROOT_PROGRAM, 0, own, nown))
        return false;
    for (size_t i = first; i < r->n; i++)
        r->list[i].index = index;
    return true;
}

void mt_roots_finish(mt_roots_t *r)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->list[i].kind == MT_ROOT_REGISTERS) {
            r->list[i].start = (uintptr_t)(r->values + r->list[i].start);
            r->list[i].end = (uintptr_t)(r->values + r->list[i].end);
        }
    for (size_t i = 1; i < r->n; i++) { /* insertion sort: mostly in order already */
        mt_root_t x = r->list[i];
        size_t j = i;
        for (; j > 0 && r->list[j - 1].start > x.start; j--)
            r->list[j] = r->list[j - 1];
        r->list[j] = x;
    }
}

void mt_roots_free(mt_roots_t *r)
{
    if (r->list != NULL)
        mt_pages_free(r->list, r->cap * sizeof *r->list);
    if (r->values != NULL)
        mt_pages_free(r->values, r->values_cap * sizeof *r->values);
    memset(r, 0, sizeof *r);
}

const mt_root_t *mt_roots_find(const mt_roots_t *r, uintptr_t addr)
{
    size_t low = 0, high = r->n; /* the first range starting after addr: high */
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        if (r->list[mid].start <= addr)
            low = mid + 1;
        else
            high = mid;
    }
    /* Ranges do not overlap (the values' array is the tracker's, apart from the rest). */
    return high > 0 && addr < r->list[high - 1].end ? &r->list[high - 1] : NULL;
}

/* ---- the calling thread's frames ------------------------------------------------------- */

void mt_roots_walk_frames(mt_roots_t *r, void *frame, uintptr_t stack_from, uintptr_t stack_end)
{
    r->nframes = 0;
#if defined(__x86_64__) || defined(__i386__)
    /* A frame record is the caller's frame pointer, then the return address into it; a
     * function's own words lie below its record, down to the record of the function it
     * called. So the words between two records belong to the function the lower record
     * returns into, and that return address names the line it is at. Each record must lie
     * above the last, inside the stack: where the next one does not (code without frame
     * pointers), the last function told keeps the rest of the stack, its own frame and
     * those of the functions it was called from, which cannot be told apart. */
    const uintptr_t word = sizeof(void *);
    uintptr_t fp = (uintptr_t)frame, start = stack_from;
    if (fp < stack_from || fp % word != 0)
        return;
    while (r->nframes < MT_ROOT_FRAMES_MAX && fp + 2 * word <= stack_end) {
        uintptr_t next = ((const uintptr_t *)fp)[0];
        void *pc = ((void *const *)fp)[1];
        if (pc == NULL)
            break;
        bool last = next <= fp || next % word != 0 || next + 2 * word > stack_end ||
                    r->nframes + 1 == MT_ROOT_FRAMES_MAX;
        /* (The first frame's words start at the entry point's stack pointer: the registers
         * the entry point saved are its caller's.) */
        r->frames[r->nframes++] = (mt_stack_frame_t){start, last ? stack_end : next + 2 * word, pc};
        if (last)
            break;
        start = next + 2 * word;
        fp = next;
    }
#else
    (void)frame;
    (void)stack_from;
    (void)stack_end;
#endif
}
