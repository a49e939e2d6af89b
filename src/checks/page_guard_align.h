/* page_guard_align.h - where a page-guarded block lies against the page after it (at the
 * end side, the default): its alignment, by why it was chosen (checks/page_guard.c).
 */
#ifndef MT_PAGE_GUARD_ALIGN_H
#define MT_PAGE_GUARD_ALIGN_H

#include "base/platform.h"

typedef enum {
    MT_PG_SAMPLED, /* page_guard_rate's, or one the program asked for (aligned_alloc,
                      posix_memalign, memalign): kept, a program may count on it */
    MT_PG_EVERY,   /* page_guard=all: every block of a whole program, Python's included */
    MT_PG_EXACT,   /* page_guard_site's (the line whose overrun is to be named), pool objects */
} mt_pg_choice_t;

/* The alignment of a block of `size` bytes asked with `align` (malloc's, or more). A block
 * of a listed site ends at its page to the byte (aligned to the largest power of two
 * dividing its size), so that a one-byte overrun faults; so does a pool's object, of one
 * type whose size is a multiple of its alignment. Every other block of page_guard=all keeps
 * what the C standard promises for its size: room for any object that fits (the largest
 * power of two not above the size, up to malloc's 16 bytes). Aligned by its size alone, an
 * object with a flexible array member (a header of pointers, then 5 bytes of text) lay off
 * its own alignment: Python failed at start, and the pointers in it were off the words of
 * memory. An overrun into the few bytes of pad left is found by their check instead. */
static inline size_t mt_page_guard_alignment(size_t size, size_t align, mt_pg_choice_t why)
{
    if (align > MT_MIN_ALIGN || why == MT_PG_SAMPLED)
        return align;
    size_t a = 1;
    if (why == MT_PG_EXACT) {
        a = size & (~size + 1);
        return a == 0 || a > MT_MIN_ALIGN ? MT_MIN_ALIGN : a;
    }
    while (a < MT_MIN_ALIGN && a * 2 <= size)
        a *= 2;
    return a;
}

#endif /* MT_PAGE_GUARD_ALIGN_H */
