/* Sampling: a bug repeated in a loop, no site chosen. One allocation in 100, chosen at
 * random (a fixed seed here, for a stable report), is laid against a guard page: the first
 * sampled overrun names the line, every other is found by free with the rerun hint, and
 * the message cap counts the rest. The sampled blocks never exceed the pool of 2 slots.
 * fault-options: page_guard_rate=100:page_guard_slots=2:page_guard_seed=7:max_messages=1
 */
#include <stdlib.h>
#include <string.h>

static char *label(int i)
{
    char *s = malloc(16);
    memset(s, 'a' + i % 26, 16);
    s[16] = '\0'; /* one past the end, every time */
    return s;
}

int main(void)
{
    for (int i = 0; i < 1000; i++)
        free(label(i));
    return 0;
}
