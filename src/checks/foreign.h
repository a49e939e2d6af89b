/* foreign.h - pointers the tracker never made.
 */
#ifndef MT_FOREIGN_H
#define MT_FOREIGN_H

#include "base/probe.h" /* mt_probe_read */
#include "errors/error.h"

/* True when ptr is plausibly the start of a block the C library made and still lends out,
 * so handing it to the C library's free or realloc cannot crash. Otherwise *why says what
 * it is as far as the cheap checks tell (WILD, NOT_HEAP, RELEASED). */
bool mt_foreign_is_libc_block(const void *ptr, mt_pointer_class_t *why);
/* Describes a bad pointer released by tracked code for an INVALID_FREE error: points
 * inside a tracked block (live or freed; names it), stack, static, or `why`. The table
 * scan behind "inside a block" is skipped when detailed is false. */
/* True when ptr lies inside a live or quarantined tracked block (its guards included): a
 * scan of every block, for the rare pointers that are nothing else. */
bool mt_foreign_inside_tracked(const void *ptr);
void mt_foreign_describe(const void *ptr, mt_pointer_class_t why, bool detailed, mt_error_t *e);

#endif /* MT_FOREIGN_H */
