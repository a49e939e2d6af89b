/* owned_paged.c - pool objects and arena allocations against a guard page.
 *
 * page_guard_site=, page_guard=all and sampling (page_guard_rate) choose pool objects and
 * arena allocations as they choose malloc'd blocks: such an object is made in a slot of
 * checks/page_guard.c's region instead of the pool's slot or the arena's chunk (which the
 * owner keeps reserved, so the program sees the same capacity), and its record goes in the
 * table as any owned block's. Its release (mt_owned_remove) makes its pages inaccessible
 * with the record kept there: a read or a write after the object went back to its pool, or
 * after its arena's reset, faults at the access, and the fault names the line that made the
 * object and the release's.
 */
#include <string.h>

#include "api/api.h"
#include "api/owned.h"
#include "api/owned_log.h"
#include "checks/page_guard.h"

bool mt_owned_paged_due(void)
{
    return mt_owned_paged_due_inline();
}

bool mt_owned_paged_at(const void *addr)
{
    return mt_page_guarded((uintptr_t)addr);
}

void *mt_owned_paged_alloc(size_t size, size_t align, uint32_t site, uint64_t *seq)
{
    mt_freeze_layout();
    if (!mt_page_guard_choose(site))
        return NULL;
    if (align < MT_MIN_ALIGN)
        align = MT_MIN_ALIGN;
    unsigned char *user = mt_page_guard_alloc(size, align, site);
    if (user == NULL)
        return NULL;
    memset(user, MT_ALLOC_FILL_BYTE, size);
    if (!mt_owned_insert(user, size, align, site, seq)) {
        mt_page_guard_discard(user, size);
        return NULL;
    }
    return user;
}
