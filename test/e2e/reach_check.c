/* memtrack_check_leaks() tells mid-run what the program lost, and memtrack_register_root()
 * shows the scan memory it cannot find by itself (an engine's own mapped heap). A block
 * only that memory points at is held while it is registered; once it is not, the block is
 * lost: printed, and counted in what the call returns. Registered again, it holds the
 * block at exit, named by where it was registered.
 * e2e-stdout
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

int main(void)
{
    void **heap = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *volatile name = malloc(10); /* main's frame holds it */
    if (heap == MAP_FAILED)
        return 1;
    memtrack_register_root(heap, 4096);
    heap[3] = malloc(40);
    printf("lost while the root is registered: %zu\n", memtrack_check_leaks());
    memtrack_unregister_root(heap);
    printf("lost once it is not: %zu\n", memtrack_check_leaks());
    memtrack_register_root(heap, 4096);
    return name == NULL;
}
