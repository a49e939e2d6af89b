/* symbol_index_test.c - the symbolizer's indexes answer as libdw and libdwfl do, checked
 * against them address by address: the symbol around an address (src/base/elf_symbols.c)
 * as dwfl_module_addrinfo finds it, at the edges of every symbol of this program and of
 * some of the C library's (its full symbol table when libc6-dbg is installed: local
 * symbols, aliases, weak ones); the functions around an address (src/base/dwarf_scopes.c)
 * as dwarf_getscopes and dwarf_getscopes_die find them, and the unit that holds it
 * (mt_dwarf_unit_at) as asking every unit in turn, every few bytes of this program's code. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <string.h>
#include <unistd.h>

#include "base/dwarf_scopes.h"
#include "base/elf_symbols.h"
#include "base/libdw.h"

#ifdef MT_HAVE_LIBDW
static Dwfl *dwfl;
static Dwfl_Callbacks callbacks;

static void start(void)
{
    cr_assert(mt_libdw_open(), "libdw is installed (tools/deps.sh build)");
    callbacks.find_elf = mt_dw.dwfl_linux_proc_find_elf;
    callbacks.find_debuginfo = mt_dw.dwfl_build_id_find_debuginfo;
    dwfl = mt_dw.dwfl_begin(&callbacks);
    cr_assert_not_null(dwfl);
    mt_dw.dwfl_report_begin_add(dwfl);
    cr_assert_eq(mt_dw.dwfl_linux_proc_report(dwfl, getpid()), 0);
    cr_assert_eq(mt_dw.dwfl_report_end(dwfl, NULL, NULL), 0);
}

static Dwfl_Module *module_of(const void *p)
{
    Dwfl_Module *mod = mt_dw.dwfl_addrmodule(dwfl, (Dwarf_Addr)(uintptr_t)p);
    cr_assert_not_null(mod);
    return mod;
}

static unsigned compared;

static void same_symbol(Dwfl_Module *mod, Dwarf_Addr addr)
{
    GElf_Off off1 = 0, off2 = 0;
    GElf_Sym sym1, sym2;
    memset(&sym1, 0, sizeof sym1);
    memset(&sym2, 0, sizeof sym2);
    const char *ours = mt_module_symbol(mod, addr, &off1, &sym1);
    const char *libdwfl = mt_dw.dwfl_module_addrinfo(mod, addr, &off2, &sym2, NULL, NULL, NULL);
    cr_assert((ours == NULL) == (libdwfl == NULL), "at %#lx: %s against libdwfl's %s",
              (unsigned long)addr, ours ? ours : "nothing", libdwfl ? libdwfl : "nothing");
    if (ours == NULL)
        return;
    cr_assert_str_eq(ours, libdwfl, "at %#lx", (unsigned long)addr);
    cr_assert_eq(off1, off2, "at %#lx (%s)", (unsigned long)addr, ours);
    cr_assert_eq(sym1.st_size, sym2.st_size, "at %#lx (%s)", (unsigned long)addr, ours);
    cr_assert_eq(sym1.st_info, sym2.st_info, "at %#lx (%s)", (unsigned long)addr, ours);
    compared++;
}

/* Every stride-th symbol of mod: its start, one byte before and after, its middle, its
 * last byte and the byte past its end. */
static void same_symbols(Dwfl_Module *mod, int stride)
{
    int n = mt_dw.dwfl_module_getsymtab(mod);
    cr_assert_gt(n, 1);
    for (int i = 1; i < n; i += stride) {
        GElf_Sym sym;
        GElf_Addr value = 0;
        if (mt_dw.dwfl_module_getsym_info(mod, i, &sym, &value, NULL, NULL, NULL) == NULL ||
            sym.st_shndx == SHN_UNDEF || value < 2)
            continue;
        same_symbol(mod, value - 1);
        same_symbol(mod, value);
        same_symbol(mod, value + 1);
        if (sym.st_size > 2) {
            same_symbol(mod, value + sym.st_size / 2);
            same_symbol(mod, value + sym.st_size - 1);
        }
        same_symbol(mod, value + sym.st_size);
    }
}

/* Two names for one function, one weak: libdwfl prefers the global one, whichever its
 * symbol table lists first (the two pairs list them in both orders). */
void symbol_index_global_a(void);
extern void symbol_index_weak_a(void) __attribute__((weak, alias("symbol_index_global_a")));
__attribute__((noinline)) void symbol_index_global_a(void)
{
    __asm__ volatile("nop; nop; nop; nop");
}
__attribute__((noinline)) void symbol_index_global_b(void)
{
    __asm__ volatile("nop; nop; nop; nop; nop");
}
extern void symbol_index_weak_b(void) __attribute__((weak, alias("symbol_index_global_b")));

Test(symbol_index, the_symbol_around_an_address_is_libdwfls)
{
    start();
    compared = 0;
    mt_module_symbols_indexed = 0;
    same_symbols(module_of((const void *)(uintptr_t)&start), 1);
    cr_assert_gt(compared, 1000, "this program's symbols were compared (%u)", compared);
    cr_assert_gt(mt_module_symbols_indexed, compared * 9 / 10,
                 "the index answered (%lu of %u), not libdwfl", mt_module_symbols_indexed,
                 compared);
    Dwfl_Module *self = module_of((const void *)(uintptr_t)&start);
    GElf_Off off;
    GElf_Sym sym;
    cr_assert_str_eq(mt_module_symbol(self, (uintptr_t)&symbol_index_global_a + 1, &off, &sym),
                     "symbol_index_global_a");
    cr_assert_str_eq(mt_module_symbol(self, (uintptr_t)&symbol_index_global_b + 1, &off, &sym),
                     "symbol_index_global_b");
    compared = 0;
    same_symbols(module_of((const void *)(uintptr_t)&write), 61);
    cr_assert_gt(compared, 300, "the C library's symbols were compared (%u)", compared);
}

/* libdw's own answers, through its functions not in mt_dw. */
typedef int (*getscopes_fn)(Dwarf_Die *, Dwarf_Addr, Dwarf_Die **);
typedef int (*getscopes_die_fn)(Dwarf_Die *, Dwarf_Die **);
typedef Dwarf_Off (*dieoffset_fn)(Dwarf_Die *);

Test(symbol_index, the_functions_and_the_unit_around_an_address_are_libdws)
{
    start();
    void *lib = dlopen("libdw.so.1", RTLD_NOW | RTLD_NOLOAD);
    cr_assert_not_null(lib);
    getscopes_fn getscopes = (getscopes_fn)dlsym(lib, "dwarf_getscopes");
    getscopes_die_fn getscopes_die = (getscopes_die_fn)dlsym(lib, "dwarf_getscopes_die");
    dieoffset_fn dieoffset = (dieoffset_fn)dlsym(lib, "dwarf_dieoffset");
    cr_assert(getscopes != NULL && getscopes_die != NULL && dieoffset != NULL);

    Dwfl_Module *mod = module_of((const void *)(uintptr_t)&start);
    Dwarf_Addr bias = 0, low = (Dwarf_Addr)-1, high = 0;
    Dwarf_Die *cu = NULL;
    while ((cu = mt_dw.dwfl_module_nextcu(mod, cu, &bias)) != NULL) {
        Dwarf_Addr base = 0, s = 0, e = 0;
        ptrdiff_t at = 0;
        while ((at = mt_dw.dwarf_ranges(cu, at, &base, &s, &e)) > 0) {
            low = s < low ? s : low;
            high = e > high ? e : high;
        }
    }
    cr_assert_lt(low, high, "this program has units with code");
    unsigned functions = 0, inlined = 0;
    for (Dwarf_Addr addr = low; addr < high; addr += 61) {
        /* the unit, as every unit asked in turn */
        Dwarf_Addr b1 = 0, b2 = 0;
        Dwarf_Die *mine = mt_dwarf_unit_at(mod, addr + bias, &b1), *theirs = NULL;
        while ((theirs = mt_dw.dwfl_module_nextcu(mod, theirs, &b2)) != NULL)
            if (mt_dw.dwarf_haspc(theirs, addr) > 0)
                break;
        cr_assert_eq(mine == NULL, theirs == NULL, "unit at %#lx", (unsigned long)addr);
        if (mine == NULL)
            continue;
        cr_assert_eq(dieoffset(mine), dieoffset(theirs), "unit at %#lx", (unsigned long)addr);
        cr_assert_eq(b1, b2);

        /* the functions: libdw's innermost scope, then that scope's parents */
        Dwarf_Die *scopes = NULL, expected[MT_DWARF_DEEPEST];
        int n = getscopes(mine, addr, &scopes), nexpected = 0;
        if (n > 0) {
            Dwarf_Die innermost = scopes[0];
            free(scopes);
            scopes = NULL;
            n = getscopes_die(&innermost, &scopes);
            for (int i = 0; i < n && nexpected < MT_DWARF_DEEPEST; i++) {
                int tag = mt_dw.dwarf_tag(&scopes[i]);
                if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
                    continue;
                expected[nexpected++] = scopes[i];
                if (tag == DW_TAG_subprogram)
                    break;
            }
        }
        free(scopes);
        Dwarf_Die got[MT_DWARF_DEEPEST];
        int ngot = mt_dwarf_functions(mine, addr, got, MT_DWARF_DEEPEST);
        cr_assert_eq(ngot, nexpected, "functions at %#lx: %d, libdw %d", (unsigned long)addr, ngot,
                     nexpected);
        for (int i = 0; i < ngot; i++)
            cr_assert_eq(dieoffset(&got[i]), dieoffset(&expected[i]), "at %#lx, scope %d",
                         (unsigned long)addr, i);
        functions += ngot > 0;
        inlined += ngot > 1;
    }
    cr_assert_gt(functions, 1000, "addresses in functions were compared (%u)", functions);
    cr_assert_gt(inlined, 10, "addresses in inlined code were compared (%u)", inlined);
}
#endif
