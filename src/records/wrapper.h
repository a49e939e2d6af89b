/* wrapper.h - allocation wrappers: the functions a leak or an error is seen through, to the
 * line a user would fix.
 */
#ifndef MT_WRAPPER_H
#define MT_WRAPPER_H

#include "base/platform.h"
#include "records/kinds.h"

/* Why a function is seen through. */
typedef enum {
    MT_THROUGH_NONE,   /* it is not: the place stays there */
    MT_THROUGH_NAMED,  /* option alloc_fn names it */
    MT_THROUGH_RULE,   /* the rule finds it a wrapper (wrapper.c) */
    MT_THROUGH_SYSTEM, /* the system's code: its headers (a C++ container growing) or its
                          libraries (one the program gave its allocator to) */
} mt_through_t;

/* A place's or a frame's function, as the rule needs it: its name and file as printed and
 * where its code is, the function number `level` of return address pc (0 the innermost, as
 * records/place.c numbers them). pc NULL: its frame is not on the stack (it jumped to the
 * allocation, a tail call); its code is then found from its source line (line) and the
 * module that holds its name (module_hint, the site's __func__). */
typedef struct mt_function_ref {
    const char *func, *file;
    int line;
    void *pc;
    unsigned level;
    const void *module_hint;
} mt_function_ref_t;

/* Why the function fn is seen through for a place of kind `kind` (making or releasing a
 * block; other kinds never are), or MT_THROUGH_NONE. Not async-signal-safe (it reads the
 * debug information and the code); its answers are kept, so each function is judged once. */
mt_through_t mt_wrapper_through(const mt_function_ref_t *fn, mt_kind_t kind);

/* True when name matches a pattern of option alloc_fn ('*' matches any run of characters). */
bool mt_alloc_fn_matches(const char *name);

#endif /* MT_WRAPPER_H */
