/* cxx_runtime.cpp linked with libmemtrack.a: the operators in the program serve the
 * standard library's shared object too, and what it keeps is still left out.
 * e2e-link: static
 * e2e-stdout
 */
#include "cxx_runtime.cpp"
