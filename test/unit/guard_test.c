/* guard_test.c - block layout and guard damage measurement. */
#include <criterion/criterion.h>
#include <string.h>

#include "checks/guard.h"

Test(guard, front_size_keeps_alignment)
{
    cr_expect_eq(mt_front_size(16, 16), 16);
    cr_expect_eq(mt_front_size(0, 16), 0);
    cr_expect_eq(mt_front_size(1, 16), 16);
    cr_expect_eq(mt_front_size(17, 16), 32);
    cr_expect_eq(mt_front_size(16, 64), 64);
    cr_expect_eq(mt_front_size(16, 4096), 4096);
    cr_expect_eq(mt_front_size(16, 8), 16); /* never below malloc's alignment */
}

Test(guard, pattern_has_no_zero_byte)
{
    cr_expect_neq(MT_GUARD_BYTE, 0);
    cr_expect_neq(MT_ALLOC_FILL_BYTE, 0);
}

static unsigned char area[16 + 10 + 16];

Test(guard, intact_guards_pass)
{
    mt_guard_damage_t under, over;
    mt_guard_fill(area + 16, 10, 16, 16);
    cr_expect_not(mt_guard_check(area + 16, 10, 16, 16, &under, &over));
    cr_expect_eq(under.changed + over.changed, 0);
}

Test(guard, one_byte_overrun_and_underrun)
{
    mt_guard_damage_t under, over;
    mt_guard_fill(area + 16, 10, 16, 16);
    area[16 + 10] = 0;  /* first byte past the end */
    area[16 - 1] = 'x'; /* last byte before the start */
    cr_expect(mt_guard_check(area + 16, 10, 16, 16, &under, &over));
    cr_expect_eq(over.changed, 1);
    cr_expect_eq(over.extent, 1);
    cr_expect_eq(under.changed, 1);
    cr_expect_eq(under.extent, 1);
}

Test(guard, extent_is_the_farthest_changed_byte)
{
    mt_guard_damage_t under, over;
    mt_guard_fill(area + 16, 10, 16, 16);
    area[16 + 10 + 3] = 1;
    area[16 + 10 + 15] = 1; /* the last guard byte */
    area[0] = 1;            /* the first front guard byte: 16 before the start */
    cr_expect(mt_guard_check(area + 16, 10, 16, 16, &under, &over));
    cr_expect_eq(over.changed, 2);
    cr_expect_eq(over.extent, 16);
    cr_expect_eq(under.changed, 1);
    cr_expect_eq(under.extent, 16);
}

Test(guard, zero_guard_checks_nothing)
{
    mt_guard_damage_t under, over;
    cr_expect_not(mt_guard_check(area + 16, 10, 0, 0, &under, &over));
}
