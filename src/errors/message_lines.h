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
/* The start of a page guard's fault on a pool's, an arena's or a registrar's block its
 * owner released: "read after release of object #4 (20 bytes) of pool \"bullets\"";
 * false, nothing printed, for any other fault (message_owned.c). */
bool mt_buf_owned_fault_head(mt_buf_t *b, const mt_report_error_t *e);
/* "  released by pool free at x.c:9 in g()", and its stack, for a block its owner
 * released; false, nothing printed, for another (message_owned.c). */
bool mt_buf_owned_released_line(mt_buf_t *b, const mt_report_error_t *e);
/* The message of an error of a pool, an arena or a registered block (message_owned.c). */
void mt_buf_owned_error(mt_buf_t *b, const mt_report_error_t *e);

#endif /* MT_MESSAGE_LINES_H */
