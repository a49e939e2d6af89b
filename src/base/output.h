/* output.h - the report stream: where reports and messages go.
 */
#ifndef MT_OUTPUT_H
#define MT_OUTPUT_H

#include "base/platform.h"

int mt_out_fd(void);
void mt_out_lock(void);
void mt_out_unlock(void);
void mt_out_after_fork_child(void);
/* Expands "%p" in path to the pid into dst; false when it does not fit. */
bool mt_expand_path(const char *path, char *dst, size_t cap);

#endif /* MT_OUTPUT_H */
