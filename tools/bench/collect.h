/* collect.h - under callgrind (tools/bench/instructions.sh) a benchmark counts only its loop:
 * TOGGLE_COLLECT() around it switches the collection on and off, so the setup, the teardown
 * and the exit (the C library consolidating its heap, the report) count for nothing. A
 * no-op elsewhere; the loop itself is not touched. */
#ifndef BENCH_COLLECT_H
#define BENCH_COLLECT_H

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define TOGGLE_COLLECT() CALLGRIND_TOGGLE_COLLECT
#endif
#endif
#ifndef TOGGLE_COLLECT
#define TOGGLE_COLLECT() ((void)0)
#endif

#endif
