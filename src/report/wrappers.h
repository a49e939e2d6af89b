/* wrappers.h - the allocation wrappers a report's places were seen through, named.
 */
#ifndef MT_WRAPPERS_H
#define MT_WRAPPERS_H

#include "report/model.h"

/* Wrappers the report names: finding one takes stacks, which bare metal has none of. */
#ifdef MT_BARE_METAL
#define MT_WRAPPERS_MAX 4u
#else
#define MT_WRAPPERS_MAX 32u
#endif

/* Notes in report r (its wrappers, room for MT_WRAPPERS_MAX) a function a place was seen
 * through (records/place.h's mt_wrapper_note_fn, ctx the report): named by option alloc_fn,
 * or found by the rule (records/wrapper.c). Code of the system's headers is not named. */
void mt_wrappers_note(void *r, const mt_place_t *wrapper, int why);

#endif /* MT_WRAPPERS_H */
