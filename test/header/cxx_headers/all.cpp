// Every header of the standard library, force-included after memtrack.h, and the C
// library's allocation functions called through std:: and at namespace scope.
#include <bits/stdc++.h>
#if __cplusplus >= 201703L
#include <memory_resource>
#endif

static char *early = static_cast<char *>(malloc(8)); // a namespace-scope initializer

int main()
{
    void *p = std::malloc(10);
    p = std::realloc(p, 20);
    std::free(p);
    char *s = strdup("text");
    free(s);
    free(early);
    std::vector<std::string> v(3, "x");
    std::map<int, std::vector<int> > m;
    m[1].push_back(*new int(1)); // a leak, but only compiled here
    return static_cast<int>(v.size()) - 3;
}
