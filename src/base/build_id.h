/* build_id.h - a loaded module's build id (base/build_id.c).
 */
#ifndef MT_BUILD_ID_H
#define MT_BUILD_ID_H

#include "base/symbolize.h" /* MT_HAVE_LIBDW */

#ifdef MT_HAVE_LIBDW
/* The build id of the module whose segments hold pc, in hex into hex[0..cap); false when
 * it has none (or one too long for cap). */
bool mt_build_id(uintptr_t pc, char *hex, size_t cap);
#endif

#endif /* MT_BUILD_ID_H */
