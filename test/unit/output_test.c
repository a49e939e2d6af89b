/* output_test.c - the allocation-free formatter behind every message. */
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"

static void expect_text(mt_buf_t *b, const char *want)
{
    cr_expect_eq(b->len, strlen(want));
    cr_expect(memcmp(b->data, want, b->len) == 0, "got '%.*s'", (int)b->len, b->data);
}

Test(output, numbers)
{
    mt_buf_t b;
    mt_buf_init(&b, -1);
    mt_buf_u64(&b, 0);
    mt_buf_char(&b, ' ');
    mt_buf_u64(&b, UINT64_MAX);
    mt_buf_char(&b, ' ');
    mt_buf_i64(&b, INT64_MIN);
    mt_buf_char(&b, ' ');
    mt_buf_hex(&b, 0xdeadbeef);
    expect_text(&b, "0 18446744073709551615 -9223372036854775808 0xdeadbeef");
}

Test(output, counts_pick_singular_or_plural)
{
    mt_buf_t b;
    mt_buf_init(&b, -1);
    mt_buf_count(&b, 1, "block", "blocks");
    mt_buf_str(&b, ", ");
    mt_buf_count(&b, 2, "block", "blocks");
    expect_text(&b, "1 block, 2 blocks");
}

Test(output, long_text_is_flushed_not_truncated)
{
    int fds[2];
    char big[5000], back[5000];
    cr_assert_eq(pipe(fds), 0);
    memset(big, 'q', sizeof big);
    mt_buf_t b;
    mt_buf_init(&b, fds[1]);
    mt_buf_strn(&b, big, sizeof big);
    mt_buf_flush(&b);
    close(fds[1]);
    size_t got = 0;
    ssize_t n;
    while ((n = read(fds[0], back + got, sizeof back - got)) > 0)
        got += (size_t)n;
    cr_expect_eq(got, sizeof big);
    cr_expect(memcmp(big, back, sizeof big) == 0);
}
