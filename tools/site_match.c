/* site_match.c - when two reports (two runs of a program) name the same site: the diff of
 * `memtrack report --diff` and the fail sweep's leaks that only a failure made.
 */
#include <string.h>

#include "site_match.h"

bool site_str_same(const char *a, const char *b)
{
    return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

const char *site_base_name(const char *path)
{
    const char *slash = path != NULL ? strrchr(path, '/') : NULL;
    return slash != NULL ? slash + 1 : path;
}

/* The same caller in two runs: the same function and line; for a frame known by address
 * (which moves between runs), the same function, module and offset. */
bool site_frame_same(const mt_frame_t *a, const mt_frame_t *b)
{
    if (!site_str_same(a->func, b->func))
        return false;
    if (a->file != NULL || b->file != NULL)
        return site_str_same(a->file, b->file) && a->line == b->line;
    return site_str_same(site_base_name(a->module), site_base_name(b->module)) &&
           a->offset == b->offset;
}

/* Leaks are grouped by site and call stack, so one site can leak from several callers:
 * the same group has the same callers, as deep as both reports looked (a report without
 * stacks, made with stack=0 or of format 2, matches on the site alone). */
bool site_callers_same(const mt_stack_t *a, const mt_stack_t *b)
{
    size_t n = a->nframes < b->nframes ? a->nframes : b->nframes;
    for (size_t i = 0; i < n; i++)
        if (!site_frame_same(&a->frames[i], &b->frames[i]))
            return false;
    return true;
}

/* The same site in two runs: the same source line, kind and owner; for sites known by
 * address (which move between runs), the same module, function and offset; and the same
 * callers. */
bool site_same(const mt_place_t *a, const mt_place_t *b)
{
    if (!site_str_same(a->kind, b->kind) || !site_str_same(a->owner, b->owner) ||
        !site_str_same(a->func, b->func))
        return false;
    if (a->file != NULL || b->file != NULL) {
        if (!site_str_same(a->file, b->file) || a->line != b->line)
            return false;
    } else if (!site_str_same(site_base_name(a->module), site_base_name(b->module)) ||
               a->offset != b->offset) {
        return false;
    }
    return site_callers_same(&a->stack, &b->stack);
}
