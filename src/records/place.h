/* place.h - what a report shows of a site.
 */
#ifndef MT_PLACE_H
#define MT_PLACE_H

#include "base/platform.h"
#include "report/model.h"

/* Fills *out for site id; returns true when the site lies inside a system library (the C
 * library, the loader, libmemtrack: see place.c), which only address-only sites can. */
bool mt_place_of(uint32_t id, mt_place_t *out);
/* Notes where the program's code lies, for mt_place_of in the crash handler; at load time. */
void mt_place_prepare(void);

#endif /* MT_PLACE_H */
