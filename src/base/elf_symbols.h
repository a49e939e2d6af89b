/* elf_symbols.h - the symbol around an address, from an index of each module's symbol table
 * built once (base/elf_symbols.c).
 */
#ifndef MT_ELF_SYMBOLS_H
#define MT_ELF_SYMBOLS_H

#include "base/libdw.h"

#ifdef MT_HAVE_LIBDW
/* dwfl_module_addrinfo(mod, addr, off, sym, NULL, NULL, NULL): the same symbol, by the same
 * rules. libdwfl reads the module's whole symbol table for every address; from the third
 * address asked in a module on, its sized symbols are indexed once and searched by
 * bisection (libdwfl's own search is kept for what the index cannot settle: an address no
 * sized symbol covers). Callers serialize (the symbols' lock). */
const char *mt_module_symbol(Dwfl_Module *mod, Dwarf_Addr addr, GElf_Off *off, GElf_Sym *sym);
/* How many of mt_module_symbol's answers the index gave (the rest were libdwfl's): for the
 * tests, which check that the index answers as libdwfl would, and does answer. */
extern unsigned long mt_module_symbols_indexed;
#endif

#endif /* MT_ELF_SYMBOLS_H */
