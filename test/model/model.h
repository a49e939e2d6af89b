/* model.h - a reference model of what memtrack must report, driven by a byte stream.
 *
 * model_step() reads a few bytes, picks an operation (allocate, free, realloc, overrun,
 * underrun, write after free, double free, realloc of a freed block, free or realloc of a
 * bad pointer, check, impossible size) and does it through memtrack's entry points. The
 * model knows what each must make memtrack report (kind, block, sizes, sites, offsets,
 * changed bytes), what the quarantine holds shard by shard, and what every live block
 * holds; after each step it compares the errors memtrack reported with its own.
 */
#ifndef MODEL_H
#define MODEL_H

#include <stddef.h>
#include <stdint.h>

/* Sets memtrack's options (quiet, the quarantine's size) and the error observer. Call once,
 * before any tracked allocation. */
void model_init(size_t quarantine);
/* One operation from data; returns 0, or 1 after printing what differed. */
int model_step(const uint8_t **data, size_t *len);
/* Frees every live block (with what that must report) and checks the totals. */
int model_finish(void);
/* Steps run so far, and operations by kind, for the summary line. */
void model_summary(void);

#endif
