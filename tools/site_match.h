/* site_match.h - the same site in two reports of two runs (site_match.c). */
#ifndef MT_TOOLS_SITE_MATCH_H
#define MT_TOOLS_SITE_MATCH_H

#include "report/model.h"

/* Equal strings, or both NULL. */
bool site_str_same(const char *a, const char *b);
/* The file name of a path (NULL stays NULL). */
const char *site_base_name(const char *path);
/* The same caller in two runs: the same function and line; for a frame known by address
 * (which moves between runs), the same function, module and offset. */
bool site_frame_same(const mt_frame_t *a, const mt_frame_t *b);
/* The same callers, as deep as both stacks go (a stack without frames matches any). */
bool site_callers_same(const mt_stack_t *a, const mt_stack_t *b);
/* The same site in two runs: the same source line, kind and owner (for sites known by
 * address, the same module, function and offset), and the same callers. */
bool site_same(const mt_place_t *a, const mt_place_t *b);

#endif /* MT_TOOLS_SITE_MATCH_H */
