/* An out-of-bounds read: the guard check cannot see it, a page guard can. Every block is
 * page-guarded (page_guard=all); the read past the end is named, and the value read is
 * whatever the opened page holds.
 * fault-options: page_guard=all
 */
#include <stdio.h>
#include <stdlib.h>

static int sum(const int *v, int n)
{
    int total = 0;
    for (int i = 0; i <= n; i++) /* reads v[n] */
        total += v[i];
    return total;
}

int main(void)
{
    int *v = malloc(4 * sizeof *v);
    for (int i = 0; i < 4; i++)
        v[i] = i + 1;
    printf("sum %d\n", sum(v, 4));
    free(v);
    return 0;
}
