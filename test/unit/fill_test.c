/* fill_test.c - the word-at-a-time fill, count and scan helpers agree byte for byte with
 * the plain loops they replace, at every length and alignment. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "checks/guard.h"

static unsigned char buf[600];

static void random_bytes(unsigned seed, unsigned char often)
{
    for (size_t i = 0; i < sizeof buf; i++) {
        seed = seed * 1103515245u + 12345u;
        buf[i] = (seed >> 16) % 3 == 0 ? (unsigned char)(seed >> 8) : often;
    }
}

Test(fill, count_byte_matches_a_plain_loop)
{
    for (unsigned seed = 1; seed < 60; seed++) {
        random_bytes(seed, 0xCD);
        for (size_t start = 0; start < 9; start++)
            for (size_t n = 0; n < 300; n += 1 + n / 17) {
                size_t want = 0;
                for (size_t i = 0; i < n; i++)
                    want += buf[start + i] == 0xCD;
                cr_assert_eq(mt_count_byte(buf + start, n, 0xCD), want, "seed %u start %zu n %zu",
                             seed, start, n);
            }
    }
}

Test(fill, fill_counting_counts_before_filling)
{
    for (unsigned seed = 1; seed < 40; seed++)
        for (size_t n = 0; n < 200; n += 3) {
            random_bytes(seed, 0xCD);
            size_t want = 0;
            for (size_t i = 0; i < n; i++)
                want += buf[5 + i] == 0xCD;
            unsigned char after = buf[5 + n];
            cr_assert_eq(mt_fill_counting(buf + 5, n, 0xDD, 0xCD), want);
            for (size_t i = 0; i < n; i++)
                cr_assert_eq(buf[5 + i], 0xDD);
            cr_assert_eq(buf[5 + n], after, "nothing past the end is touched");
        }
}

Test(fill, pattern_scan_finds_first_last_and_count)
{
    for (unsigned seed = 1; seed < 40; seed++)
        for (size_t n = 1; n < 300; n += 7) {
            memset(buf, 0xDD, sizeof buf);
            size_t want = 0, first = SIZE_MAX, last = 0;
            unsigned s = seed;
            for (int k = 0; k < 3; k++) {
                s = s * 1103515245u + 12345u;
                size_t at = (s >> 8) % n;
                if (buf[3 + at] == 0xDD) {
                    buf[3 + at] = (unsigned char)(s >> 20) == 0xDD ? 0 : (unsigned char)(s >> 20);
                    want++;
                    first = at < first ? at : first;
                    last = at > last ? at : last;
                }
            }
            size_t got_first = 0, got_last = 0;
            cr_assert_eq(mt_pattern_scan(buf + 3, n, 0xDD, &got_first, &got_last), want);
            if (want != 0) {
                cr_assert_eq(got_first, first);
                cr_assert_eq(got_last, last);
            }
        }
}
