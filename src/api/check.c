/* check.c - checking every block on demand (memtrack_check, check_every, the exit-time
 * and crash checks) and the statistics the program can read.
 */
#include <errno.h>

#include "api/api.h"
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

int mt_check_all(uint32_t site)
{
    check_ctx_t c = {site, 0};
    mt_busy++;
    mt_table_foreach(check_one, &c);
    mt_busy--;
    return c.problems + mt_quarantine_check_all(site);
}

MT_EXPORT int memtrack_check_at(const char *file, int line, const char *func)
{
    int saved = errno; /* the program's errno is as it was */
    mt_init();
    int damaged = mt_check_all(mt_site_id(file, line, func, MT_KIND_CHECK, NULL));
    errno = saved;
    return damaged;
}

#undef memtrack_check
MT_EXPORT int memtrack_check(void)
{
    int saved = errno;
    mt_init();
    int damaged = mt_check_all(mt_site_pc(__builtin_return_address(0), MT_KIND_CHECK));
    errno = saved;
    return damaged;
}

MT_EXPORT void memtrack_stats(memtrack_stats_t *out)
{
    if (out != NULL) {
        mt_stats_read(out);
        out->errors = mt_error_total();
    }
}
