/* symbol_names.h - function names as people read them, and the strings the symbolizer keeps.
 */
#ifndef MT_SYMBOL_NAMES_H
#define MT_SYMBOL_NAMES_H

#include "base/platform.h"

/* A copy of s[0..n) in the tracker's own memory, kept for the life of the process; NULL
 * when there is no room. */
const char *mt_keep_string(const char *s, size_t n);
/* A function's name as people read it, kept: demangled when it is a C++ name and a
 * demangler is to be had, without its parameters (as __func__ names it). */
const char *mt_keep_function(const char *name);
/* The last component of a path. */
const char *mt_base_name(const char *path);

#endif /* MT_SYMBOL_NAMES_H */
