/* message_lines.c - the lines every error message shares: the block ("allocated at ... by
 * ... (block 0x..., thread N)") and what found the error, each with its stack, and a place's
 * kind and owner ("pool \"bullets\""). message.c words the heap's errors with them,
 * message_owned.c the headlines of pools', arenas' and registered blocks' errors.
 */
#include "base/options.h"
#include "errors/error.h"
#include "errors/format.h"
#include "errors/message_lines.h"
#include "records/place.h"
#include "records/site.h"

/* The kind of a place, MT_KIND_NONE when it has none. */
int mt_place_kind(const mt_place_t *p)
{
    return p->kind != NULL ? p->kind_id : MT_KIND_NONE;
}

/* "pool \"bullets\"", "malloc" */
void mt_buf_kind_owner(mt_buf_t *b, const mt_place_t *p)
{
    mt_buf_str(b, mt_kind_names[mt_place_kind(p)]);
    if (p->owner != NULL) {
        mt_buf_fmt(b, " \"%-s\"", p->owner);
    }
}

void mt_buf_block_line(mt_buf_t *b, const mt_report_error_t *e)
{
    mt_buf_line(b);
    mt_buf_str(b, "  allocated at ");
    mt_buf_place(b, &e->alloc);
    mt_buf_str(b, " by ");
    mt_buf_kind_owner(b, &e->alloc);
    mt_buf_str(b, " (block ");
    mt_buf_hex(b, e->addr);
    if (e->thread != 0) {
        mt_buf_str(b, ", thread ");
        mt_buf_u64(b, e->thread);
    }
    mt_buf_str(b, ")\n");
    mt_buf_stack_lines(b, &e->alloc, STACK_INDENT);
}

void mt_buf_found_line(mt_buf_t *b, const mt_report_error_t *e)
{
    int kind = mt_place_kind(&e->found);
    mt_buf_line(b);
    mt_buf_str(b, "  found by ");
    mt_buf_found_by(b, &e->found, mt_opt.check_every);
    /* A freed block is checked when it leaves the quarantine, during some later free. */
    if (e->kind_id == MT_ERROR_WRITE_AFTER_FREE && kind != MT_KIND_CHECK &&
        kind != MT_KIND_PERIODIC && kind != MT_KIND_EXIT && kind != MT_KIND_CRASH)
        mt_buf_str(b, ", as the block left quarantine");
    mt_buf_char(b, '\n');
    mt_buf_stack_lines(b, &e->found, STACK_INDENT);
}
