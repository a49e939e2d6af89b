/* stats.h - counters and sequence numbers.
 */
#ifndef MT_STATS_H
#define MT_STATS_H

#include "base/platform.h"

void mt_stats_alloc(size_t size);
void mt_stats_free(size_t size);
void mt_stats_failed(void);
void mt_stats_read(memtrack_stats_t *out);
/* Threads other than the caller that hold a slot now: alive, and tracking. */
unsigned mt_stats_other_threads(void);
uint64_t mt_next_seq(void);
/* The sequence number the next block will get. */
uint64_t mt_seq_upcoming(void);

#endif /* MT_STATS_H */
