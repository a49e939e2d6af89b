/* code_calls.h - the calls a function's machine code makes, and the functions they reach.
 */
#ifndef MT_CODE_CALLS_H
#define MT_CODE_CALLS_H

#include "base/platform.h"

/* Told of each call: the function it reaches (its address, through a PLT stub when bound)
 * and that function's name when it is exported (NULL otherwise). */
typedef void (*mt_call_visit_fn)(void *ctx, uintptr_t target, const char *name);

/* Visits each call (and jump out: a tail call) in the code [start, start + size), the call
 * whose return address is `skip` left out; false when nothing can be known (the code cannot
 * be read, is too long, or this processor's code is not read). A byte that only looks like
 * a call may be visited too, with a target that is no function. Never faults; not
 * async-signal-safe (dladdr). */
bool mt_code_calls(uintptr_t start, size_t size, uintptr_t skip, mt_call_visit_fn visit, void *ctx);

#endif /* MT_CODE_CALLS_H */
