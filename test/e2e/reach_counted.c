/* Blocks held one word into them, as Valgrind's heuristics take them: a block whose first
 * word holds its length less that word (SQLite's allocator keeps each block's size so: its
 * length64) and one whose first word counts elements that fit in it (C++'s new[] keeps the
 * count before the objects: its newarray), each pointed at just past that word, are still
 * reachable; a pointer two words into a block only makes it possibly lost.
 * (test/report/reach_valgrind.sh runs this program under Valgrind too.)
 */
#include <stdlib.h>

static char *g_sized;   /* past a length word */
static char *g_counted; /* past a count word */
static char *g_deeper;  /* two words in */

int main(void)
{
    size_t *sized = malloc(48);
    size_t *counted = malloc(48);
    size_t *deeper = malloc(48);
    sized[0] = 48 - sizeof(size_t);
    g_sized = (char *)(sized + 1);
    counted[0] = 4; /* four elements of ten bytes */
    g_counted = (char *)(counted + 1);
    deeper[0] = 40;
    g_deeper = (char *)(deeper + 2);
    return 0;
}
