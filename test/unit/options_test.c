/* options_test.c - MEMTRACK_OPTIONS parsing: separators, types, bad entries. */
#include <criterion/criterion.h>

#include "base/options.h"

static void quiet_warnings(void)
{
    mt_options_init();
}

TestSuite(options, .init = quiet_warnings);

Test(options, colon_and_comma_separate_entries)
{
    cr_expect_eq(mt_options_parse("verbose=1:report_seqs=3,max_messages=7", "test"), 0);
    cr_expect_eq(mt_opt.verbose, 1);
    cr_expect_eq(mt_opt.report_seqs, 3);
    cr_expect_eq(mt_opt.max_messages, 7);
}

Test(options, sizes_take_suffixes)
{
    cr_expect_eq(mt_options_parse("guard=32", "test"), 0);
    cr_expect_eq(mt_opt.guard, 32);
    cr_expect_eq(mt_options_parse("guard=1k", "test"), 0);
    cr_expect_eq(mt_opt.guard, 1024);
}

Test(options, bad_entries_are_counted_and_keep_values, .init = NULL)
{
    mt_options_init();
    size_t guard = mt_opt.guard;
    long code = mt_opt.exitcode;
    cr_expect_eq(mt_options_parse("gaurd=8:guard=abc:exitcode=1x:verbose", "test"), 4);
    cr_expect_eq(mt_opt.guard, guard);
    cr_expect_eq(mt_opt.exitcode, code);
}

Test(options, guard_has_a_ceiling)
{
    size_t guard = mt_opt.guard;
    cr_expect_eq(mt_options_parse("guard=99999", "test"), 1);
    cr_expect_eq(mt_opt.guard, guard);
}

Test(options, blanks_around_entries_are_ignored)
{
    cr_expect_eq(mt_options_parse(" verbose=1 , exitcode=-1 ", "test"), 0);
    cr_expect_eq(mt_opt.verbose, 1);
    cr_expect_eq(mt_opt.exitcode, -1);
}

Test(options, booleans_accept_words)
{
    cr_expect_eq(mt_options_parse("quiet=yes", "test"), 0);
    cr_expect_eq(mt_opt.quiet, 1);
    cr_expect_eq(mt_options_parse("quiet=false", "test"), 0);
    cr_expect_eq(mt_opt.quiet, 0);
}

Test(options, set_option_from_code)
{
    cr_expect_eq(memtrack_set_option("report_sites", "4"), 0);
    cr_expect_eq(mt_opt.report_sites, 4);
    cr_expect_eq(memtrack_set_option("no_such_option", "1"), -1);
    cr_expect_eq(memtrack_set_options("report_sites=5:bogus=1"), 1);
    cr_expect_eq(mt_opt.report_sites, 5);
}

Test(options, guard_is_fixed_once_blocks_exist)
{
    void *p = memtrack_malloc_at(1, __FILE__, __LINE__, __func__);
    size_t guard = mt_opt.guard;
    cr_expect_eq(memtrack_set_option("guard", "64"), -1);
    cr_expect_eq(mt_opt.guard, guard);
    memtrack_free_at(p, __FILE__, __LINE__, __func__);
}

Test(options, page_guard_site_is_file_colon_line_and_repeats)
{
    /* the ':' before a line number belongs to the value, not to the next entry */
    cr_expect_eq(
        mt_options_parse("page_guard_site=src/a.c:12:verbose=1,page_guard_site=b.c:7", "test"), 0);
    cr_expect_str_eq(mt_opt.page_guard_site, "src/a.c:12 b.c:7");
    cr_expect_eq(mt_opt.verbose, 1);
    cr_expect_eq(mt_options_parse("page_guard_site=", "test"), 0); /* clears the list */
    cr_expect_str_eq(mt_opt.page_guard_site, "");
}

Test(options, page_guard_words_are_checked)
{
    cr_expect_eq(
        mt_options_parse("page_guard=some:page_guard_side=middle:page_guard_site=a.c", "test"), 3);
    cr_expect_eq(mt_options_parse("page_guard=all:page_guard_side=start", "test"), 0);
    cr_expect_str_eq(mt_opt.page_guard, "all");
    cr_expect_str_eq(mt_opt.page_guard_side, "start");
}

Test(options, stack_and_page_guard_slots_have_bounds)
{
    /* the test runner's own blocks may have frozen page_guard_slots in this process: the
     * bounds are what is tested here, not the freeze (guard_is_fixed_once_blocks_exist) */
    atomic_store(&mt_options_frozen, false);
    size_t stack = mt_opt.stack, slots = mt_opt.page_guard_slots;
    /* outside: refused, the option keeps its value (not cut to the bound in silence) */
    cr_expect_eq(mt_options_parse("stack=65:page_guard_slots=0:page_guard_slots=1048577", "test"),
                 3);
    cr_expect_eq(mt_opt.stack, stack);
    cr_expect_eq(mt_opt.page_guard_slots, slots);
    /* the bounds themselves are taken */
    cr_expect_eq(mt_options_parse("stack=64:page_guard_slots=1048576", "test"), 0);
    cr_expect_eq(mt_opt.stack, 64);
    cr_expect_eq(mt_opt.page_guard_slots, 1048576);
    cr_expect_eq(mt_options_parse("stack=0:page_guard_slots=1", "test"), 0);
    cr_expect_eq(mt_opt.stack, 0);
    cr_expect_eq(mt_opt.page_guard_slots, 1);
}
