/* message_lines.h - the lines every error message shares (message_lines.c). */
#ifndef MT_MESSAGE_LINES_H
#define MT_MESSAGE_LINES_H

#include "base/buf.h"
#include "report/model.h"

/* The callers printed under each place of a message, at most this many (report.c gives
 * the reports the whole depth of option stack), and their indent. */
#define MESSAGE_FRAMES 16u
#define STACK_INDENT "    "

/* The kind of a place, MT_KIND_NONE when it has none. */
int mt_place_kind(const mt_place_t *p);
/* "pool \"bullets\"", "malloc" */
void mt_buf_kind_owner(mt_buf_t *b, const mt_place_t *p);
/* "  allocated at x.c:3 in f() by malloc (block 0x..., thread N)", and its stack. */
void mt_buf_block_line(mt_buf_t *b, const mt_report_error_t *e);
/* "  found by free at x.c:9 in g()", and its stack. */
void mt_buf_found_line(mt_buf_t *b, const mt_report_error_t *e);
/* "  released by pool free at x.c:7 in g()", and its stack. */
void mt_buf_released_line(mt_buf_t *b, const mt_report_error_t *e);

/* The lines under an error's headline (message.c prints them in this order). */
enum {
    MT_LINE_BLOCK = 1,          /* "  allocated at ... (block 0x...)" */
    MT_LINE_BLOCK_IF_KNOWN = 2, /* the same, when the error names a block */
    MT_LINE_FREED = 4,          /* "  freed at ... by free" */
    MT_LINE_RELEASED = 8,       /* "  released by pool free at ...", when it was */
    MT_LINE_PAGE_GUARD = 16,    /* "  found by its page guard; ..." */
    MT_LINE_FOUND = 32,         /* "  found by free at ..." */
    MT_LINE_RERUN = 64,         /* the option that names the bad write's line next time */
};
/* A kind's headline, the words after "ERROR: " with their line end: given its row's lines,
 * returns the lines to print under it, which the error at hand may change. */
typedef unsigned mt_headline_fn(mt_buf_t *b, const mt_report_error_t *e, unsigned lines);
/* The headlines of pools', arenas' and registered blocks' errors (message_owned.c). */
/* The start of a page guard's fault on a pool's, an arena's or a registrar's block its
 * owner released: "read after release of object #4 (20 bytes) of pool \"bullets\"";
 * false, nothing printed, for any other fault (message_owned.c). */
bool mt_buf_owned_fault_head(mt_buf_t *b, const mt_report_error_t *e);
mt_headline_fn mt_headline_pool_double_release, mt_headline_pool_interior_release,
    mt_headline_pool_foreign_release, mt_headline_write_after_release, mt_headline_pool_live,
    mt_headline_arena_bad_mark, mt_headline_owned_free, mt_headline_register_conflict,
    mt_headline_unregister_unknown, mt_headline_unregister_owner;

#endif /* MT_MESSAGE_LINES_H */
