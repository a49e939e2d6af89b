/* memtrack_check_leaks() tells mid-run what the program lost; memtrack_register_root() shows
 * the scan memory it cannot find itself (mapped by a raw system call, not mmap). A block only
 * it points at is held while it is registered; once not, the block is lost: printed, counted
 * in what the call returns. Registered again, it holds the block at exit, named by where.
 * e2e-stdout */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
    void **heap = (void **)syscall(SYS_mmap, 0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
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
