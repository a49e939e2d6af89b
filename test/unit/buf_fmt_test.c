/* buf_fmt_test.c - mt_buf_fmt words a line as printf would, without stdio. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"

static void expect_text(mt_buf_t *b, const char *want)
{
    cr_expect_eq(b->len, strlen(want), "got '%.*s', want '%s'", (int)b->len, b->data, want);
    cr_expect(memcmp(b->data, want, b->len) == 0, "got '%.*s', want '%s'", (int)b->len, b->data,
              want);
}

/* The conversions of ours that printf has too write what snprintf writes. */
#define SAME_AS_PRINTF(...)                                                                        \
    do {                                                                                           \
        char want[256];                                                                            \
        snprintf(want, sizeof want, __VA_ARGS__);                                                  \
        mt_buf_t b;                                                                                \
        mt_buf_init(&b, -1);                                                                       \
        mt_buf_fmt(&b, __VA_ARGS__);                                                               \
        expect_text(&b, want);                                                                     \
    } while (0)

Test(buf_fmt, conversions_write_what_printf_writes)
{
    SAME_AS_PRINTF("%s:%d in %s()", "a.c", 42, "main");
    SAME_AS_PRINTF("%d %d %d", 0, INT_MIN, INT_MAX);
    SAME_AS_PRINTF("%u %lu %llu %zu", UINT_MAX, ULONG_MAX, ULLONG_MAX, (size_t)SIZE_MAX);
    SAME_AS_PRINTF("%ld %lld %i", LONG_MIN, LLONG_MIN, -7);
    SAME_AS_PRINTF("%" PRIu64 " and %" PRId64, UINT64_MAX, INT64_MIN);
    SAME_AS_PRINTF("%x %lx %llx", 0u, 0xdeadbeeful, 0x0123456789abcdefull);
    SAME_AS_PRINTF("[%5u] [%*u] [%3d] [%2u] [%*d]", 42u, 8, 7u, -4, 12345u, 4, -12);
    SAME_AS_PRINTF("%c%c 100%% sure", 'o', 'k');
    SAME_AS_PRINTF("no conversion at all");
    SAME_AS_PRINTF("%s", "");
}

Test(buf_fmt, pointers_and_null_strings_as_the_appenders_write_them)
{
    mt_buf_t b;
    mt_buf_init(&b, -1);
    mt_buf_fmt(&b, "%p %p %s|%-s|", (void *)0x7f00beef, (void *)0, (const char *)NULL,
               (const char *)NULL);
    expect_text(&b, "0x7f00beef 0x0 (null)||");
}

Test(buf_fmt, dash_s_escapes_a_name_as_text)
{
    mt_buf_t b;
    mt_buf_init(&b, -1);
    mt_buf_fmt(&b, "at %-s in %s\n", "evil\n\\name.c", "raw\tword");
    expect_text(&b, "at evil\\x0a\\x5cname.c in raw\tword\n");
}

Test(buf_fmt, an_escaping_buffer_escapes_the_format_and_its_arguments)
{
    mt_buf_t b;
    mt_buf_init(&b, -1);
    mt_buf_json_begin(&b);
    mt_buf_fmt(&b, "\"%s\" %u\n", "a\"b", 3u);
    mt_buf_json_end(&b);
    expect_text(&b, "\"\\\"a\\\"b\\\" 3\\n\"");
    mt_buf_init(&b, -1);
    mt_buf_escape(&b, MT_ESCAPE_HTML);
    mt_buf_fmt(&b, "<%-s>", "x&y");
    expect_text(&b, "&lt;x&amp;y&gt;");
}

Test(buf_fmt, what_is_not_a_conversion_is_shown_as_it_is)
{
    mt_buf_t b;
    mt_buf_init(&b, -1);
    char ends_at_percent[] = "50%"; /* (not a literal: the compiler would refuse it) */
    mt_buf_fmt(&b, ends_at_percent, 0);
    expect_text(&b, "50%");
}

Test(buf_fmt, long_output_is_flushed_not_cut)
{
    int fds[2];
    char name[3000], back[8000];
    cr_assert_eq(pipe(fds), 0);
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    mt_buf_t b;
    mt_buf_init(&b, fds[1]);
    mt_buf_fmt(&b, "%s/%s=%u", name, name, 9u);
    mt_buf_flush(&b);
    close(fds[1]);
    size_t got = 0;
    ssize_t n;
    while ((n = read(fds[0], back + got, sizeof back - got)) > 0)
        got += (size_t)n;
    close(fds[0]);
    cr_expect_eq(got, 2 * (sizeof name - 1) + 3);
    cr_expect_eq(back[sizeof name - 1], '/');
    cr_expect(memcmp(back + got - 2, "=9", 2) == 0);
}
