/* crossing.c again, linked with the static library: the program's own malloc/free then
 * come from libmemtrack.a and must still catch what the C library and a shared library do.
 * e2e-link: static
 * e2e-untracked: crossing-untracked.c
 */
#include "crossing.c"
