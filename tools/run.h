/* run.h - the step of `memtrack run` that runs the program (run.c). */
#ifndef MT_TOOL_RUN_H
#define MT_TOOL_RUN_H

/* memtrack-report --run PIDFILE SCRIPT -- PROG ARGS...: see run.c. Returns only on error. */
int tool_run(int argc, char **argv);

#endif /* MT_TOOL_RUN_H */
