/* preload-untracked.c - a clean program that leans on the C library, built WITHOUT
 * memtrack by preload.sh: under memtrack run --preload it must report nothing. */
#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pwd.h>
#include <unistd.h>
static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
static void *worker(void *arg) { char *s = strdup(arg); size_t n = strlen(s); free(s); return (void *)n; }
int main(void)
{
    setlocale(LC_ALL, "");
    int v[100]; for (int i = 0; i < 100; i++) v[i] = 100 - i;
    qsort(v, 100, sizeof v[0], cmp);
    time_t t = time(NULL); struct tm *tm = localtime(&t); char buf[64]; strftime(buf, sizeof buf, "%c", tm);
    FILE *f = fopen("/etc/passwd", "r"); char *line = NULL; size_t cap = 0;
    while (f && getline(&line, &cap, f) > 0) {}
    free(line); if (f) fclose(f);
    struct passwd *pw = getpwuid(getuid());
    pthread_t th[4]; for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, worker, "thread");
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    char *p = malloc(1000); p = realloc(p, 5000); free(p);
    printf("%d %s %s\n", v[0], pw ? pw->pw_name : "?", buf[0] ? "time" : "");
    return 0;
}
