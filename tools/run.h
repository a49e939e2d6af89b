/* run.h - the steps of `memtrack run`: running the program (run.c), the verdict over its
 * reports (run_verdict.c). */
#ifndef MT_TOOL_RUN_H
#define MT_TOOL_RUN_H

#include <stdbool.h>

/* memtrack-report --run PIDFILE SCRIPT -- PROG ARGS...: see run.c. Returns only on error. */
int tool_run(int argc, char **argv);
/* memtrack-report --found MAIN_PID REPORT...: tells of every process that leaked or erred
 * where the user can see it; returns 0 (none did), 1 (some did), 3 (and some were other
 * processes than the program named, whose reports are to be kept) or 2 (a report could not
 * be read). */
int run_verdict(int argc, char **argv);
/* True when the file at path (a program) holds libmemtrack or its name: built with memtrack,
 * or linked with it. */
bool run_links_memtrack(const char *path);

#endif /* MT_TOOL_RUN_H */
