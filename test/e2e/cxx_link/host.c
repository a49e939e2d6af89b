/* A C program that loads a C++ library at run time. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    char *path = strdup(argc > 1 ? argv[1] : "./libplugin.so"); /* tracked, freed */
    void *lib = dlopen(path, RTLD_NOW);
    free(path);
    if (lib == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 2;
    }
    int (*work)(void) = (int (*)(void))dlsym(lib, "plugin_work");
    void *(*leak)(void) = (void *(*)(void))dlsym(lib, "plugin_leak");
    printf("plugin_work: %d\n", work());
    return leak() == NULL;
}
