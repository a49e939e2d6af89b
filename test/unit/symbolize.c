/* symbolize.c - a return address turns into function, file and line (src/base/symbolize.c). */
#include <stdio.h>
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include "base/symbolize.h"
#include "errors/error.h"
#include "records/site.h"

static void *recorded_pc;
static int recorded_line;

static __attribute__((noinline)) void record_caller(void)
{
    recorded_pc = __builtin_return_address(0);
}

/* A static function: only the debug information knows its name. */
static __attribute__((noinline)) void call_site(void)
{
    recorded_line = __LINE__ + 1;
    record_caller();
    __asm__ volatile(""); /* keep the call a call, not a jump */
}

Test(symbolize, return_address_names_the_file_line_and_function)
{
    mt_symbol_t sym;
    call_site();
    cr_assert(mt_symbolize(recorded_pc, &sym));
    cr_assert_str_eq(sym.file, "test/unit/symbolize.c");
    cr_assert_eq(sym.line, recorded_line);
    cr_assert_str_eq(sym.func, "call_site");
}

Test(symbolize, results_are_cached)
{
    mt_symbol_t first, again;
    call_site();
    cr_assert(mt_symbolize(recorded_pc, &first));
    cr_assert(mt_symbolize(recorded_pc, &again));
    cr_assert_eq(first.file, again.file, "the same stored string, not a second lookup");
    cr_assert_eq(first.func, again.func);
}

Test(symbolize, without_line_information_the_symbol_table_names_it)
{
#ifdef MT_SANITIZER_ALLOCATOR
    cr_skip_test("a sanitizer's runtime intercepts write(): it is not libc's there");
#endif
    mt_symbol_t sym;
    void *in_write = (char *)(uintptr_t)write + 8;
    cr_assert_eq(memtrack_set_option("symbolize", "0"), 0); /* libc6-dbg may be installed */
    cr_assert(mt_symbolize(in_write, &sym));
    cr_assert_null(sym.file);
    cr_assert_not_null(sym.func);
    cr_assert_neq(sym.offset, 0, "the distance into the function");
    cr_assert_str_eq(sym.module, "libc.so.6");
}

Test(symbolize, option_symbolize_0_keeps_to_the_symbol_tables)
{
    mt_symbol_t sym;
    cr_assert_eq(memtrack_set_option("symbolize", "0"), 0);
    call_site();
    (void)mt_symbolize(recorded_pc, &sym);
    cr_assert_null(sym.file, "no debug information read");
    cr_assert_eq(memtrack_set_option("symbolize", "1"), 0);
    cr_assert(mt_symbolize(recorded_pc, &sym));
    cr_assert_str_eq(sym.file, "test/unit/symbolize.c");
}

Test(symbolize, no_address_no_symbol)
{
    mt_symbol_t sym;
    cr_assert_not(mt_symbolize(NULL, &sym));
    cr_assert_null(sym.func);
    cr_assert_null(sym.file);
}

Test(symbolize, a_site_known_by_address_prints_as_file_and_line)
{
    mt_buf_t b;
    call_site();
    uint32_t site = mt_site_pc(recorded_pc, MT_KIND_NEW);
    mt_buf_init(&b, -1);
    mt_buf_site(&b, site);
    char expected[128];
    snprintf(expected, sizeof expected, "test/unit/symbolize.c:%d in call_site()", recorded_line);
    cr_assert_eq(b.len, strlen(expected));
    cr_assert(memcmp(b.data, expected, b.len) == 0, "got: %.*s", (int)b.len, b.data);
}
