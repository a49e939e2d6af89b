/* An underrun by p[-1], the block's site page-guarded at its start: the write is named.
 * fault-options: page_guard_site=page_guard_underrun.c:10:page_guard_side=start
 */
#include <stdlib.h>

static void fill(char *p, int n);

int main(void)
{
    char *p = malloc(24);
    fill(p, 24);
    free(p);
    return 0;
}

static void fill(char *p, int n)
{
    for (int i = n - 1; i >= -1; i--) /* one too far */
        p[i] = (char)i;
}
