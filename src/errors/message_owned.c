/* message_owned.c - the messages of the errors of pools, arenas and registered blocks
 * (pool.c, arena.c, register.c): the owner named, and when a block is involved its number,
 * size and the sites that made and released it.
 */
#include "base/options.h"
#include "errors/error.h"
#include "errors/format.h"
#include "errors/message_lines.h"
#include "records/place.h"
#include "records/site.h"

/* ---- pools, arenas and registered blocks (pool.c, arena.c, register.c) ----------------
 * Their errors name the owner (the pool, arena or registrar, from the sites' owner) and,
 * when a block is involved, its number, size and the sites that made and released it. */

/* The owner named by a site: "pool \"bullets\"", "arena \"level\"", or a registrar's
 * bare "\"myalloc\"". */
static void print_owner_of(mt_buf_t *b, const mt_place_t *p)
{
    const char *noun = NULL;
    switch (mt_place_kind(p)) {
    case MT_KIND_POOL:
    case MT_KIND_POOL_ALLOC:
    case MT_KIND_POOL_FREE:
    case MT_KIND_POOL_CLEAR:
    case MT_KIND_POOL_DESTROY:
    case MT_KIND_POOL_CHECK:
    case MT_KIND_POOL_MARK: noun = "pool "; break;
    case MT_KIND_ARENA:
    case MT_KIND_ARENA_ALLOC:
    case MT_KIND_ARENA_RESET:
    case MT_KIND_ARENA_REWIND:
    case MT_KIND_ARENA_DESTROY: noun = "arena "; break;
    default: break;
    }
    if (noun != NULL)
        mt_buf_str(b, noun);
    mt_buf_char(b, '"');
    mt_buf_text(b, p->owner != NULL ? p->owner : "?");
    mt_buf_char(b, '"');
}

/* "object #12 (24 bytes)" for a pool, "allocation #3" for an arena, "block #7" else. */
static void print_owned_name(mt_buf_t *b, const mt_report_error_t *e)
{
    switch (mt_place_kind(&e->alloc)) {
    case MT_KIND_POOL: mt_buf_str(b, "object #"); break;
    case MT_KIND_ARENA: mt_buf_str(b, "allocation #"); break;
    default: mt_buf_str(b, "block #"); break;
    }
    mt_buf_u64(b, e->seq);
    mt_buf_str(b, " (");
    mt_buf_count(b, e->size, "byte", "bytes");
    mt_buf_char(b, ')');
}

bool mt_buf_owned_fault_head(mt_buf_t *b, const mt_report_error_t *e)
{
    if (e->kind_id != MT_ERROR_USE_AFTER_FREE || e->access == NULL ||
        !mt_kind_owned(mt_place_kind(&e->alloc)))
        return false;
    mt_buf_str(b, e->access);
    mt_buf_str(b, " after release of ");
    print_owned_name(b, e);
    mt_buf_str(b, " of ");
    print_owner_of(b, &e->alloc);
    return true;
}

static void print_released_line(mt_buf_t *b, const char *what, const mt_place_t *p)
{
    mt_buf_line(b);
    mt_buf_str(b, what);
    mt_buf_str(b, " by ");
    mt_buf_str(b, mt_kind_names[mt_place_kind(p)]);
    if (p->file != NULL || p->pc != 0) {
        mt_buf_str(b, " at ");
        mt_buf_place(b, p);
    }
    mt_buf_char(b, '\n');
    mt_buf_stack_lines(b, p, STACK_INDENT);
}

bool mt_buf_owned_released_line(mt_buf_t *b, const mt_report_error_t *e)
{
    if (!mt_kind_owned(mt_place_kind(&e->alloc)))
        return false;
    print_released_line(b, "  released", &e->freed);
    return true;
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
static void print_block_made_by(mt_buf_t *b, const mt_report_error_t *e)
{
    mt_buf_str(b, " of ");
    mt_buf_block_name(b, e);
    mt_buf_str(b, " made by ");
    mt_buf_kind_owner(b, &e->alloc);
}

void mt_buf_owned_error(mt_buf_t *b, const mt_report_error_t *e)
{
    bool block_line = e->alloc.kind != NULL;
    switch (e->kind_id) {
    case MT_ERROR_POOL_DOUBLE_RELEASE:
        mt_buf_str(b, "double release of ");
        print_owned_name(b, e);
        mt_buf_str(b, " to ");
        print_owner_of(b, &e->found);
        mt_buf_char(b, '\n');
        break;
    case MT_ERROR_POOL_INTERIOR_RELEASE:
        mt_buf_str(b, "release to ");
        print_owner_of(b, &e->found);
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
        print_owner_of(b, &e->found);
        if (block_line) {
            print_block_made_by(b, e);
            mt_buf_char(b, '\n');
        } else {
            mt_buf_str(b, " of ");
            mt_buf_hex(b, e->addr);
            mt_buf_str(b, ", which is not one of its objects (nothing released)\n");
        }
        break;
    case MT_ERROR_ARENA_WRITE_AFTER_RELEASE:
        if (!block_line) { /* no allocation known to have been there */
            mt_buf_str(b, "write after release in ");
            print_owner_of(b, &e->freed);
            mt_buf_str(b, ": ");
            mt_buf_count(b, e->changed, "byte", "bytes");
            mt_buf_str(b, " changed, the first at ");
            mt_buf_hex(b, e->addr);
            mt_buf_char(b, '\n');
            break;
        }
        /* fall through */
    case MT_ERROR_POOL_WRITE_AFTER_RELEASE:
        mt_buf_str(b, "write after release to ");
        print_owned_name(b, e);
        mt_buf_str(b, " of ");
        print_owner_of(b, &e->alloc);
        mt_buf_str(b, ": ");
        mt_buf_count(b, e->changed, "byte", "bytes");
        mt_buf_str(b, " changed");
        print_offset(b, e->offset);
        mt_buf_char(b, '\n');
        break;
    case MT_ERROR_POOL_LIVE_AT_DESTROY:
    case MT_ERROR_POOL_LIVE_AT_MARK:
        /* one message per allocation site (and stack) of the objects left */
        print_owner_of(b, &e->found);
        mt_buf_str(b,
                   e->kind_id == MT_ERROR_POOL_LIVE_AT_MARK ? " marked with " : " destroyed with ");
        mt_buf_count(b, e->changed, "object", "objects");
        mt_buf_str(b, " (");
        mt_buf_count(b, e->size, "byte", "bytes");
        mt_buf_str(b, e->kind_id == MT_ERROR_POOL_LIVE_AT_MARK
                          ? ") made since its last mark still live: #"
                          : ") still live: #");
        mt_buf_u64(b, e->seq);
        if (e->changed > 1) {
            mt_buf_str(b, " and ");
            mt_buf_u64(b, e->changed - 1);
            mt_buf_str(b, " more");
        }
        mt_buf_char(b, '\n');
        mt_buf_line(b);
        mt_buf_str(b, "  allocated at ");
        mt_buf_place(b, &e->alloc);
        mt_buf_str(b, " by ");
        mt_buf_kind_owner(b, &e->alloc);
        mt_buf_char(b, '\n');
        mt_buf_stack_lines(b, &e->alloc, STACK_INDENT);
        block_line = false;
        break;
    case MT_ERROR_ARENA_BAD_MARK:
        mt_buf_str(b, "rewind of ");
        print_owner_of(b, &e->found);
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
        mt_buf_str(b, mt_kind_names[mt_place_kind(&e->found)]);
        mt_buf_str(b, " of ");
        if (e->seq == 0) { /* no live block there: a stale pointer into its memory */
            mt_buf_hex(b, e->addr);
            mt_buf_str(b, ", inside the memory of ");
            print_owner_of(b, &e->alloc);
            mt_buf_str(b, " (left alone)\n");
            block_line = false;
            break;
        }
        print_owned_name(b, e);
        mt_buf_str(b, mt_place_kind(&e->alloc) == MT_KIND_REGISTERED ? " registered by " : " of ");
        print_owner_of(b, &e->alloc);
        mt_buf_str(b, ", which owns its memory (left alone)\n");
        break;
    case MT_ERROR_REGISTER_CONFLICT:
        mt_buf_str(b, "register by ");
        print_owner_of(b, &e->found);
        mt_buf_str(b, " of ");
        mt_buf_hex(b, e->addr);
        mt_buf_str(b, " (");
        mt_buf_count(b, e->extent, "byte", "bytes");
        mt_buf_str(b, "), already block #");
        mt_buf_u64(b, e->seq);
        mt_buf_str(b, " (");
        mt_buf_count(b, e->size, "byte", "bytes");
        mt_buf_str(b, ") made by ");
        mt_buf_kind_owner(b, &e->alloc);
        mt_buf_str(b, " (not registered)\n");
        break;
    case MT_ERROR_UNREGISTER_UNKNOWN:
        mt_buf_str(b, "unregister by ");
        print_owner_of(b, &e->found);
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
        print_owner_of(b, &e->found);
        mt_buf_str(b, " of ");
        print_owned_name(b, e);
        mt_buf_str(b, " registered by ");
        print_owner_of(b, &e->alloc);
        mt_buf_str(b, " (left registered)\n");
        break;
    default: break;
    }
    if (block_line)
        mt_buf_block_line(b, e);
    if (e->freed.kind != NULL)
        print_released_line(b, "  released", &e->freed);
    mt_buf_found_line(b, e);
}
