/* own_data_begin.c - the first byte of each section of libmemtrack's static data: the
 * Makefile links this object first (base/own_data.h says why), and own_data_end.c last.
 * Data only: nothing here runs.
 */
#include "base/own_data.h"

/* Each marker is put in its section by name, so that it is there whatever the compiler
 * would choose for a variable like it (a byte of .data.rel.local has no relocation). */
__attribute__((section(".data"))) char mt_own_begin_data[1] = {1};
__attribute__((section(".bss"))) char mt_own_begin_bss[1];
#if !defined(_WIN32) && !defined(MT_BARE_METAL)
__attribute__((section(".data.rel"))) char mt_own_begin_data_rel[1] = {1};
__attribute__((section(".data.rel.local"))) char mt_own_begin_data_rel_local[1] = {1};
__thread char mt_own_begin_tdata[1] = {1};
__thread char mt_own_begin_tbss[1];
#endif
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(_WIN32) &&         \
    !defined(__SANITIZE_ADDRESS__)
__attribute__((section(".lbss"))) char mt_own_begin_lbss[1];
#endif
