/* timeline.h - live bytes and blocks sampled over the run.
 */
#ifndef MT_TIMELINE_H
#define MT_TIMELINE_H

#include "base/platform.h"
#include "report/model.h"

#define MT_TIMELINE_MAX MT_SMALL(1024u, 16u) /* (bare metal: 512 bytes of samples) */
/* stats.c samples when an allocation or free count n has (n & mt_timeline_mask) == 0. The
 * mask only grows, to 2 * mask + 1 (or all ones): stats.c keeps the next count that may be due
 * and compares with that alone. */
extern MT_HIDDEN _Atomic uint64_t mt_timeline_mask;
void mt_timeline_sample(void);
/* Live bytes reached a new peak (stats.c, when it raised peak_bytes). */
void mt_timeline_peak(uint64_t bytes, uint64_t blocks, uint64_t event);
/* The highest point of live bytes, with the blocks live then (its time not filled in). */
void mt_timeline_peak_read(mt_sample_t *peak);
/* Copies the samples, then one for now, into out; *peak gets the highest point. */
size_t mt_timeline_copy(mt_sample_t *out, size_t max, mt_sample_t *peak);
/* Around fork, so a child never inherits the samples' lock taken. */
void mt_timeline_lock(void);
void mt_timeline_unlock(void);

#endif /* MT_TIMELINE_H */
