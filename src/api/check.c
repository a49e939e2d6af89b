/* check.c - checking every block on demand (memtrack_check, check_every, the exit-time
 * and crash checks) and the statistics the program can read.
 */
#include <errno.h>

#include "api/api.h"
#include "api/owned.h"
#include "checks/page_guard.h"
#include "records/stats.h"
#include "checks/quarantine.h"

/* ---- introspection ------------------------------------------------------------------- */

typedef struct check_ctx {
    uint32_t site;
    int problems;
} check_ctx_t;

static void check_one(mt_block_t *b, void *ctx)
{
    check_ctx_t *c = ctx;
    c->problems += mt_check_block_locked(b, c->site);
}

/* Blocks whose back guard's last byte changed: an overrun that may run on into the blocks
 * after them. Found first, so those blocks are known as its victims before the walk that
 * reports reaches them, whatever the order it visits blocks in. */
typedef struct spill_ctx {
    mt_block_t found[MT_SPILL_MAX];
    mt_spill_t known[MT_SPILL_MAX];
    size_t n;
} spill_ctx_t;

static void find_spill(mt_block_t *b, void *ctx)
{
    spill_ctx_t *c = ctx;
    size_t back = mt_block_back();
    const unsigned char *end = (const unsigned char *)mt_block_addr(b) + b->size;
    if (c->n < MT_SPILL_MAX && back != 0 && !(b->meta & MT_META_FLAG_REPORTED) &&
        !mt_page_guarded(mt_block_addr(b)) && /* (its end touches an inaccessible page) */
        MT_UNLIKELY(end[back - 1] != MT_GUARD_BYTE) &&
        mt_block_damaged(b, &(mt_guard_damage_t){0}, &(mt_guard_damage_t){0}))
        c->found[c->n++] = *b;
}

/* Checks every live block, the spills first. Its own function, called only when blocks
 * are live (or in the crash handler, which takes no lock it may have to wait for): its
 * 7 KiB buffer made the exit of a process with none fault in one more page of stack
 * (tools/bench/README.md, "Start-up"). */
static MT_NOINLINE void check_live(check_ctx_t *c)
{
    spill_ctx_t spills; /* 7 KiB: fits the crash handler's stack too */
    spills.n = 0;
    mt_table_foreach(find_spill, &spills);
    for (size_t i = 0; i < spills.n; i++) { /* no lock held here */
        mt_spill_t *k = &spills.known[i];
        const mt_block_t *a = &spills.found[i];
        mt_guard_damage_t under, over;
        (void)mt_block_damaged(a, &under, &over);
        k->addr = mt_block_addr(a);
        k->extent = over.extent;
        k->changed = 0;
        k->spans = mt_overrun_spill(a, &k->extent, &k->changed, true);
    }
    mt_spills_known(spills.known, spills.n);
    mt_table_foreach(check_one, c);
    mt_spills_known(NULL, 0);
}

int mt_check_all(uint32_t site)
{
    check_ctx_t c = {site, 0};
    if (!mt_in_crash)
        mt_owners_publish(); /* arena allocations only logged so far (api/arena_tracked.c) */
    mt_busy++;
    if (mt_in_crash || !mt_table_empty())
        check_live(&c);
    mt_busy--;
    return c.problems + mt_quarantine_check_all(site);
}

MT_EXPORT int memtrack_check_at(const char *file, int line, const char *func)
{
    MT_ENTRY();
    int saved = errno; /* the program's errno is as it was */
    mt_init();
    int damaged = mt_check_all(mt_site_id(file, line, func, MT_KIND_CHECK, NULL));
    errno = saved;
    return damaged;
}

#undef memtrack_check
MT_EXPORT int memtrack_check(void)
{
    MT_ENTRY();
    int saved = errno;
    mt_init();
    int damaged = mt_check_all(mt_site_pc(__builtin_return_address(0), MT_KIND_CHECK));
    errno = saved;
    return damaged;
}

MT_EXPORT void memtrack_stats(memtrack_stats_t *out)
{
    MT_ENTRY();
    if (out != NULL) {
        mt_stats_read(out);
        out->errors = mt_error_total();
    }
}
