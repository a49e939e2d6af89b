/* place.h - what a report shows of a site.
 */
#ifndef MT_PLACE_H
#define MT_PLACE_H

#include "base/platform.h"
#include "report/model.h"

/* Fills *out for site id; returns true when the site lies inside a system library (the C
 * library, the loader, libmemtrack: see place.c), which only address-only sites can. */
bool mt_place_of(uint32_t id, mt_place_t *out);
/* What mt_place_of(id) returns, without resolving the place. */
bool mt_place_is_system(uint32_t id);
/* True when site id, known only by a return address, lies in the C runtime the process is
 * built on (the C library, the loader, the C++ runtime, libmemtrack): what the runtime
 * allocates for itself, as against the program and the libraries it uses. */
bool mt_place_in_runtime(uint32_t id);
/* True when file:line is one of the space-separated FILE:LINE entries of list, FILE
 * matching the end of the path at a '/' (options page_guard_site, fail_site). */
bool mt_place_listed(const char *list, const char *file, long line);
/* Called for each function a place is seen through (records/wrapper.h): the place as it
 * was before it moved to its caller, and why. */
typedef void (*mt_wrapper_note_fn)(void *ctx, const mt_place_t *wrapper, int why);
/* Fills out->stack with the callers of site id (frames in frames[0..max), resolved to
 * function, file and line), leaving out the place itself and the system's frames below the
 * program's last; a place made inside allocation wrappers (records/wrapper.c) is moved to
 * the first caller outside them, each wrapper told to note (when not NULL); then option
 * stack's number of calls is kept. Returns how many of frames[] it used. Not in the crash
 * handler (it gives none). */
size_t mt_place_stack(uint32_t id, mt_place_t *out, mt_frame_t *frames, size_t max,
                      mt_wrapper_note_fn note, void *ctx);
/* True when most stacks of sites in the program's code (not a system library's) stop before
 * the C library's start of the program or thread, short of `depth` return addresses: the
 * walk found no caller's frame record, as in code built without frame pointers (the
 * program's, or a library's it called). Not in the crash handler. */
bool mt_place_stacks_stop_short(unsigned depth);
/* Notes where the program's code lies, for mt_place_of in the crash handler; at load time. */
void mt_place_prepare(void);

#endif /* MT_PLACE_H */
