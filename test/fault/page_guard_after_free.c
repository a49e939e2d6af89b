/* Uses after free of page-guarded blocks, a write and a read: each is named, with where the
 * block was made and freed. Then a double free of one of them, told with both sites.
 * fault-options: page_guard_site=page_guard_after_free.c:21
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct session {
    char user[32];
    int logged_in;
} session_t;

static void logout(session_t *s)
{
    free(s);
}

static session_t *login(const char *name)
{
    session_t *s = malloc(sizeof *s);
    strcpy(s->user, name);
    s->logged_in = 1;
    return s;
}

int main(void)
{
    session_t *alice = login("alice");
    session_t *bob = login("bob");
    logout(alice);
    alice->logged_in = 0; /* a write after free */
    logout(bob);
    printf("bob logged in: %d\n", bob->logged_in != 0); /* a read after free */
    free(alice);
    return 0;
}
