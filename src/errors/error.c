/* error.c - heap errors: printed when found, counted, and kept for the report.
 *
 * Every error names what happened, the block (its size, allocation site and sequence
 * number) and where it was found. A loop with a bug must not flood the terminal: after
 * `max_messages` messages for the same kind of error at the same site, further ones are
 * counted, not printed, and one line says so.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/lock.h"
#include "base/memory.h"
#include "base/options.h"
#include "base/output.h"
#include "errors/error.h"
#include "records/site.h"
#include "records/stack.h"

void (*mt_error_observer)(const mt_error_t *e);

/* (kind, site) pairs whose messages are counted (64 on bare metal: past them, a new pair's
 * messages are counted, not printed, as past max_messages). */
#define CAP_SLOTS MT_SMALL(4096u, 64u)

typedef struct cap_slot {
    uint32_t site;
    uint32_t kind_plus_one; /* 0: empty */
    uint64_t messages;
} cap_slot_t;

static struct {
    pthread_mutex_t lock;
    mt_error_t log[MT_ERROR_LOG_MAX];
    size_t logged;
    cap_slot_t caps[CAP_SLOTS];
    size_t caps_used; /* slots taken: a clean run's report never walks (faults in) caps */
} errors MT_COLD = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The counts, apart from the log: every process reads them at exit, so they lie with the
 * small state every process touches, not on a page of their own after the log. */
static struct {
    _Atomic size_t total;
    _Atomic size_t by_kind[MT_ERROR_COUNT];
} counts;

/* In the crash handler nothing may wait: a lock the crashed thread holds is only tried. */
static bool lock_errors(void)
{
    if (MT_LIKELY(!mt_in_crash)) {
        mt_mutex_lock(&errors.lock);
        return true;
    }
    return mt_mutex_trylock(&errors.lock) == 0;
}

/* Counts one message for (kind, site); returns its number (1 for the first). */
static uint64_t count_message_locked(mt_error_kind_t kind, uint32_t site)
{
    site = mt_site_place(site); /* one cap for a place, whatever stacks led to it */
    uint32_t h = (site * 2654435761u) ^ ((uint32_t)kind * 40503u);
    for (unsigned probe = 0; probe < CAP_SLOTS; probe++) {
        cap_slot_t *c = &errors.caps[(h + probe) & (CAP_SLOTS - 1)];
        if (c->kind_plus_one == 0) {
            c->kind_plus_one = (uint32_t)kind + 1;
            c->site = site;
            errors.caps_used++;
        }
        if (c->kind_plus_one == (uint32_t)kind + 1 && c->site == site)
            return ++c->messages;
    }
    return UINT64_MAX; /* table full: treat as over the cap */
}

/* abort_on_error: the error is printed; stop here, for the core dump or the debugger. */
static void abort_now(void)
{
    int fd = mt_out_fd();
    if (fd >= 0) {
        static const char line[] = MT_PREFIX "abort_on_error=1: aborting at the first error\n";
        mt_write_all(fd, line, sizeof line - 1);
    }
    atomic_store(&mt_abort_expected, true); /* the crash handler lets it through */
    abort();
}

/* Prints one error, or for the one past the cap the line that says the rest are counted. */
static void print_message(const mt_error_t *e, uint64_t n, int fd)
{
    mt_buf_t b;
    mt_buf_init(&b, fd);
    if (n == (uint64_t)mt_opt.max_messages + 1) {
        mt_buf_line(&b);
        mt_buf_fmt(&b, "further %s errors found by ", mt_error_names[e->kind]);
        mt_buf_found_by_site(&b, e->found_site);
        mt_buf_fmt(&b, " are counted, not printed (max_messages=%" PRIu64 ")\n",
                   (uint64_t)mt_opt.max_messages);
    } else {
        mt_buf_error_message(&b, e);
    }
    if (mt_in_crash) {
        mt_buf_flush(&b); /* the crashed thread may hold the output lock */
    } else {
        mt_out_lock();
        mt_buf_flush(&b);
        mt_out_unlock();
    }
}

/* Messages kept while this thread holds a lock (see mt_locks_held in base/lock.h). */
#define PENDING_MAX MT_SMALL(64, 8) /* past them, a message is printed at once */
typedef struct pending_message {
    mt_error_t e;
    uint64_t n;
} pending_message_t;
static MT_TLS pending_message_t *pending;

/* Keeps a message for later; false when there is no room (it is then printed now). */
static bool keep_for_later(const mt_error_t *e, uint64_t n)
{
    if (pending == NULL)
        pending = mt_mem_alloc(PENDING_MAX * sizeof *pending);
    if (pending == NULL || mt_messages_pending >= PENDING_MAX)
        return false;
    pending[mt_messages_pending].e = *e;
    pending[mt_messages_pending].n = n;
    mt_print_pending = mt_error_print_pending; /* called by the last mt_unlock */
    mt_messages_pending++;
    return true;
}

static void print_pending(void)
{
    int count = mt_messages_pending;
    int fd = mt_out_fd();
    mt_messages_pending = 0;
    for (int i = 0; i < count && fd >= 0; i++)
        print_message(&pending[i].e, pending[i].n, fd);
}

static void report_error(const mt_error_t *e);

/* Whatever reporting does (opening the report file, reading debug information), the
 * program's errno is as it was: the tracker is a guest in its process. */
void mt_error_report(const mt_error_t *e)
{
    int saved = errno;
    report_error(e);
    errno = saved;
}

void mt_error_print_pending(void)
{
    int saved = errno;
    print_pending();
    errno = saved;
}

static void report_error(const mt_error_t *e)
{
    atomic_fetch_add(&counts.total, 1);
    atomic_fetch_add(&counts.by_kind[e->kind], 1);
    if (mt_error_observer != NULL)
        mt_error_observer(e);
    uint64_t n = 1;
    if (lock_errors()) {
        if (errors.logged < MT_ERROR_LOG_MAX)
            errors.log[errors.logged++] = *e;
        n = count_message_locked(e->kind, e->found_site);
        mt_mutex_unlock(&errors.lock);
    }

    bool stop = mt_opt.abort_on_error && !mt_in_crash;
    if (n > (uint64_t)mt_opt.max_messages + 1 || mt_out_fd() < 0) {
        if (stop)
            abort_now();
        return;
    }
    if (mt_locks_held > 0 && !stop && !mt_in_crash && keep_for_later(e, n))
        return;
    print_message(e, n, mt_out_fd());
    if (stop)
        abort_now();
}

bool mt_error_will_print(mt_error_kind_t kind, uint32_t site)
{
    uint64_t printed = 0;
    if (mt_out_fd() < 0)
        return false;
    if (!lock_errors())
        return true;
    site = mt_site_place(site);
    uint32_t h = (site * 2654435761u) ^ ((uint32_t)kind * 40503u);
    for (unsigned probe = 0; probe < CAP_SLOTS; probe++) {
        cap_slot_t *c = &errors.caps[(h + probe) & (CAP_SLOTS - 1)];
        if (c->kind_plus_one == 0)
            break;
        if (c->kind_plus_one == (uint32_t)kind + 1 && c->site == site) {
            printed = c->messages;
            break;
        }
    }
    mt_mutex_unlock(&errors.lock);
    return printed < (uint64_t)mt_opt.max_messages;
}

/* Most first; ties by kind, then site, so the order is the same from run to run. */
static bool capped_before(const mt_capped_t *a, const mt_capped_t *b)
{
    if (a->count != b->count)
        return a->count > b->count;
    if (a->kind != b->kind)
        return a->kind < b->kind;
    return a->site < b->site;
}

size_t mt_error_not_printed(mt_capped_t *out, size_t max)
{
    size_t n = 0;
    uint64_t cap = mt_opt.max_messages;
    if (max == 0 || !lock_errors())
        return 0;
    for (unsigned i = 0; i < CAP_SLOTS && errors.caps_used > 0; i++) {
        const cap_slot_t *c = &errors.caps[i];
        if (c->kind_plus_one == 0 || c->messages <= cap)
            continue;
        mt_capped_t one = {(mt_error_kind_t)(c->kind_plus_one - 1), c->site, c->messages - cap};
        size_t at; /* insertion: most first; when full, the smallest drops out */
        if (n < max)
            at = n++;
        else if (capped_before(&one, &out[max - 1]))
            at = max - 1;
        else
            continue;
        while (at > 0 && capped_before(&one, &out[at - 1])) {
            out[at] = out[at - 1];
            at--;
        }
        out[at] = one;
    }
    mt_mutex_unlock(&errors.lock);
    return n;
}

size_t mt_error_total(void)
{
    return atomic_load(&counts.total);
}

size_t mt_error_count(mt_error_kind_t kind)
{
    return atomic_load(&counts.by_kind[kind]);
}

size_t mt_error_logged(void)
{
    if (!lock_errors())
        return 0;
    size_t n = errors.logged;
    mt_mutex_unlock(&errors.lock);
    return n;
}

size_t mt_error_log(mt_error_t *out, size_t max)
{
    if (!lock_errors())
        return 0;
    size_t n = errors.logged < max ? errors.logged : max;
    memcpy(out, errors.log, n * sizeof *out);
    mt_mutex_unlock(&errors.lock);
    return n;
}

void mt_errors_lock_all(void)
{
    mt_mutex_lock(&errors.lock);
}

void mt_errors_unlock_all(void)
{
    mt_mutex_unlock(&errors.lock);
}

void mt_error_from_block(mt_error_t *e, const mt_block_t *b)
{
    e->addr = mt_block_addr(b);
    e->size = b->size;
    e->seq = MT_META_SEQ(b->meta);
    e->thread = MT_META_THREAD(b->meta);
    e->alloc_site = b->site;
}

void mt_error_init(mt_error_t *e, mt_error_kind_t kind, const mt_block_t *b, uint32_t found_site)
{
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->found_site = found_site; /* a release's site has the stack of its call */
    if (b != NULL)
        mt_error_from_block(e, b);
}

void mt_error_double_free(const mt_block_t *copy, uint32_t site)
{
    mt_error_t e;
    mt_error_init(&e, MT_ERROR_DOUBLE_FREE, copy, site);
    e.free_site = copy->free_site;
    e.pointer = mt_block_addr(copy);
    mt_error_report(&e);
}
