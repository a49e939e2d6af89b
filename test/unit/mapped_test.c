/* mapped_test.c - the program's mappings noted as roots of the leak scan (base/mapped.c):
 * what its fixed list cannot hold is left out, never kept as a root it no longer is. */
#include <criterion/criterion.h>

#include "base/lock.h"
#include "base/mapped.h"

/* Addresses no mapping of the test's process has: the list notes ranges, it maps nothing. */
#define FAKE ((uintptr_t)0x100000000000)
#define PAGE ((uintptr_t)4096)

static bool noted(uintptr_t addr)
{
    static mt_span_t spans[MT_MAPPED_MAX];
    size_t n = mt_mapped_spans(spans, MT_MAPPED_MAX);
    for (size_t i = 0; i < n; i++)
        if (spans[i].start <= addr && addr < spans[i].end)
            return true;
    return false;
}

Test(mapped, a_hole_unmapped_in_a_full_list_is_no_root)
{
    for (uintptr_t i = 0; i < MT_MAPPED_MAX; i++) /* the list full, whatever was noted before */
        mt_mapped_add(FAKE + i * 16 * PAGE, 3 * PAGE);
    cr_assert(noted(FAKE + PAGE));
    mt_mapped_remove(FAKE + PAGE, PAGE); /* the middle page: no room for the two sides */
    cr_expect_not(noted(FAKE + PAGE), "the page unmapped is still a root");
    mt_mapped_remove(FAKE, 16 * PAGE * MT_MAPPED_MAX);
    cr_expect_not(noted(FAKE));
}

Test(mapped, a_hole_splits_a_noted_range)
{
    mt_mapped_add(FAKE, 3 * PAGE);
    mt_mapped_remove(FAKE + PAGE, PAGE);
    cr_expect(noted(FAKE));
    cr_expect_not(noted(FAKE + PAGE));
    cr_expect(noted(FAKE + 2 * PAGE));
}

/* A munmap in a signal handler that interrupted the tracker (this thread busy inside it,
 * the list's lock free) forgets the range; nothing is noted from there. */
Test(mapped, a_nested_call_forgets_but_notes_nothing)
{
    mt_mapped_add(FAKE, 2 * PAGE);
    mt_busy++;
    mt_mapped_remove(FAKE, PAGE);
    mt_mapped_add(FAKE + 4 * PAGE, PAGE);
    mt_busy--;
    cr_expect_not(noted(FAKE), "a range unmapped in a nested call is still a root");
    cr_expect(noted(FAKE + PAGE));
    cr_expect_not(noted(FAKE + 4 * PAGE));
}
