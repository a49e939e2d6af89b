/* error.c - heap errors: printed when found, counted, and kept for the report.
 *
 * Every error names what happened, the block (its size, allocation site and sequence
 * number) and where it was found. A loop with a bug must not flood the terminal: after
 * `max_messages` messages for the same kind of error at the same site, further ones are
 * counted, not printed, and one line says so.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void (*mt_error_observer)(const mt_error_t *e);

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

/* In the crash handler nothing may wait: a lock the crashed thread holds is only tried. */
static bool lock_errors(void)
{
    if (MT_LIKELY(!mt_in_crash)) {
        pthread_mutex_lock(&errors.lock);
        return true;
    }
    return pthread_mutex_trylock(&errors.lock) == 0;
}

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

/* "pool \"bullets\"", "malloc" */
static void print_kind_owner(mt_buf_t *b, uint32_t site)
{
    const mt_site_t *s = mt_site_get(site);
    mt_buf_str(b, mt_kind_names[s->kind]);
    if (s->owner != NULL) {
        mt_buf_str(b, " \"");
        mt_buf_str(b, s->owner);
        mt_buf_char(b, '"');
    }
}

static void print_block_line(mt_buf_t *b, const mt_error_t *e)
{
    mt_buf_line(b);
    mt_buf_str(b, "  allocated at ");
    mt_buf_site(b, e->alloc_site);
    mt_buf_str(b, " by ");
    print_kind_owner(b, e->alloc_site);
    mt_buf_str(b, " (block ");
    mt_buf_hex(b, e->addr);
    if (e->thread != 0) {
        mt_buf_str(b, ", thread ");
        mt_buf_u64(b, e->thread);
    }
    mt_buf_str(b, ")\n");
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

/* What found an error: "free at x.c:3 in f()", "memtrack_check() at ...", "the exit-time
 * check"... */
static void print_found_by(mt_buf_t *b, uint32_t site)
{
    const mt_site_t *s = mt_site_get(site);
    switch (s->kind) {
    case MT_KIND_CHECK: mt_buf_str(b, "memtrack_check()"); break;
    case MT_KIND_EXIT: mt_buf_str(b, "the exit-time check"); return;
    case MT_KIND_CRASH: mt_buf_str(b, "the crash report"); return;
    case MT_KIND_PERIODIC:
        mt_buf_str(b, "the periodic check (check_every=");
        mt_buf_u64(b, mt_opt.check_every);
        mt_buf_char(b, ')');
        break;
    default: mt_buf_str(b, mt_kind_names[s->kind]); break;
    }
    if (s->file != NULL || s->pc != NULL) {
        mt_buf_str(b, " at ");
        mt_buf_site(b, site);
    }
}

static void print_found_line(mt_buf_t *b, const mt_error_t *e)
{
    mt_kind_t kind = mt_site_get(e->found_site)->kind;
    mt_buf_line(b);
    mt_buf_str(b, "  found by ");
    print_found_by(b, e->found_site);
    /* A freed block is checked when it leaves the quarantine, during some later free. */
    if (e->kind == MT_ERROR_WRITE_AFTER_FREE && kind != MT_KIND_CHECK &&
        kind != MT_KIND_PERIODIC && kind != MT_KIND_EXIT && kind != MT_KIND_CRASH)
        mt_buf_str(b, ", as the block left quarantine");
    mt_buf_char(b, '\n');
}

/* "  freed at x.c:3 in f() by free" */
static void print_freed_line(mt_buf_t *b, const mt_error_t *e)
{
    mt_kind_t kind = mt_site_get(e->free_site)->kind;
    mt_buf_line(b);
    mt_buf_str(b, "  freed at ");
    mt_buf_site(b, e->free_site);
    mt_buf_str(b, " by ");
    mt_buf_str(b, mt_kind_names[kind]);
    if (kind == MT_KIND_REALLOC || kind == MT_KIND_REALLOCARRAY)
        mt_buf_str(b, ", which moved it");
    mt_buf_char(b, '\n');
}

static bool found_by_realloc(const mt_error_t *e)
{
    mt_kind_t kind = mt_site_get(e->found_site)->kind;
    return kind == MT_KIND_REALLOC || kind == MT_KIND_REALLOCARRAY;
}

/* " (in libfoo.so, symbol+0x10)" for an address inside a loaded module. */
static void print_module_of(mt_buf_t *b, uintptr_t p)
{
    Dl_info info;
    if (mt_in_crash || dladdr((void *)p, &info) == 0 || info.dli_fname == NULL)
        return;
    const char *slash = strrchr(info.dli_fname, '/');
    mt_buf_str(b, " in ");
    mt_buf_str(b, info.dli_fname[0] == '\0' ? mt_program_name()
                                            : slash != NULL ? slash + 1 : info.dli_fname);
    if (info.dli_sname != NULL) {
        mt_buf_str(b, ", ");
        mt_buf_str(b, info.dli_sname);
        if (p != (uintptr_t)info.dli_saddr) {
            mt_buf_char(b, '+');
            mt_buf_hex(b, (uint64_t)(p - (uintptr_t)info.dli_saddr));
        }
    }
}

/* The first line of an invalid free: what the pointer was, and what was done with it. */
static void print_invalid_free(mt_buf_t *b, const mt_error_t *e)
{
    bool by_realloc = found_by_realloc(e);
    mt_buf_str(b, by_realloc ? "realloc of " : "free of ");
    switch ((mt_pointer_class_t)e->what) {
    case MT_POINTER_INSIDE_LIVE:
    case MT_POINTER_INSIDE_FREED:
        mt_buf_str(b, e->what == MT_POINTER_INSIDE_LIVE ? "a pointer inside "
                                                        : "a pointer inside freed ");
        print_block_name(b, e);
        mt_buf_str(b, ", ");
        mt_buf_from_start(b, e->offset);
        break;
    case MT_POINTER_STACK:
    case MT_POINTER_STATIC:
    case MT_POINTER_WILD:
    case MT_POINTER_UNKNOWN:
        mt_buf_str(b, mt_pointer_class_names[e->what]);
        mt_buf_str(b, " (");
        mt_buf_hex(b, e->pointer);
        if (e->what == MT_POINTER_STATIC)
            print_module_of(b, e->pointer);
        mt_buf_char(b, ')');
        if (e->what == MT_POINTER_WILD)
            mt_buf_str(b, ", not readable");
        break;
    case MT_POINTER_NOT_HEAP:
        mt_buf_hex(b, e->pointer);
        mt_buf_str(b, ", which the C library did not allocate");
        break;
    case MT_POINTER_RELEASED:
        mt_buf_hex(b, e->pointer);
        mt_buf_str(b, ", a block the C library already has back");
        break;
    case MT_POINTER_COUNT:
        break;
    }
    mt_buf_str(b, by_realloc ? "; realloc returns NULL\n" : "; left alone\n");
}

static void print_owned_error(mt_buf_t *b, const mt_error_t *e);

/* ---- mismatched releases (mismatch.c) ------------------------------------------------ */

/* "mismatched delete of block #4 (40 bytes) made by new[]: release it with delete[]" */
static void print_mismatch(mt_buf_t *b, const mt_error_t *e)
{
    mt_kind_t made = mt_site_get(e->alloc_site)->kind;
    mt_buf_str(b, "mismatched ");
    mt_buf_str(b, mt_kind_names[mt_site_get(e->found_site)->kind]);
    mt_buf_str(b, " of ");
    print_block_name(b, e);
    mt_buf_str(b, " made by ");
    mt_buf_str(b, mt_kind_names[made]);
    mt_buf_str(b, ": release it with ");
    mt_buf_str(b, mt_kind_names[mt_kind_release[made]]);
    mt_buf_char(b, '\n');
}

/* "delete of block #4 (24 bytes) as 16 bytes: deleted through a base class without a
 * virtual destructor?" */
static void print_delete_size(mt_buf_t *b, const mt_error_t *e)
{
    mt_buf_str(b, mt_kind_names[mt_site_get(e->found_site)->kind]);
    mt_buf_str(b, " of ");
    print_block_name(b, e);
    mt_buf_str(b, " as ");
    mt_buf_count(b, e->extent, "byte", "bytes");
    mt_buf_str(b, ": deleted through a base class without a virtual destructor?\n");
}

/* ---- all errors ---------------------------------------------------------------------- */

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
    case MT_ERROR_POOL_DOUBLE_RELEASE:
    case MT_ERROR_POOL_INTERIOR_RELEASE:
    case MT_ERROR_POOL_FOREIGN_RELEASE:
    case MT_ERROR_POOL_WRITE_AFTER_RELEASE:
    case MT_ERROR_POOL_LIVE_AT_DESTROY:
    case MT_ERROR_ARENA_WRITE_AFTER_RELEASE:
    case MT_ERROR_ARENA_BAD_MARK:
    case MT_ERROR_OWNED_FREE:
    case MT_ERROR_REGISTER_CONFLICT:
    case MT_ERROR_UNREGISTER_UNKNOWN:
    case MT_ERROR_UNREGISTER_OWNER:
        print_owned_error(b, e);
        return;
    case MT_ERROR_MISMATCH:
        print_mismatch(b, e);
        break;
    case MT_ERROR_DELETE_SIZE:
        print_delete_size(b, e);
        break;
    case MT_ERROR_DOUBLE_FREE:
        mt_buf_str(b, found_by_realloc(e) ? "realloc of freed " : "double free of ");
        print_block_name(b, e);
        mt_buf_char(b, '\n');
        print_block_line(b, e);
        print_freed_line(b, e);
        print_found_line(b, e);
        return;
    case MT_ERROR_WRITE_AFTER_FREE:
        mt_buf_str(b, "write after free to ");
        print_block_name(b, e);
        mt_buf_str(b, ": ");
        mt_buf_count(b, e->changed, "byte", "bytes");
        if (e->extent - (size_t)e->offset == 1) {
            mt_buf_str(b, " changed at offset ");
        } else {
            mt_buf_str(b, " changed from offset ");
            mt_buf_u64(b, (uint64_t)e->offset);
            mt_buf_str(b, " to ");
            mt_buf_u64(b, e->extent - 1);
            mt_buf_char(b, '\n');
            print_block_line(b, e);
            print_freed_line(b, e);
            print_found_line(b, e);
            return;
        }
        mt_buf_u64(b, (uint64_t)e->offset);
        mt_buf_char(b, '\n');
        print_block_line(b, e);
        print_freed_line(b, e);
        print_found_line(b, e);
        return;
    case MT_ERROR_INVALID_FREE:
        print_invalid_free(b, e);
        if (e->what == MT_POINTER_INSIDE_LIVE || e->what == MT_POINTER_INSIDE_FREED)
            print_block_line(b, e);
        if (e->what == MT_POINTER_INSIDE_FREED)
            print_freed_line(b, e);
        print_found_line(b, e);
        return;
    case MT_ERROR_COUNT:
        break;
    }
    print_block_line(b, e);
    print_found_line(b, e);
}

/* ---- pools, arenas and registered blocks (pool.c, arena.c, register.c) ----------------
 * Their errors name the owner (the pool, arena or registrar, from the sites' owner) and,
 * when a block is involved, its number, size and the sites that made and released it. */

/* The owner named by a site: "pool \"bullets\"", "arena \"level\"", or a registrar's
 * bare "\"myalloc\"". */
static void print_owner_of(mt_buf_t *b, uint32_t site)
{
    const mt_site_t *s = mt_site_get(site);
    const char *noun = NULL;
    switch (s->kind) {
    case MT_KIND_POOL: case MT_KIND_POOL_ALLOC: case MT_KIND_POOL_FREE:
    case MT_KIND_POOL_CLEAR: case MT_KIND_POOL_DESTROY: case MT_KIND_POOL_CHECK:
        noun = "pool ";
        break;
    case MT_KIND_ARENA: case MT_KIND_ARENA_ALLOC: case MT_KIND_ARENA_RESET:
    case MT_KIND_ARENA_REWIND: case MT_KIND_ARENA_DESTROY:
        noun = "arena ";
        break;
    default:
        break;
    }
    if (noun != NULL)
        mt_buf_str(b, noun);
    mt_buf_char(b, '"');
    mt_buf_str(b, s->owner != NULL ? s->owner : "?");
    mt_buf_char(b, '"');
}

/* "object #12 (24 bytes)" for a pool, "allocation #3" for an arena, "block #7" else. */
static void print_owned_name(mt_buf_t *b, const mt_error_t *e)
{
    switch (mt_site_get(e->alloc_site)->kind) {
    case MT_KIND_POOL: mt_buf_str(b, "object #"); break;
    case MT_KIND_ARENA: mt_buf_str(b, "allocation #"); break;
    default: mt_buf_str(b, "block #"); break;
    }
    mt_buf_u64(b, e->seq);
    mt_buf_str(b, " (");
    mt_buf_count(b, e->size, "byte", "bytes");
    mt_buf_char(b, ')');
}

static void print_released_line(mt_buf_t *b, const char *what, uint32_t site)
{
    mt_buf_line(b);
    mt_buf_str(b, what);
    mt_buf_str(b, " by ");
    mt_buf_str(b, mt_kind_names[mt_site_get(site)->kind]);
    if (mt_site_get(site)->file != NULL || mt_site_get(site)->pc != NULL) {
        mt_buf_str(b, " at ");
        mt_buf_site(b, site);
    }
    mt_buf_char(b, '\n');
}

/* ", the first at offset 8" / ", the first 4 bytes before its start" */
static void print_offset(mt_buf_t *b, int64_t offset)
{
    if (offset >= 0) {
        mt_buf_str(b, ", the first at offset ");
        mt_buf_u64(b, (uint64_t)offset);
    } else {
        mt_buf_str(b, ", the first ");
        mt_buf_count(b, (uint64_t)-offset, "byte", "bytes");
        mt_buf_str(b, " before its start");
    }
}

/* " of block #4 (8 bytes) made by malloc" */
static void print_block_made_by(mt_buf_t *b, const mt_error_t *e)
{
    mt_buf_str(b, " of block #");
    mt_buf_u64(b, e->seq);
    mt_buf_str(b, " (");
    mt_buf_count(b, e->size, "byte", "bytes");
    mt_buf_str(b, ") made by ");
    print_kind_owner(b, e->alloc_site);
}

static void print_owned_error(mt_buf_t *b, const mt_error_t *e)
{
    bool block_line = e->alloc_site != MT_SITE_NONE;
    switch (e->kind) {
    case MT_ERROR_POOL_DOUBLE_RELEASE:
        mt_buf_str(b, "double release of ");
        print_owned_name(b, e);
        mt_buf_str(b, " to ");
        print_owner_of(b, e->found_site);
        mt_buf_char(b, '\n');
        break;
    case MT_ERROR_POOL_INTERIOR_RELEASE:
        mt_buf_str(b, "release to ");
        print_owner_of(b, e->found_site);
        mt_buf_str(b, " of a pointer ");
        if (e->offset < 0) {
            mt_buf_count(b, (uint64_t)-e->offset, "byte", "bytes");
            mt_buf_str(b, " before ");
        } else if ((uint64_t)e->offset >= e->size) {
            mt_buf_count(b, (uint64_t)e->offset - e->size, "byte", "bytes");
            mt_buf_str(b, " past the end of ");
        } else {
            mt_buf_count(b, (uint64_t)e->offset, "byte", "bytes");
            mt_buf_str(b, " into ");
        }
        print_owned_name(b, e);
        mt_buf_char(b, '\n');
        break;
    case MT_ERROR_POOL_FOREIGN_RELEASE:
        mt_buf_str(b, "release to ");
        print_owner_of(b, e->found_site);
        if (block_line) {
            print_block_made_by(b, e);
            mt_buf_char(b, '\n');
        } else {
            mt_buf_str(b, " of ");
            mt_buf_hex(b, e->addr);
            mt_buf_str(b, ", which is not one of its objects (nothing released)\n");
        }
        break;
    case MT_ERROR_POOL_WRITE_AFTER_RELEASE:
        mt_buf_str(b, "write after release to ");
        print_owned_name(b, e);
        mt_buf_str(b, " of ");
        print_owner_of(b, e->alloc_site);
        mt_buf_str(b, ": ");
        mt_buf_count(b, e->changed, "byte", "bytes");
        mt_buf_str(b, " changed");
        print_offset(b, e->offset);
        mt_buf_char(b, '\n');
        break;
    case MT_ERROR_POOL_LIVE_AT_DESTROY:
        /* one message per allocation site of the objects left */
        print_owner_of(b, e->found_site);
        mt_buf_str(b, " destroyed with ");
        mt_buf_count(b, e->changed, "object", "objects");
        mt_buf_str(b, " (");
        mt_buf_count(b, e->size, "byte", "bytes");
        mt_buf_str(b, ") still live: #");
        mt_buf_u64(b, e->seq);
        if (e->changed > 1) {
            mt_buf_str(b, " and ");
            mt_buf_u64(b, e->changed - 1);
            mt_buf_str(b, " more");
        }
        mt_buf_char(b, '\n');
        mt_buf_line(b);
        mt_buf_str(b, "  allocated at ");
        mt_buf_site(b, e->alloc_site);
        mt_buf_str(b, " by ");
        print_kind_owner(b, e->alloc_site);
        mt_buf_char(b, '\n');
        block_line = false;
        break;
    case MT_ERROR_ARENA_WRITE_AFTER_RELEASE:
        mt_buf_str(b, "write after release in ");
        print_owner_of(b, e->free_site);
        mt_buf_str(b, ": ");
        mt_buf_count(b, e->changed, "byte", "bytes");
        mt_buf_str(b, " changed, the first at ");
        mt_buf_hex(b, e->addr);
        mt_buf_char(b, '\n');
        break;
    case MT_ERROR_ARENA_BAD_MARK:
        mt_buf_str(b, "rewind of ");
        print_owner_of(b, e->found_site);
        mt_buf_str(b, " to mark ");
        mt_buf_u64(b, (uint64_t)e->offset);
        if (block_line) {
            mt_buf_str(b, ", inside ");
            print_owned_name(b, e);
            mt_buf_str(b, ": rewound to its end instead\n");
        } else {
            mt_buf_str(b, ", beyond the ");
            mt_buf_count(b, e->extent, "byte", "bytes");
            mt_buf_str(b, " in use (nothing released)\n");
        }
        break;
    case MT_ERROR_OWNED_FREE:
        mt_buf_str(b, mt_kind_names[mt_site_get(e->found_site)->kind]);
        mt_buf_str(b, " of ");
        if (e->seq == 0) { /* no live block there: a stale pointer into its memory */
            mt_buf_hex(b, e->addr);
            mt_buf_str(b, ", inside the memory of ");
            print_owner_of(b, e->alloc_site);
            mt_buf_str(b, " (left alone)\n");
            block_line = false;
            break;
        }
        print_owned_name(b, e);
        mt_buf_str(b, mt_site_get(e->alloc_site)->kind == MT_KIND_REGISTERED ? " registered by "
                                                                            : " of ");
        print_owner_of(b, e->alloc_site);
        mt_buf_str(b, ", which owns its memory (left alone)\n");
        break;
    case MT_ERROR_REGISTER_CONFLICT:
        mt_buf_str(b, "register by ");
        print_owner_of(b, e->found_site);
        mt_buf_str(b, " of ");
        mt_buf_hex(b, e->addr);
        mt_buf_str(b, " (");
        mt_buf_count(b, e->extent, "byte", "bytes");
        mt_buf_str(b, "), already block #");
        mt_buf_u64(b, e->seq);
        mt_buf_str(b, " (");
        mt_buf_count(b, e->size, "byte", "bytes");
        mt_buf_str(b, ") made by ");
        print_kind_owner(b, e->alloc_site);
        mt_buf_str(b, " (not registered)\n");
        break;
    case MT_ERROR_UNREGISTER_UNKNOWN:
        mt_buf_str(b, "unregister by ");
        print_owner_of(b, e->found_site);
        if (block_line) {
            print_block_made_by(b, e);
            mt_buf_str(b, " (left alone)\n");
        } else {
            mt_buf_str(b, " of ");
            mt_buf_hex(b, e->addr);
            mt_buf_str(b, ", which is not a registered block (never registered, or "
                          "released already)\n");
        }
        break;
    case MT_ERROR_UNREGISTER_OWNER:
        mt_buf_str(b, "unregister by ");
        print_owner_of(b, e->found_site);
        mt_buf_str(b, " of ");
        print_owned_name(b, e);
        mt_buf_str(b, " registered by ");
        print_owner_of(b, e->alloc_site);
        mt_buf_str(b, " (left registered)\n");
        break;
    default:
        break;
    }
    if (block_line)
        print_block_line(b, e);
    if (e->free_site != MT_SITE_NONE)
        print_released_line(b, "  released", e->free_site);
    print_found_line(b, e);
}

/* abort_on_error: the error is printed; stop here, for the core dump or the debugger. */
static void abort_now(void)
{
    int fd = mt_out_fd();
    if (fd >= 0) {
        static const char line[] = MT_PREFIX "abort_on_error=1: aborting at the first error\n";
        mt_write_all(fd, line, sizeof line - 1);
    }
    mt_crash_expect_abort();
    abort();
}

/* Prints one error, or for the one past the cap the line that says the rest are counted. */
static void print_message(const mt_error_t *e, uint64_t n, int fd)
{
    mt_buf_t b;
    mt_buf_init(&b, fd);
    if (n == (uint64_t)mt_opt.max_messages + 1) {
        mt_buf_line(&b);
        mt_buf_str(&b, "further ");
        mt_buf_str(&b, mt_error_names[e->kind]);
        mt_buf_str(&b, " errors found by ");
        print_found_by(&b, e->found_site);
        mt_buf_str(&b, " are counted, not printed (max_messages=");
        mt_buf_u64(&b, mt_opt.max_messages);
        mt_buf_str(&b, ")\n");
    } else {
        print_error(&b, e);
    }
    if (mt_in_crash) {
        mt_buf_flush(&b); /* the crashed thread may hold the output lock */
    } else {
        mt_out_lock();
        mt_buf_flush(&b);
        mt_out_unlock();
    }
}

/* Messages kept while this thread holds a lock (see mt_locks_held in internal.h). */
#define PENDING_MAX 64
typedef struct pending_message {
    mt_error_t e;
    uint64_t n;
} pending_message_t;
static MT_TLS pending_message_t *pending;
MT_TLS int mt_messages_pending;

/* Keeps a message for later; false when there is no room (it is then printed now). */
static bool keep_for_later(const mt_error_t *e, uint64_t n)
{
    if (pending == NULL)
        pending = mt_mem_alloc(PENDING_MAX * sizeof *pending);
    if (pending == NULL || mt_messages_pending >= PENDING_MAX)
        return false;
    pending[mt_messages_pending].e = *e;
    pending[mt_messages_pending].n = n;
    mt_messages_pending++;
    return true;
}

void mt_error_print_pending(void)
{
    int count = mt_messages_pending;
    int fd = mt_out_fd();
    mt_messages_pending = 0;
    for (int i = 0; i < count && fd >= 0; i++)
        print_message(&pending[i].e, pending[i].n, fd);
}

void mt_error_report(const mt_error_t *e)
{
    atomic_fetch_add(&errors.total, 1);
    atomic_fetch_add(&errors.by_kind[e->kind], 1);
    if (mt_error_observer != NULL)
        mt_error_observer(e);
    uint64_t n = 1;
    if (lock_errors()) {
        if (errors.logged < MT_ERROR_LOG_MAX)
            errors.log[errors.logged++] = *e;
        n = count_message_locked(e->kind, e->found_site);
        pthread_mutex_unlock(&errors.lock);
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
    pthread_mutex_unlock(&errors.lock);
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
    for (unsigned i = 0; i < CAP_SLOTS; i++) {
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
    pthread_mutex_unlock(&errors.lock);
    return n;
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
    if (!lock_errors())
        return 0;
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
