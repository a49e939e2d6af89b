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
