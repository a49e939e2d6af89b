/* options_man.h - the OPTIONS list of memtrack(1), written from the one options table. */
#ifndef MT_TOOLS_OPTIONS_MAN_H
#define MT_TOOLS_OPTIONS_MAN_H

#include <stdio.h>

/* Writes every option of MT_OPTION_LIST as mdoc lines (a .Bl -tag list) to out: the
 * Makefile puts them in place of the @OPTIONS@ line of tools/man/memtrack.1.in, so an
 * option added to the table is documented with no edit to the page. Returns 0, or 2 when
 * writing failed. */
int mt_options_write_man(FILE *out);

#endif /* MT_TOOLS_OPTIONS_MAN_H */
