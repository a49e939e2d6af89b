/* code_end.c - where libmemtrack's own code ends in a static link.
 *
 * The Makefile links this object last into memtrack-c.o, so mt_code_end is the last
 * function of libmemtrack's .text: in a program linked statically (musl), the code after
 * it is what the linker took from the libraries named after libmemtrack.a, the C library
 * first among them (base/platform.c, mt_in_code_linked_after).
 */
#include "base/platform.h"

MT_NOINLINE void mt_code_end(void)
{
    __asm__ __volatile__(""); /* a body of its own: never merged with another function */
}
