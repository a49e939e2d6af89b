// uses_everything.cpp - the header in C++: std:: names, the standard library after it.
#include "memtrack.h"
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

struct pool {
    void *(*malloc)(std::size_t size);
    void (*free)(void *ptr);
};

int main()
{
    pool p = {std::malloc, std::free};
    void *a = std::malloc(10);
    void *b = (p.malloc)(20);
    char *c = static_cast<char *>(std::calloc(3, 4));
    c = static_cast<char *>(std::realloc(c, 30));
    std::vector<std::string> names(3, "name");
    std::map<int, std::string> m;
    m[1] = names[0];
    std::unique_ptr<int> u(new int(3));
    std::free(a);
    (p.free)(b);
    free(c);
    memtrack_stats_t st;
    memtrack_stats(&st);
    return memtrack_check() + static_cast<int>(m.size()) - 1;
}
