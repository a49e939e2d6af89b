/* output.h - the report stream: where reports and messages go.
 */
#ifndef MT_OUTPUT_H
#define MT_OUTPUT_H

#include "base/platform.h"

/* The report stream's descriptor, or -1 when nothing may be written (quiet, or the
 * standard stream it names is no longer the process's: mt_std_fd). */
int mt_out_fd(void);
/* fd itself, or -1 when it is descriptor 1 or 2 and no longer the file it was when the
 * tracker started (the program closed it and opened a file of its own there). */
int mt_std_fd(int fd);
/* True when descriptor fd (1 or 2) is open for writing to a file the program put there
 * (mt_std_fd gives -1 for it): not closed, but not to be written into either. A file only
 * read (one the tracker itself opened on the number the program freed) does not count. */
bool mt_std_replaced(int fd);
/* Notes what descriptors 1 and 2 are now: called as the tracker starts. */
void mt_out_remember_std(void);
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
