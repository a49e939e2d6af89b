/* message_owned.c - the headlines of the errors of pools, arenas and registered blocks
 * (pool.c, arena.c, register.c): the owner named, and when a block is involved its number,
 * size and the sites that made and released it.
 */
#include <inttypes.h>

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
    mt_buf_fmt(b, "\"%-s\"", p->owner != NULL ? p->owner : "?");
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
        !mt_kind_owned((mt_kind_t)mt_place_kind(&e->alloc)))
        return false;
    mt_buf_fmt(b, "%s after release of ", e->access);
    print_owned_name(b, e);
    mt_buf_str(b, " of ");
    print_owner_of(b, &e->alloc);
    return true;
}

void mt_buf_released_line(mt_buf_t *b, const mt_report_error_t *e)
{
    const mt_place_t *p = &e->freed;
    mt_buf_line(b);
    mt_buf_fmt(b, "  released by %s", mt_kind_names[mt_place_kind(p)]);
    if (p->file != NULL || p->pc != 0) {
        mt_buf_str(b, " at ");
        mt_buf_place(b, p);
    }
    mt_buf_char(b, '\n');
    mt_buf_stack_lines(b, p, STACK_INDENT);
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

/* ---- headlines (message.c's table): each returns the lines that follow it ------------ */

unsigned mt_headline_pool_double_release(mt_buf_t *b, const mt_report_error_t *e, unsigned lines)
{
    mt_buf_str(b, "double release of ");
    print_owned_name(b, e);
    mt_buf_str(b, " to ");
    print_owner_of(b, &e->found);
    mt_buf_char(b, '\n');
    return lines;
}

unsigned mt_headline_pool_interior_release(mt_buf_t *b, const mt_report_error_t *e, unsigned lines)
{
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
    return lines;
}

unsigned mt_headline_pool_foreign_release(mt_buf_t *b, const mt_report_error_t *e, unsigned lines)
{
    mt_buf_str(b, "release to ");
    print_owner_of(b, &e->found);
    if (e->alloc.kind != NULL) {
        print_block_made_by(b, e);
        mt_buf_char(b, '\n');
    } else {
        mt_buf_fmt(b, " of 0x%" PRIx64 ", which is not one of its objects (nothing released)\n",
                   e->addr);
    }
    return lines;
}

/* A pool's object or an arena's allocation written after its release; in an arena, where
 * no allocation is known to have been there, the arena itself. */
unsigned mt_headline_write_after_release(mt_buf_t *b, const mt_report_error_t *e, unsigned lines)
{
    if (e->kind_id == MT_ERROR_ARENA_WRITE_AFTER_RELEASE && e->alloc.kind == NULL) {
        mt_buf_str(b, "write after release in ");
        print_owner_of(b, &e->freed);
        mt_buf_str(b, ": ");
        mt_buf_count(b, e->changed, "byte", "bytes");
        mt_buf_fmt(b, " changed, the first at 0x%" PRIx64 "\n", e->addr);
        return lines;
    }
    mt_buf_str(b, "write after release to ");
    print_owned_name(b, e);
    mt_buf_str(b, " of ");
    print_owner_of(b, &e->alloc);
    mt_buf_str(b, ": ");
    mt_buf_count(b, e->changed, "byte", "bytes");
    mt_buf_str(b, " changed");
    print_offset(b, e->offset);
    mt_buf_char(b, '\n');
    return lines;
}

/* One message per allocation site (and stack) of the objects left at a destroy or a mark:
 * the site is its own line, not a block's. */
unsigned mt_headline_pool_live(mt_buf_t *b, const mt_report_error_t *e, unsigned lines)
{
    bool mark = e->kind_id == MT_ERROR_POOL_LIVE_AT_MARK;
    print_owner_of(b, &e->found);
    mt_buf_str(b, mark ? " marked with " : " destroyed with ");
    mt_buf_count(b, e->changed, "object", "objects");
    mt_buf_str(b, " (");
    mt_buf_count(b, e->size, "byte", "bytes");
    mt_buf_fmt(b, "%s%" PRIu64,
               mark ? ") made since its last mark still live: #" : ") still live: #", e->seq);
    if (e->changed > 1)
        mt_buf_fmt(b, " and %" PRIu64 " more", e->changed - 1);
    mt_buf_char(b, '\n');
    mt_buf_line(b);
    mt_buf_str(b, "  allocated at ");
    mt_buf_place(b, &e->alloc);
    mt_buf_str(b, " by ");
    mt_buf_kind_owner(b, &e->alloc);
    mt_buf_char(b, '\n');
    mt_buf_stack_lines(b, &e->alloc, STACK_INDENT);
    return lines;
}

unsigned mt_headline_arena_bad_mark(mt_buf_t *b, const mt_report_error_t *e, unsigned lines)
{
    mt_buf_str(b, "rewind of ");
    print_owner_of(b, &e->found);
    mt_buf_fmt(b, " to mark %" PRIu64, (uint64_t)e->offset);
    if (e->alloc.kind != NULL) {
        mt_buf_str(b, ", inside ");
        print_owned_name(b, e);
        mt_buf_str(b, ": rewound to its end instead\n");
    } else {
        mt_buf_str(b, ", beyond the ");
        mt_buf_count(b, e->extent, "byte", "bytes");
        mt_buf_str(b, " in use (nothing released)\n");
    }
    return lines;
}

unsigned mt_headline_owned_free(mt_buf_t *b, const mt_report_error_t *e, unsigned lines)
{
    mt_buf_fmt(b, "%s of ", mt_kind_names[mt_place_kind(&e->found)]);
    if (e->seq == 0) { /* no live block there: a stale pointer into its memory */
        mt_buf_fmt(b, "0x%" PRIx64 ", inside the memory of ", e->addr);
        print_owner_of(b, &e->alloc);
        mt_buf_str(b, " (left alone)\n");
        return lines & ~(unsigned)MT_LINE_BLOCK_IF_KNOWN;
    }
    print_owned_name(b, e);
    mt_buf_str(b, mt_place_kind(&e->alloc) == MT_KIND_REGISTERED ? " registered by " : " of ");
    print_owner_of(b, &e->alloc);
    mt_buf_str(b, ", which owns its memory (left alone)\n");
    return lines;
}

unsigned mt_headline_register_conflict(mt_buf_t *b, const mt_report_error_t *e, unsigned lines)
{
    mt_buf_str(b, "register by ");
    print_owner_of(b, &e->found);
    mt_buf_fmt(b, " of 0x%" PRIx64 " (", e->addr);
    mt_buf_count(b, e->extent, "byte", "bytes");
    mt_buf_fmt(b, "), already block #%" PRIu64 " (", e->seq);
    mt_buf_count(b, e->size, "byte", "bytes");
    mt_buf_str(b, ") made by ");
    mt_buf_kind_owner(b, &e->alloc);
    mt_buf_str(b, " (not registered)\n");
    return lines;
}

unsigned mt_headline_unregister_unknown(mt_buf_t *b, const mt_report_error_t *e, unsigned lines)
{
    mt_buf_str(b, "unregister by ");
    print_owner_of(b, &e->found);
    if (e->alloc.kind != NULL) {
        print_block_made_by(b, e);
        mt_buf_str(b, " (left alone)\n");
    } else {
        mt_buf_fmt(b,
                   " of 0x%" PRIx64
                   ", which is not a registered block (never registered, or released already)\n",
                   e->addr);
    }
    return lines;
}

unsigned mt_headline_unregister_owner(mt_buf_t *b, const mt_report_error_t *e, unsigned lines)
{
    mt_buf_str(b, "unregister by ");
    print_owner_of(b, &e->found);
    mt_buf_str(b, " of ");
    print_owned_name(b, e);
    mt_buf_str(b, " registered by ");
    print_owner_of(b, &e->alloc);
    mt_buf_str(b, " (left registered)\n");
    return lines;
}
