/* A C program: it links libmemtrack (shared or static) without the C++ runtime. */
#include <stdlib.h>
#include <string.h>

int main(void)
{
    char *kept = strdup("leaked on purpose");
    return kept == NULL;
}
