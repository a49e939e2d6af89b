/* format.h - places and errors in words, from the report model's types (format.c). */
#ifndef MT_FORMAT_H
#define MT_FORMAT_H

#include "report/model.h"

/* "file:line in func()" or "0x... in symbol+0x.. (module)" or "an unknown site" */
void mt_buf_place(mt_buf_t *b, const mt_place_t *p);
/* The callers of a place, a line each: "memtrack: <indent>from file:line in func()", or
 * "inlined into file:line in func()" for the function the code above was inlined into. */
void mt_buf_stack_lines(mt_buf_t *b, const mt_place_t *where, const char *indent);
/* What found an error: "free at a.c:9 in f()", "memtrack_check() at ...", "the exit-time
 * check"...; check_every, when not 0, is said of the periodic check. */
void mt_buf_found_by(mt_buf_t *b, const mt_place_t *p, uint64_t check_every);
/* ", across the guards of the next 3 blocks" for an overrun that ran on; nothing else. */
void mt_buf_spans(mt_buf_t *b, const mt_report_error_t *e);
/* "block #4 (8 bytes)" */
void mt_buf_block_name(mt_buf_t *b, const mt_report_error_t *e);
/* "overrun: block #4 (8 bytes) allocated at a.c:3 in f(), found by free at a.c:9 in f():
 * 2 bytes changed, 5 bytes from the block": one error in one line, every kind alike. */
void mt_buf_error_summary(mt_buf_t *b, const mt_report_error_t *e);

/* "held by g_cache at cache.c:12 -> #3 -> #4": what holds a group of leaks (nothing for
 * one nothing holds). */
void mt_buf_holder(mt_buf_t *b, const mt_holder_t *h);

#endif /* MT_FORMAT_H */
