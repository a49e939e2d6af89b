/* Out of memory for real: a child limits its address space (RLIMIT_AS) and allocates
 * until the C library says no. The tracker returns NULL with errno ENOMEM and counts it;
 * a realloc that cannot grow leaves its block valid and tracked; what the quarantine holds
 * is given back before an allocation fails, so freeing everything makes room again. (How
 * many blocks fit depends on the machine: the program checks itself, no report is due.)
 * fault-options: quarantine=1g
 * fault-abort: no
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define BLOCK (64 * 1024) /* below glibc's mmap threshold: from the heap */
#define MAX_BLOCKS 4096

static void *blocks[MAX_BLOCKS];

static int child(void)
{
    int n = 0, again = 0, i;
    struct rlimit limit = {256u << 20, 256u << 20};
    if (setrlimit(RLIMIT_AS, &limit) != 0)
        return 10;
    char *keep = strdup("survives every failure");
    errno = 0;
    while (n < MAX_BLOCKS && (blocks[n] = malloc(BLOCK)) != NULL)
        n++;
    if (n == 0 || n == MAX_BLOCKS || errno != ENOMEM)
        return 11;
    errno = 0;
    if (realloc(keep, 300u << 20) != NULL || errno != ENOMEM || strcmp(keep, "survives every failure"))
        return 12;
    for (i = 0; i < n; i++) /* quarantine=1g: all of them stay in quarantine */
        free(blocks[i]);
    /* Without the quarantine giving its blocks back, not one of these would fit. A few
     * fewer than before: the tracker's own memory (the quarantine's queue, sites, stacks)
     * took some room, in mappings of 1 MiB (16 blocks) each. */
    while (again < n - 32 && (blocks[again] = malloc(BLOCK)) != NULL)
        again++;
    if (again != n - 32)
        return 13;
    for (i = 0; i < again; i++)
        free(blocks[i]);
    memtrack_stats_t st;
    memtrack_stats(&st);
    if (st.failed != 2 || st.current_blocks != 1)
        return 14;
    free(keep);
    return 0;
}

int main(void)
{
    int status;
    pid_t pid = fork();
    if (pid == 0)
        exit(child());
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}
