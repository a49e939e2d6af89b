/* error.c - heap errors: printed when found, counted, and kept for the report.
 *
 * Every error names what happened, the block (its size, allocation site and sequence
 * number) and where it was found. A loop with a bug must not flood the terminal: after
 * `max_messages` messages for the same kind of error at the same site, further ones are
 * counted, not printed, and one line says so.
 */
#include <string.h>

#include "internal.h"

const char *const mt_error_names[MT_ERROR_COUNT] = {
#define MT_ERROR_NAME(name, text) text,
    MT_ERROR_LIST(MT_ERROR_NAME)
#undef MT_ERROR_NAME
};

#define CAP_SLOTS 4096u /* (kind, site) pairs whose messages are counted */

typedef struct cap_slot {
    uint32_t site;
    uint32_t kind_plus_one; /* 0: empty */
    uint64_t messages;
} cap_slot_t;

static struct {
    pthread_mutex_t lock;
    mt_error_t log[MT_ERROR_LOG_MAX];
    size_t logged;
    _Atomic size_t total;
    _Atomic size_t by_kind[MT_ERROR_COUNT];
    cap_slot_t caps[CAP_SLOTS];
} errors = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Counts one message for (kind, site); returns its number (1 for the first). */
static uint64_t count_message_locked(mt_error_kind_t kind, uint32_t site)
{
    uint32_t h = (site * 2654435761u) ^ ((uint32_t)kind * 40503u);
    for (unsigned probe = 0; probe < CAP_SLOTS; probe++) {
        cap_slot_t *c = &errors.caps[(h + probe) & (CAP_SLOTS - 1)];
        if (c->kind_plus_one == 0) {
            c->kind_plus_one = (uint32_t)kind + 1;
            c->site = site;
        }
        if (c->kind_plus_one == (uint32_t)kind + 1 && c->site == site)
            return ++c->messages;
    }
    return UINT64_MAX; /* table full: treat as over the cap */
}

static void print_block_line(mt_buf_t *b, const mt_error_t *e)
{
    mt_buf_line(b);
    mt_buf_str(b, "  allocated at ");
    mt_buf_site(b, e->alloc_site);
    mt_buf_str(b, " by ");
    mt_buf_str(b, mt_kind_names[mt_site_get(e->alloc_site)->kind]);
    mt_buf_str(b, " (block ");
    mt_buf_hex(b, e->addr);
    if (e->thread != 0) {
        mt_buf_str(b, ", thread ");
        mt_buf_u64(b, e->thread);
    }
    mt_buf_str(b, ")\n");
}

static void print_found_line(mt_buf_t *b, const mt_error_t *e)
{
    const mt_site_t *s = mt_site_get(e->found_site);
    mt_buf_line(b);
    mt_buf_str(b, "  found by ");
    switch (s->kind) {
    case MT_KIND_CHECK: mt_buf_str(b, "memtrack_check()"); break;
    case MT_KIND_EXIT: mt_buf_str(b, "the exit-time check\n"); return;
    default: mt_buf_str(b, mt_kind_names[s->kind]); break;
    }
    if (s->file != NULL || s->pc != NULL) {
        mt_buf_str(b, " at ");
        mt_buf_site(b, e->found_site);
    }
    mt_buf_char(b, '\n');
}

/* "block #4 (8 bytes)" */
static void print_block_name(mt_buf_t *b, const mt_error_t *e)
{
    mt_buf_str(b, "block #");
    mt_buf_u64(b, e->seq);
    mt_buf_str(b, " (");
    mt_buf_count(b, e->size, "byte", "bytes");
    mt_buf_char(b, ')');
}

static void print_error(mt_buf_t *b, const mt_error_t *e)
{
    mt_buf_line(b);
    mt_buf_str(b, "ERROR: ");
    switch (e->kind) {
    case MT_ERROR_OVERRUN:
        mt_buf_str(b, "overrun after ");
        print_block_name(b, e);
        mt_buf_str(b, ": ");
        mt_buf_count(b, e->changed, "byte", "bytes");
        mt_buf_str(b, " changed, up to ");
        mt_buf_count(b, e->extent, "byte", "bytes");
        mt_buf_str(b, " past its end\n");
        break;
    case MT_ERROR_UNDERRUN:
        mt_buf_str(b, "underrun before ");
        print_block_name(b, e);
        mt_buf_str(b, ": ");
        mt_buf_count(b, e->changed, "byte", "bytes");
        mt_buf_str(b, " changed, up to ");
        mt_buf_count(b, e->extent, "byte", "bytes");
        mt_buf_str(b, " before its start\n");
        break;
    case MT_ERROR_COUNT:
        break;
    }
    print_block_line(b, e);
    print_found_line(b, e);
}

void mt_error_report(const mt_error_t *e)
{
    atomic_fetch_add(&errors.total, 1);
    atomic_fetch_add(&errors.by_kind[e->kind], 1);
    pthread_mutex_lock(&errors.lock);
    if (errors.logged < MT_ERROR_LOG_MAX)
        errors.log[errors.logged++] = *e;
    uint64_t n = count_message_locked(e->kind, e->found_site);
    pthread_mutex_unlock(&errors.lock);

    int fd = mt_out_fd();
    if (fd < 0 || n > (uint64_t)mt_opt.max_messages + 1)
        return;
    mt_buf_t b;
    mt_buf_init(&b, fd);
    if (n == (uint64_t)mt_opt.max_messages + 1) {
        mt_buf_line(&b);
        mt_buf_str(&b, "further ");
        mt_buf_str(&b, mt_error_names[e->kind]);
        mt_buf_str(&b, " errors found at ");
        mt_buf_site(&b, e->found_site);
        mt_buf_str(&b, " are counted but not printed (max_messages=");
        mt_buf_u64(&b, mt_opt.max_messages);
        mt_buf_str(&b, ")\n");
    } else {
        print_error(&b, e);
    }
    mt_out_lock();
    mt_buf_flush(&b);
    mt_out_unlock();
}

size_t mt_error_total(void)
{
    return atomic_load(&errors.total);
}

size_t mt_error_count(mt_error_kind_t kind)
{
    return atomic_load(&errors.by_kind[kind]);
}

size_t mt_error_log(mt_error_t *out, size_t max)
{
    pthread_mutex_lock(&errors.lock);
    size_t n = errors.logged < max ? errors.logged : max;
    memcpy(out, errors.log, n * sizeof *out);
    pthread_mutex_unlock(&errors.lock);
    return n;
}

void mt_errors_lock_all(void)
{
    pthread_mutex_lock(&errors.lock);
}

void mt_errors_unlock_all(void)
{
    pthread_mutex_unlock(&errors.lock);
}
