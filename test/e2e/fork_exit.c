/* After fork the child reports its own leaks at its own exit (the parent's blocks are in
 * its memory too); a child that ends with _exit or exec reports nothing.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
    int status;
    (void)malloc(100); /* leaked by the parent, so by each child too */
    pid_t child = fork();
    if (child == 0) {
        (void)malloc(7); /* the child's own leak */
        exit(0);
    }
    waitpid(child, &status, 0);
    if (fork() == 0)
        _exit(0);
    wait(&status);
    if (fork() == 0) {
        execl("/bin/true", "true", (char *)NULL);
        _exit(1);
    }
    wait(&status);
    return WEXITSTATUS(status);
}
