/* Bare metal: the tracker given far too little memory (8 KiB for 200 blocks). The program
 * still gets every block it asks for: those the tracker has no room to record are handed
 * out untracked, freed as any block of untracked code is, and the report says how many
 * went untracked and what to give MEMTRACK_STATIC_MEMORY instead, with the blocks it did
 * track grouped by site as always (part of the buffer is kept for the report).
 * platform-targets: cortexm
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

MEMTRACK_STATIC_MEMORY(8 * 1024);

#define BLOCKS 200

int main(void)
{
    static char *block[BLOCKS];
    for (int i = 0; i < BLOCKS; i++) {
        block[i] = malloc(16);
        if (block[i] == NULL) /* the program always gets its memory */
            _exit(2);
        memset(block[i], i, 16);
    }
    for (int i = 0; i < BLOCKS; i++)
        if (block[i][15] != (char)i)
            _exit(3);
    for (int i = 0; i < BLOCKS; i += 2) /* tracked or not, each goes back */
        free(block[i]);
    char *grown = realloc(block[1], 64); /* untracked or not, realloc works */
    if (grown == NULL || grown[15] != 1)
        _exit(4);
    free(grown);
    return 0; /* the other odd blocks leak */
}
