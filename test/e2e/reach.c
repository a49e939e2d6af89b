/* Who keeps each leak alive: one block held in a global, one in a static local, two in a
 * chain from a static global, one lost, one only a lost block holds (indirectly lost), one
 * only a pointer into its middle holds (possibly lost), one in main's frame (exit() is
 * called below it) and one on the stack of a thread still running at exit. The report
 * lists them by class, lost first, each group with what holds it, as Valgrind's memcheck
 * classes them (test/report/reach_valgrind.sh runs both on this program).
 * (reach_lost.c includes this file, to run it with leaks=lost.)
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct node {
    struct node *next;
    char name[24];
};

void *g_cache;              /* a global */
static struct node *g_list; /* a chain of two blocks from a static global */
static char *g_middle;      /* a pointer into the middle of a block */
static int ready[2], never[2];

static void remember(void)
{
    static char *kept; /* a static local */
    kept = strdup("kept by a static local");
}

static void lose(void)
{
    struct node *head = malloc(sizeof *head); /* lost */
    head->next = malloc(sizeof *head->next);  /* indirectly lost */
    head->next->next = NULL;
}

static void *worker(void *arg)
{
    char *volatile mine = malloc(48); /* on this thread's stack only */
    char c = 'r';
    (void)arg;
    if (write(ready[1], &c, 1) != 1 || read(never[0], &c, 1) < 0) /* blocks until exit */
        return NULL;
    return mine;
}

static void finish(void)
{
    exit(0); /* main's frame is still on the stack */
}

int main(void)
{
    char *volatile local;
    pthread_t thread;
    char c;
    g_cache = malloc(100);
    remember();
    g_list = malloc(sizeof *g_list);
    g_list->next = malloc(sizeof *g_list->next);
    g_list->next->next = NULL;
    lose();
    g_middle = (char *)malloc(64) + 32;
    local = malloc(7);
    if (pipe(ready) != 0 || pipe(never) != 0 ||
        pthread_create(&thread, NULL, worker, NULL) != 0 || read(ready[0], &c, 1) != 1)
        return 1;
    finish();
    return local != NULL;
}
