/* place.h - what a report shows of a site.
 */
#ifndef MT_PLACE_H
#define MT_PLACE_H

#include "base/platform.h"
#include "report/model.h"

/* Fills *out for site id; returns true when the site lies inside a system library (the C
 * library, the loader, libmemtrack: see place.c), which only address-only sites can. */
bool mt_place_of(uint32_t id, mt_place_t *out);
/* True when site id, known only by a return address, lies in the C runtime the process is
 * built on (the C library, the loader, the C++ runtime, libmemtrack): what the runtime
 * allocates for itself, as against the program and the libraries it uses. */
bool mt_place_in_runtime(uint32_t id);
/* True when file:line is one of the space-separated FILE:LINE entries of list, FILE
 * matching the end of the path at a '/' (options page_guard_site, fail_site). */
bool mt_place_listed(const char *list, const char *file, long line);
/* Fills out->stack with the callers of site id (frames in frames[0..max), resolved to
 * function, file and line), leaving out the place itself and the system's frames below
 * the program's last; returns how many. Not in the crash handler (it gives none). */
size_t mt_place_stack(uint32_t id, mt_place_t *out, mt_frame_t *frames, size_t max);
/* A return address inside the function of site id (the site's own for a site known by
 * address, the frame its macro is in otherwise), or NULL when not known. */
void *mt_place_function_pc(uint32_t id);
/* The return address in the caller of site id's function, or NULL when not known. */
void *mt_place_caller_pc(uint32_t id);
/* Notes where the program's code lies, for mt_place_of in the crash handler; at load time. */
void mt_place_prepare(void);

#endif /* MT_PLACE_H */
