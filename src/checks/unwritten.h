/* unwritten.h - bytes never written, per allocation site.
 */
#ifndef MT_UNWRITTEN_H
#define MT_UNWRITTEN_H

#include "base/options.h"
#include "checks/guard.h"
#include "records/table.h"

typedef struct mt_unwritten_site {
    uint32_t site;
    uint64_t blocks;    /* blocks freed (not calloc) */
    uint64_t bytes;     /* their bytes */
    uint64_t unwritten; /* of which still held the new-block fill when freed */
} mt_unwritten_site_t;
void mt_unwritten_add(uint32_t site, size_t bytes, size_t unwritten);
/* Whether blocks made at site are counted when freed: not made by calloc. */
bool mt_unwritten_site_counts(uint32_t site);
/* Whether a freed block (a record copy) is counted: option unwritten, new blocks filled,
 * not made by calloc. Inline: every free asks, and the option is off by default. */
static inline bool mt_unwritten_counts(const mt_block_t *b)
{
    return MT_UNLIKELY(mt_opt.unwritten) && mt_fill_new && mt_unwritten_site_counts(b->site);
}
/* Counts the bytes of b still holding the new-block fill, for its allocation site. */
void mt_unwritten_count_block(const mt_block_t *b);
/* Sites with counted bytes, most unwritten bytes first; returns how many (at most max). */
size_t mt_unwritten_collect(mt_unwritten_site_t *out, size_t max);

#endif /* MT_UNWRITTEN_H */
