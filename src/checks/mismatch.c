/* mismatch.c - a block released by a function of the wrong family: new[] by delete, new
 * by delete[], malloc by delete, new by free or realloc; and a sized delete that names
 * another size than the block's.
 *
 * The allocation site's kind says how a block was made; mt_kind_release[] maps it to the
 * release that matches. Only the three families a program can confuse are compared (free,
 * delete, delete[]); pools, arenas and registered blocks check their own releases. The
 * block is then released as it was made: the tracker's blocks all come from the C
 * library, so releasing one by any family is safe once the C++ cookie is accounted for
 * (cxx_blocks.c).
 */
#include "checks/mismatch.h"
#include "errors/error.h"
#include "records/site.h"

/* The family a release site belongs to: realloc and reallocarray release as free does. */
static mt_kind_t release_family(mt_kind_t kind)
{
    switch (kind) {
    case MT_KIND_FREE:
    case MT_KIND_DELETE:
    case MT_KIND_DELETE_ARRAY: return kind;
    default: return (mt_kind_t)mt_kind_release[kind];
    }
}

static bool checked_family(mt_kind_t family)
{
    return family == MT_KIND_FREE || family == MT_KIND_DELETE || family == MT_KIND_DELETE_ARRAY;
}

/* The kinds of each checked family: those it releases (its allocations) and those that
 * release as it does (itself, and realloc for free). */
#define KIND_BIT(name) (UINT64_C(1) << MT_KIND_##name)
#define OF_FREE(name, text, family)                                                                \
    | (MT_KIND_##family == MT_KIND_FREE || MT_KIND_##name == MT_KIND_FREE ? KIND_BIT(name) : 0)
#define OF_DELETE(name, text, family)                                                              \
    | (MT_KIND_##family == MT_KIND_DELETE || MT_KIND_##name == MT_KIND_DELETE ? KIND_BIT(name) : 0)
#define OF_DELETE_ARRAY(name, text, family)                                                        \
    | (MT_KIND_##family == MT_KIND_DELETE_ARRAY || MT_KIND_##name == MT_KIND_DELETE_ARRAY          \
           ? KIND_BIT(name)                                                                        \
           : 0)
#define FREE_KINDS (0 MT_KIND_LIST(OF_FREE))
#define DELETE_KINDS (0 MT_KIND_LIST(OF_DELETE))
#define DELETE_ARRAY_KINDS (0 MT_KIND_LIST(OF_DELETE_ARRAY))

/* A mismatch needs an allocation of one checked family and a release of another, so sites
 * of two families' kinds: a C program has only free's, and its releases need no kinds.
 * The families' kinds are apart, so two have met when each family has a kind made
 * outside it. */
static inline bool families_met(void)
{
    uint64_t made = atomic_load_explicit(&mt_site_kinds_made, memory_order_acquire);
    return (made & (DELETE_KINDS | DELETE_ARRAY_KINDS)) != 0 &&
           (made & (FREE_KINDS | DELETE_ARRAY_KINDS)) != 0 &&
           (made & (FREE_KINDS | DELETE_KINDS)) != 0;
}

static bool kinds_mismatched(uint32_t alloc_site, uint32_t release_site)
{
    mt_kind_t want = (mt_kind_t)mt_kind_release[mt_site_get(alloc_site)->kind];
    mt_kind_t got = release_family(mt_site_get(release_site)->kind);
    return checked_family(want) && checked_family(got) && want != got;
}

bool mt_release_mismatched(uint32_t alloc_site, uint32_t release_site)
{
    return families_met() && kinds_mismatched(alloc_site, release_site);
}

/* The kinds' verdict and its error, out of line: while families_met is false, a release
 * saves no registers for them and makes no room for the error. */
static MT_NOINLINE void check_kinds(const mt_block_t *b, uint32_t release_site)
{
    if (MT_LIKELY(!kinds_mismatched(b->site, release_site)))
        return;
    mt_error_t e;
    mt_error_init(&e, MT_ERROR_MISMATCH, b, release_site);
    mt_error_report(&e);
}

void mt_check_release(const mt_block_t *b, uint32_t release_site)
{
    if (MT_UNLIKELY(families_met()))
        check_kinds(b, release_site);
}

/* C++14 sized deallocation passes the size of the type deleted: the static type for a
 * class without a virtual destructor, so a derived object deleted through its base gives
 * the base's size. new[] with a cookie passes the whole block's size. */
void mt_check_delete_size(const mt_block_t *b, uint32_t release_site, size_t size)
{
    if (MT_LIKELY(size == b->size) || mt_release_mismatched(b->site, release_site))
        return;
    mt_error_t e;
    mt_error_init(&e, MT_ERROR_DELETE_SIZE, b, release_site);
    e.extent = size;
    mt_error_report(&e);
}
