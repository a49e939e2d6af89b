/* cxx_static_dtor.cpp linked with libmemtrack.a: the report, in the program's own
 * destructors then, still runs after the C++ static destructors.
 * e2e-link: static
 */
#include "cxx_static_dtor.cpp"
