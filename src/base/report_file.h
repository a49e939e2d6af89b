/* report_file.h - the file of option report=PATH, shared by every process of a run.
 */
#ifndef MT_REPORT_FILE_H
#define MT_REPORT_FILE_H

#include <sys/types.h>

#include "base/platform.h"

/* Opens the report file at path (expanded) to append to it, never through a symbolic link
 * nor waiting for a FIFO's reader; a regular file is emptied first when this process is a
 * new run's first (see report_file.c), never when keep is true (a reopening), and then
 * locked shared for as long as the process keeps it open. *dev and *ino get the file's
 * identity. Returns the descriptor, or -1 with errno set. */
int mt_report_file_open(const char *path, bool keep, dev_t *dev, ino_t *ino);

#endif /* MT_REPORT_FILE_H */
