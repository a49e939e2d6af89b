/* roots_mapped.c - the memory the program mapped for itself (base/mapped.c), as roots of the
 * leak scan: each mapping less the stacks already among the roots (a thread or coroutine
 * stack the program mapped is read as a stack); a large one only where its pages are in
 * memory.
 */
#include <sys/mman.h>
#include <unistd.h>

#include "base/mapped.h"
#include "base/roots.h"

#if !defined(_WIN32) && !defined(MT_BARE_METAL)
#define MAPPED_WHOLE ((uintptr_t)64 << 20) /* mappings read whole; larger: their pages in use */
#define RESIDENCY_PAGES 1024u              /* pages asked of mincore at once */

/* Adds [start, end) of a mapping of the program's, less holes: whole when small, else only
 * the runs of pages in memory (a page never touched holds no pointer, and a large sparse
 * mapping, read whole through the kernel, would take a second a GiB). */
static bool add_mapped_range(mt_roots_t *r, uintptr_t start, uintptr_t end, const mt_span_t *holes,
                             size_t nholes)
{
    if (end - start <= MAPPED_WHOLE)
        return mt_roots_add(r, start, end, MT_ROOT_MAPPED, 0, holes, nholes);
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    unsigned char in_memory[RESIDENCY_PAGES];
    uintptr_t run = 0; /* the start of the run of pages in memory, 0: none */
    for (uintptr_t at = start & ~(page - 1); at < end;) {
        size_t n = (size_t)((end - at + page - 1) / page);
        n = n < RESIDENCY_PAGES ? n : RESIDENCY_PAGES;
        bool known = mincore((void *)at, n * page, in_memory) == 0;
        for (size_t i = 0; i < n; i++, at += page) {
            bool used = !known || (in_memory[i] & 1);
            if (used && run == 0)
                run = at > start ? at : start;
            if (!used && run != 0) {
                if (!mt_roots_add(r, run, at, MT_ROOT_MAPPED, 0, holes, nholes))
                    return false;
                run = 0;
            }
        }
    }
    return run == 0 || mt_roots_add(r, run, end, MT_ROOT_MAPPED, 0, holes, nholes);
}

bool mt_roots_add_mapped(mt_roots_t *r)
{
    static mt_span_t spans[MT_MAPPED_MAX]; /* (under the report's lock: one scan at a time) */
    size_t n = mt_mapped_spans(spans, MT_MAPPED_MAX), nroots = r->n;
    for (size_t i = 0; i < n; i++) {
        mt_span_t holes[MT_OWN_SPANS_MAX];
        size_t nholes = 0;
        for (size_t k = 0; k < nroots && nholes < MT_OWN_SPANS_MAX; k++) {
            const mt_root_t *x = &r->list[k];
            if (x->kind != MT_ROOT_REGISTERS && x->start < spans[i].end && x->end > spans[i].start)
                holes[nholes++] = (mt_span_t){x->start, x->end};
        }
        if (!add_mapped_range(r, spans[i].start, spans[i].end, holes, nholes))
            return false;
    }
    return true;
}

#endif
