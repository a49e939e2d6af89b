/* symbol_names.c - function names as people read them: demangled with the program's C++
 * runtime (or the system's, opened when a C++ name is first shown), without parameters,
 * and kept in the tracker's own memory for the life of the process.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>

#include "base/memory.h"
#include "base/symbol_names.h"

/* The C++ runtime's demangler, when the program has one (weak: C programs do not). A PE
 * image (Windows) cannot leave a weak symbol undefined: there is no demangler there. */
#ifdef _WIN32
#define __cxa_demangle NULL
#else
extern char *__cxa_demangle(const char *mangled, char *out, size_t *length, int *status)
    __attribute__((weak));
#endif

const char *mt_keep_string(const char *s, size_t n)
{
    char *copy = mt_mem_alloc(n + 1);
    if (copy == NULL)
        return NULL;
    memcpy(copy, s, n);
    copy[n] = '\0';
    return copy;
}

/* The length of a demangled name without its parameter list and what follows it
 * ("Foo::bar(int) const" -> "Foo::bar"), as __func__ and the C names read: a report
 * names the same function the same way whichever compiler and debug format made it. */
static size_t without_parameters(const char *name)
{
    size_t n = strlen(name);
    const char *clone = strstr(name, " [clone ");
    if (clone != NULL)
        n = (size_t)(clone - name);
    while (n > 0 && name[n - 1] != ')') /* " const", " &&", " volatile"... */
        n--;
    if (n == 0)
        return strlen(name); /* no parameter list */
    int depth = 0;
    for (size_t i = n; i-- > 0;) {
        if (name[i] == ')')
            depth++;
        else if (name[i] == '(' && --depth == 0)
            return i > 0 ? i : strlen(name);
    }
    return strlen(name);
}

/* The length of a C symbol without the suffix GCC gives a copy of a function it specialized
 * or split ("load.constprop.0", "parse.isra.0", "run.part.0", "run.cold"): a symbol table
 * names the copy, __func__ and the debug information the function. */
static size_t without_clone_suffix(const char *name)
{
    static const char *const suffixes[] = {".constprop.", ".isra.", ".part.", ".cold",
                                           ".lto_priv."};
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        const char *at = strstr(name, suffixes[i]);
        if (at != NULL && at > name && (size_t)(at - name) < n)
            n = (size_t)(at - name);
    }
    return n;
}

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
static demangle_fn demangler;
static pthread_once_t demangler_once = PTHREAD_ONCE_INIT;

/* The program's C++ runtime, or when it has none loaded (a C++ program that only calls
 * malloc, linked --as-needed, keeps C++ names but not libstdc++), the system's, opened the
 * first time a C++ name is shown, as libdw is. */
static void find_demangler(void)
{
    demangler = __cxa_demangle;
    if (demangler != NULL)
        return;
    void *cxx = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
    if (cxx != NULL)
        demangler = (demangle_fn)dlsym(cxx, "__cxa_demangle");
}

/* A function name as people read it: demangled when it is a C++ name and a demangler is to
 * be had, without its parameters. */
const char *mt_keep_function(const char *name)
{
    if (name == NULL)
        return NULL;
    if (name[0] == '_' && name[1] == 'Z')
        pthread_once(&demangler_once, find_demangler);
    if (name[0] == '_' && name[1] == 'Z' && demangler != NULL) {
        int status = -1;
        char *plain = demangler(name, NULL, NULL, &status);
        if (plain != NULL) {
            const char *kept =
                status == 0 ? mt_keep_string(plain, without_parameters(plain)) : NULL;
            mt_libc_free(plain); /* malloc'd by the runtime, so the C library's */
            if (kept != NULL)
                return kept;
        }
    }
    return mt_keep_string(name, without_clone_suffix(name));
}

const char *mt_base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}
