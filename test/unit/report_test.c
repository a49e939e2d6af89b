/* report_test.c - the report model and what feeds it: escaping for JSON, HTML and URIs,
 * readable sizes, the timeline's sampling and decimation, checkpoints, suppression rules. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "api/api.h"
#include "records/timeline.h"
#include "report/report.h"

static void expect_text(mt_buf_t *b, const char *want)
{
    cr_expect_eq(b->len, strlen(want), "got '%.*s', want '%s'", (int)b->len, b->data, want);
    cr_expect(memcmp(b->data, want, b->len) == 0, "got '%.*s'", (int)b->len, b->data);
}

Test(report, json_strings_are_escaped)
{
    mt_buf_t b;
    mt_buf_init(&b, -1);
    mt_buf_json_str(&b, "a\"b\\c\nd\t\x01 \xc3\xa9");
    mt_buf_char(&b, ' ');
    mt_buf_json_str(&b, NULL);
    expect_text(&b, "\"a\\\"b\\\\c\\nd\\t\\u0001 \xc3\xa9\" null");
}

Test(report, html_and_uri_escaping)
{
    mt_buf_t b;
    mt_buf_init(&b, -1);
    mt_buf_html(&b, "<a href=\"x\">&'</a>");
    expect_text(&b, "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
    mt_buf_init(&b, -1);
    mt_buf_uri_path(&b, "/src/my file%1.c");
    expect_text(&b, "/src/my%20file%251.c");
}

Test(report, sizes_read_like_a_person_writes_them)
{
    static const struct {
        uint64_t bytes;
        const char *text;
    } cases[] = {{0, "0 bytes"},         {1, "1 byte"},
                 {1023, "1023 bytes"},   {1024, "1.0 KiB"},
                 {1536, "1.5 KiB"},      {1048575, "1023.9 KiB"},
                 {10485760, "10.0 MiB"}, {(uint64_t)3 << 40, "3.0 TiB"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mt_buf_t b;
        mt_buf_init(&b, -1);
        mt_buf_size(&b, cases[i].bytes);
        expect_text(&b, cases[i].text);
    }
}

Test(report, timeline_decimates_and_keeps_the_exact_peak)
{
    static void *blocks[3000];
    mt_init();
    /* Up to 3000 blocks of 8 bytes, down to none, up to 10: 6010 events. */
    for (int i = 0; i < 3000; i++)
        blocks[i] = memtrack_malloc_at(8, "t.c", 1, "f");
    for (int i = 0; i < 3000; i++)
        memtrack_free_at(blocks[i], "t.c", 2, "f");
    for (int i = 0; i < 10; i++)
        blocks[i] = memtrack_malloc_at(8, "t.c", 3, "f");

    static mt_sample_t samples[MT_TIMELINE_MAX + 1];
    mt_sample_t peak;
    size_t n = mt_timeline_copy(samples, MT_TIMELINE_MAX + 1, &peak);
    cr_expect(n >= MT_TIMELINE_MAX / 2 && n <= MT_TIMELINE_MAX + 1, "%zu samples", n);
    cr_expect(mt_timeline_mask > 0, "the spacing never grew");
    for (size_t i = 1; i < n; i++)
        cr_assert_lt(samples[i - 1].event, samples[i].event);
    cr_expect_eq(samples[n - 1].event, 6010);
    cr_expect_eq(samples[n - 1].bytes, 80);
    cr_expect_eq(peak.bytes, 24000);
    cr_expect_eq(peak.blocks, 3000);
    cr_expect_eq(peak.event, 3000);
    for (size_t i = 0; i < n; i++)
        cr_expect_leq(samples[i].bytes, peak.bytes);
    for (int i = 0; i < 10; i++)
        memtrack_free_at(blocks[i], "t.c", 4, "f");
}

Test(report, checkpoint_model_holds_only_later_blocks)
{
    mt_init();
    void *before = memtrack_malloc_at(100, "c.c", 1, "f");
    unsigned long mark = memtrack_checkpoint();
    void *after = memtrack_malloc_at(7, "c.c", 2, "g");
    void *gone = memtrack_malloc_at(9, "c.c", 3, "g");
    memtrack_free_at(gone, "c.c", 4, "g");

    mt_report_t r;
    cr_assert(mt_report_build(&r, MT_WHEN_SINCE, mark));
    cr_expect_eq(r.nsites, 1);
    cr_expect_eq(r.leaked_bytes, 7);
    cr_expect_eq(r.sites[0].where.line, 2);
    cr_expect_str_eq(r.sites[0].where.func, "g");
    cr_expect_str_eq(r.sites[0].where.kind, "malloc");
    cr_expect_eq(r.sites[0].seqs[0], mark);
    mt_report_free(&r);
    cr_assert(mt_report_build(&r, MT_WHEN_NOW, 1));
    cr_expect_eq(r.leaked_bytes, 107);
    mt_report_free(&r);
    memtrack_free_at(before, "c.c", 5, "f");
    memtrack_free_at(after, "c.c", 6, "f");
}

Test(report, suppression_rules_match_file_function_site_module)
{
    char path[] = "/tmp/memtrack-supp-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    const char *rules = "# comment\n\n  function:cache_*  \nfile:gen_?.c\nsite:src/*.c:42\r\n"
                        "module:libfoo.so*\nfile:third_party/*\nnonsense\n";
    cr_assert_eq(write(fd, rules, strlen(rules)), (ssize_t)strlen(rules));
    close(fd);
    cr_assert_eq(memtrack_set_option("suppressions", path), 0);
    cr_expect_eq(mt_suppress_count(), 5); /* the nonsense line is warned about, not kept */
    cr_expect_str_eq(mt_suppress_rule(0), "function:cache_*");
    cr_expect_str_eq(mt_suppress_rule(2), "site:src/*.c:42");

    mt_place_t p = {.kind = "malloc", .file = "src/cache.c", .line = 42, .func = "load"};
    cr_expect_eq(mt_suppress_match(&p, NULL), 2);
    p.line = 43;
    cr_expect_eq(mt_suppress_match(&p, NULL), -1);
    p.func = "cache_fill";
    cr_expect_eq(mt_suppress_match(&p, NULL), 0);
    p = (mt_place_t){.file = "/build/out/gen_1.c", .line = 1};
    cr_expect_eq(mt_suppress_match(&p, NULL), 1, "a glob without '/' names the last part");
    p.file = "/build/out/gen_12.c";
    cr_expect_eq(mt_suppress_match(&p, NULL), -1, "? is one character");
    p = (mt_place_t){.file = "third_party/z/lib.c", .line = 3};
    cr_expect_eq(mt_suppress_match(&p, NULL), 4);
    p = (mt_place_t){.pc = 0x1234, .module = "/opt/x/libfoo.so.1", .func = "f"};
    cr_expect_eq(mt_suppress_match(&p, NULL), 3);
    unlink(path);
}

/* held:GLOB matches what holds a group of leaks: a variable's name, or the function whose
 * stack frame holds it; never a lost block's (nothing holds it), nor a place. */
Test(report, suppression_rules_match_holders)
{
    char path[] = "/tmp/memtrack-supp-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    const char *rules = "held:g_font_*\nheld:main\n";
    cr_assert_eq(write(fd, rules, strlen(rules)), (ssize_t)strlen(rules));
    close(fd);
    cr_assert_eq(memtrack_set_option("suppressions", path), 0);
    cr_expect_eq(mt_suppress_count(), 2);
    mt_place_t p = {.kind = "malloc", .file = "font.c", .line = 9, .func = "g_font_load"};
    mt_holder_t h = {.kind = MT_HOLDER_GLOBAL, .name = "g_font_cache", .file = "font.c"};
    cr_expect_eq(mt_suppress_match(&p, &h), 0);
    cr_expect_eq(mt_suppress_match(&p, NULL), -1, "a place's function is not a holder");
    h = (mt_holder_t){.kind = MT_HOLDER_STACK, .func = "main", .file = "a.c", .line = 4};
    cr_expect_eq(mt_suppress_match(&p, &h), 1);
    h = (mt_holder_t){.kind = MT_HOLDER_LOST, .chain = {3, 4}, .nchain = 2};
    cr_expect_eq(mt_suppress_match(&p, &h), -1);
    unlink(path);
}

/* The lines a report adds when the tracker's memory ran out (bare metal's static buffer):
 * nothing when it never did; blocks that went untracked, or none; the size to give it. */
Test(report, shortage_lines_say_what_went_untracked_and_what_to_give)
{
    mt_buf_t b;
    mt_shortage_t none = {0, 0, 0, 0}, untracked = {165, 2688, 8192, 25600},
                  tables = {0, 0, 20480, 36864};
    mt_buf_init(&b, -1);
    mt_buf_shortage_lines(&b, &none);
    expect_text(&b, "");
    mt_buf_init(&b, -1);
    mt_buf_shortage_lines(&b, &untracked);
    expect_text(&b, "memtrack: the tracker's memory ran out: 165 blocks (2688 bytes) were not "
                    "tracked: their leaks and errors are not in this report\n"
                    "memtrack:   MEMTRACK_STATIC_MEMORY(8192) is too small: give it about "
                    "MEMTRACK_STATIC_MEMORY(25600)\n");
    mt_buf_init(&b, -1);
    mt_buf_shortage_lines(&b, &tables);
    expect_text(&b, "memtrack: the tracker's memory ran out: every block was tracked, but not "
                    "all the tracker keeps (sites, errors, the report's working memory)\n"
                    "memtrack:   MEMTRACK_STATIC_MEMORY(20480) is too small: give it about "
                    "MEMTRACK_STATIC_MEMORY(36864)\n");
}
