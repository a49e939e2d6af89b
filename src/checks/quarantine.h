/* quarantine.h - freed blocks held back to catch double frees and late writes.
 */
#ifndef MT_QUARANTINE_H
#define MT_QUARANTINE_H

#include "errors/error.h"
#include "records/table.h"

/* What a freed block counts against the quarantine budget: all it holds from the C
 * library (guards included), at least 16 bytes so empty blocks count too. */
size_t mt_quarantine_cost(size_t size, unsigned align_shift);
/* Puts a block just taken out of the live table into quarantine as pending. False when it
 * does not fit the budget or the hash cannot grow: the caller releases it at once. */
bool mt_quarantine_put_locked(mt_shard_t *s, mt_block_t *b, size_t budget);
/* Releases the oldest non-pending blocks while the shard holds more than `budget`. Blocks
 * found written after free are described in errs[0..max) for the caller to report once
 * the lock is released; returns how many. Stops early when errs is full. */
#define MT_EVICT_REPORTS 8u
size_t mt_quarantine_evict_locked(mt_shard_t *s, size_t budget, uint32_t site, mt_error_t *errs,
                                  size_t max);
/* The freeing thread's part, outside the lock: fill the block (counting bytes never
 * written), then end its pending state so it may leave the quarantine. */
void mt_quarantine_fill_and_publish(mt_block_t *b, const mt_block_t *copy);
/* Releases every quarantined block (out of memory); returns bytes given back. */
size_t mt_quarantine_drain(uint32_t site);
/* Checks every block in quarantine for writes after free, reporting each damaged block
 * once; returns how many were damaged (memtrack_check, the exit-time check). */
int mt_quarantine_check_all(uint32_t site);
/* Fills e for a double free of the quarantined block copy, found at site. */
void mt_error_double_free(const mt_block_t *copy, uint32_t site);

#endif /* MT_QUARANTINE_H */
