/* scratch.h - the working memory of a report being built (report.c, injected.c): a bump
 * allocator over the one mapping behind its model, and the frames of its places' stacks.
 */
#ifndef MT_REPORT_SCRATCH_H
#define MT_REPORT_SCRATCH_H

#include <string.h>

#include "base/symbolize.h"
#include "records/place.h"
#include "report/wrappers.h"

typedef struct scratch {
    char *base;
    size_t size, used;
} scratch_t;

/* bytes from the mapping, 16-byte aligned; NULL when it has no room left */
static inline void *take(scratch_t *s, size_t bytes)
{
    size_t at = (s->used + 15) & ~(size_t)15;
    if (at > s->size || bytes > s->size - at)
        return NULL;
    s->used = at + bytes;
    return s->base + at;
}

static inline const char *take_string(scratch_t *s, const char *text, size_t n)
{
    char *copy = take(s, n + 1);
    if (copy == NULL)
        return "";
    memcpy(copy, text, n);
    copy[n] = '\0';
    return copy;
}

/* Frames for the stacks of a model's places, depth each. */
typedef struct frame_pool {
    mt_frame_t *next, *end;
    size_t depth;
} frame_pool_t;

/* A place's stack from the pool, seen through allocation wrappers (each one noted in r's
 * list of wrappers). */
static inline void resolve_stack(mt_report_t *r, frame_pool_t *pool, uint32_t site,
                                 mt_place_t *where)
{
    size_t room = (size_t)(pool->end - pool->next);
    size_t want = MT_STACK_ROOM(pool->depth);
    size_t n =
        mt_place_stack(site, where, pool->next, room < want ? room : want, mt_wrappers_note, r);
    pool->next += n;
}

#endif /* MT_REPORT_SCRATCH_H */
