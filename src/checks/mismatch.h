/* mismatch.h - releases of the wrong family (new[] by delete, malloc by delete...).
 */
#ifndef MT_MISMATCH_H
#define MT_MISMATCH_H

#include "records/table.h"

bool mt_release_mismatched(uint32_t alloc_site, uint32_t release_site);
/* Reports a mismatched release of b (an error naming both sites); the caller still
 * releases the block. */
void mt_check_release(const mt_block_t *b, uint32_t release_site);
/* Reports a sized delete of b given `size` bytes when it holds another size (and the
 * release is not already a mismatch). */
void mt_check_delete_size(const mt_block_t *b, uint32_t release_site, size_t size);

#endif /* MT_MISMATCH_H */
