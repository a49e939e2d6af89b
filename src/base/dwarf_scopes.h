/* dwarf_scopes.h - the functions whose code holds an address, from an index of each
 * compilation unit's functions built once (base/dwarf_scopes.c).
 */
#ifndef MT_DWARF_SCOPES_H
#define MT_DWARF_SCOPES_H

#include "base/libdw.h"

#ifdef MT_HAVE_LIBDW
/* The deepest chain of functions one address is reported with (inlined copies nest). */
#define MT_DWARF_DEEPEST 64

/* Fills out[0..return) with the function scopes that hold addr (relative to the unit's
 * module), innermost first: the inlined copies (DW_TAG_inlined_subroutine), then the real
 * function (DW_TAG_subprogram), as dwarf_getscopes and dwarf_getscopes_die would find them
 * together; at most max (MT_DWARF_DEEPEST is enough), 0 when no function holds addr. The
 * unit's functions are indexed the first time it is asked about, so each address costs a
 * bisection and a walk of one function's scopes, not of the whole unit. Callers serialize
 * (the symbols' lock). */
int mt_dwarf_functions(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die *out, int max);

/* The compilation unit of mod whose code holds addr (an address of the process), and the
 * bias of its addresses; NULL when none does. libdw finds it through .debug_aranges, which
 * clang does not write (and in a program that mixes compilers, libdw may then answer with
 * a neighbouring unit): unless the unit it finds really holds addr, the module's units'
 * ranges, listed once, are searched. Callers serialize (the symbols' lock). */
Dwarf_Die *mt_dwarf_unit_at(Dwfl_Module *mod, Dwarf_Addr addr, Dwarf_Addr *bias);
#endif

#endif /* MT_DWARF_SCOPES_H */
