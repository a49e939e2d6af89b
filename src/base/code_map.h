/* code_map.h - whether addresses lie in a loaded module's code: the stack walk's check
 * that what it read as return addresses are ones.
 */
#ifndef MT_CODE_MAP_H
#define MT_CODE_MAP_H

#include "base/platform.h"

/* How many of pcs[0..n) come before the first that lies outside every loaded module's
 * executable segments: n when all lie inside, and n when the loader lists no module
 * (Windows, bare metal: then nothing can be checked and the walk is trusted). A module
 * loaded since the last look is found by looking again, once per call, when an address
 * is outside. Callers serialize (the stacks' lock, records/stack.c); it takes the loader's
 * lock and never allocates through the tracker. */
unsigned mt_code_prefix(void *const *pcs, unsigned n);

#endif /* MT_CODE_MAP_H */
