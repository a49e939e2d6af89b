/* first_definition.h - which loaded object's definition of a function the process's calls
 * reach (base/first_definition.c).
 */
#ifndef MT_FIRST_DEFINITION_H
#define MT_FIRST_DEFINITION_H

#include "base/platform.h"

#ifdef MT_GLIBC_MALLOC
/* The address of the first definition of the function `name` in the loader's order of the
 * objects (the program, the preloaded libraries, then those they need): the one the
 * process's calls of it are bound to. Unlike dlsym(RTLD_DEFAULT), it passes over a
 * program's undefined entry for the function (a program not built as PIE that takes the
 * function's address has one, whose value is a stub in its own code). NULL when no object
 * defines it. Never allocates; takes the loader's lock. */
void *mt_first_definition(const char *name);
#endif

#endif /* MT_FIRST_DEFINITION_H */
