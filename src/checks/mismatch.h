/* mismatch.h - releases of the wrong family (new[] by delete, malloc by delete...).
 */
#ifndef MT_MISMATCH_H
#define MT_MISMATCH_H

#include "records/site.h"
#include "records/table.h"

/* The kinds of each checked family: those it releases (its allocations) and those that
 * release as it does (itself, and realloc for free). */
#define MT_KIND_BIT(name) (UINT64_C(1) << MT_KIND_##name)
#define MT_OF_FREE(name, text, family)                                                             \
    | (MT_KIND_##family == MT_KIND_FREE || MT_KIND_##name == MT_KIND_FREE ? MT_KIND_BIT(name) : 0)
#define MT_OF_DELETE(name, text, family)                                                           \
    | (MT_KIND_##family == MT_KIND_DELETE || MT_KIND_##name == MT_KIND_DELETE ? MT_KIND_BIT(name)  \
                                                                              : 0)
#define MT_OF_DELETE_ARRAY(name, text, family)                                                     \
    | (MT_KIND_##family == MT_KIND_DELETE_ARRAY || MT_KIND_##name == MT_KIND_DELETE_ARRAY          \
           ? MT_KIND_BIT(name)                                                                     \
           : 0)
#define MT_FREE_KINDS (0 MT_KIND_LIST(MT_OF_FREE))
#define MT_DELETE_KINDS (0 MT_KIND_LIST(MT_OF_DELETE))
#define MT_DELETE_ARRAY_KINDS (0 MT_KIND_LIST(MT_OF_DELETE_ARRAY))

/* A mismatch needs an allocation of one checked family and a release of another, so sites
 * of two families' kinds: a C program has only free's, and its releases need no kinds.
 * The families' kinds are apart, so two have met when each family has a kind made
 * outside it. Inline: every release tests it, and a C program's stops here. */
static inline bool mt_families_met(void)
{
    uint64_t made = atomic_load_explicit(&mt_site_kinds_made, memory_order_acquire);
    return (made & (MT_DELETE_KINDS | MT_DELETE_ARRAY_KINDS)) != 0 &&
           (made & (MT_FREE_KINDS | MT_DELETE_ARRAY_KINDS)) != 0 &&
           (made & (MT_FREE_KINDS | MT_DELETE_KINDS)) != 0;
}

bool mt_release_mismatched(uint32_t alloc_site, uint32_t release_site);
/* mt_check_release once the families have met: the kinds' verdict and its error, out of
 * line, so that a release saves no registers for them and makes no room for the error. */
void mt_check_release_kinds(const mt_block_t *b, uint32_t release_site);
/* Reports a mismatched release of b (an error naming both sites); the caller still
 * releases the block. */
static inline void mt_check_release(const mt_block_t *b, uint32_t release_site)
{
    if (MT_UNLIKELY(mt_families_met()))
        mt_check_release_kinds(b, release_site);
}
/* Reports a sized delete of b given `size` bytes when it holds another size (and the
 * release is not already a mismatch). */
void mt_check_delete_size(const mt_block_t *b, uint32_t release_site, size_t size);

#endif /* MT_MISMATCH_H */
