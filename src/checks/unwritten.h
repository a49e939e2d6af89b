/* unwritten.h - bytes never written, per allocation site.
 */
#ifndef MT_UNWRITTEN_H
#define MT_UNWRITTEN_H

#include "base/platform.h"

typedef struct mt_unwritten_site {
    uint32_t site;
    uint64_t blocks;    /* blocks freed (not calloc) */
    uint64_t bytes;     /* their bytes */
    uint64_t unwritten; /* of which still held the new-block fill when freed */
} mt_unwritten_site_t;
void mt_unwritten_add(uint32_t site, size_t bytes, size_t unwritten);
/* Sites with counted bytes, most unwritten bytes first; returns how many (at most max). */
size_t mt_unwritten_collect(mt_unwritten_site_t *out, size_t max);

#endif /* MT_UNWRITTEN_H */
