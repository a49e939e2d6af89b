/* out_file.h - the files the report tool writes (a rendered report, a sweep's summary). */
#ifndef MT_TOOL_OUT_FILE_H
#define MT_TOOL_OUT_FILE_H

#include <stdbool.h>

#include "base/buf.h"

/* Opens path to be written ("-": standard output), never through a symbolic link (the
 * classic clobber of a file in /tmp), and b on it. False, with a message naming who (the
 * command) and why, when it cannot. */
bool out_file_open(mt_buf_t *b, const char *path, const char *who);
/* Flushes b and closes its file; every write is checked, and the close. False, with a
 * message, when any failed. */
bool out_file_close(mt_buf_t *b, const char *path, const char *who);

#endif /* MT_TOOL_OUT_FILE_H */
