/* output.h - the report stream: where reports and messages go.
 */
#ifndef MT_OUTPUT_H
#define MT_OUTPUT_H

#include "base/platform.h"

int mt_out_fd(void);
/* At start: opens a report file (option report=PATH) now, so that this process holds it
 * while it lives and no process of its run empties it after this one began (report_file.c);
 * a failure is said at the first message instead. */
void mt_out_claim(void);
void mt_out_lock(void);
void mt_out_unlock(void);
void mt_out_after_fork_child(void);
/* Expands "%p" in path to the pid into dst; false when it does not fit. */
bool mt_expand_path(const char *path, char *dst, size_t cap);

#endif /* MT_OUTPUT_H */
