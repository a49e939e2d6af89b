/* site_test.c - interning sites to small ids. */
#include <criterion/criterion.h>
#include <string.h>

#include "records/site.h"

Test(site, same_place_same_id)
{
    uint32_t a = mt_site_id("f.c", 10, "fn", MT_KIND_MALLOC, NULL);
    uint32_t b = mt_site_id("f.c", 10, "fn", MT_KIND_MALLOC, NULL);
    cr_expect_neq(a, MT_SITE_NONE);
    cr_expect_eq(a, b);
}

Test(site, line_kind_and_owner_make_different_sites)
{
    uint32_t a = mt_site_id("f.c", 10, "fn", MT_KIND_MALLOC, NULL);
    cr_expect_neq(a, mt_site_id("f.c", 11, "fn", MT_KIND_MALLOC, NULL));
    cr_expect_neq(a, mt_site_id("f.c", 10, "fn", MT_KIND_CALLOC, NULL));
    cr_expect_neq(a, mt_site_id("f.c", 10, "fn", MT_KIND_MALLOC, "bullets"));
}

Test(site, strings_are_copied)
{
    char file[32], func[32];
    strcpy(file, "level.c");
    strcpy(func, "load");
    uint32_t id = mt_site_id(file, 7, func, MT_KIND_MALLOC, NULL);
    memset(file, 'x', sizeof file - 1);
    memset(func, 'y', sizeof func - 1);
    cr_expect_str_eq(mt_site_get(id)->file, "level.c");
    cr_expect_str_eq(mt_site_get(id)->func, "load");
}

Test(site, equal_text_from_different_pointers_is_the_same_site)
{
    char other[] = "g.c";
    uint32_t a = mt_site_id("g.c", 3, "h", MT_KIND_MALLOC, NULL);
    uint32_t b = mt_site_id(other, 3, "h", MT_KIND_MALLOC, NULL);
    cr_expect(mt_site_same(a, b));
    cr_expect_not(mt_site_same(a, mt_site_id("g.c", 4, "h", MT_KIND_MALLOC, NULL)));
}

Test(site, many_sites_survive_the_thread_cache)
{
    static const char *files[] = {"a.c", "b.c", "c.c", "d.c"};
    uint32_t ids[4][300];
    for (int f = 0; f < 4; f++)
        for (int line = 0; line < 300; line++)
            ids[f][line] = mt_site_id(files[f], line, "fn", MT_KIND_MALLOC, NULL);
    for (int f = 0; f < 4; f++)
        for (int line = 0; line < 300; line++) {
            cr_assert_eq(mt_site_id(files[f], line, "fn", MT_KIND_MALLOC, NULL), ids[f][line]);
            cr_assert_eq(mt_site_get(ids[f][line])->line, line);
        }
}

Test(site, unknown_id_reads_safely)
{
    cr_expect_null(mt_site_get(MT_SITE_NONE)->file);
    cr_expect_null(mt_site_get(0xfffffff0u)->file);
}
