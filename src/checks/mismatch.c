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

static bool kinds_mismatched(uint32_t alloc_site, uint32_t release_site)
{
    mt_kind_t want = (mt_kind_t)mt_kind_release[mt_site_get(alloc_site)->kind];
    mt_kind_t got = release_family(mt_site_get(release_site)->kind);
    return checked_family(want) && checked_family(got) && want != got;
}

bool mt_release_mismatched(uint32_t alloc_site, uint32_t release_site)
{
    return mt_families_met() && kinds_mismatched(alloc_site, release_site);
}

void mt_check_release_kinds(const mt_block_t *b, uint32_t release_site)
{
    if (MT_LIKELY(!kinds_mismatched(b->site, release_site)))
        return;
    mt_error_t e;
    mt_error_init(&e, MT_ERROR_MISMATCH, b, release_site);
    mt_error_report(&e);
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
