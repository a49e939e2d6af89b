/* The report runs after the static objects are destroyed: what their destructors free is
 * not a leak, whether they were made before main, in main, or on first use of a function's
 * static. One block is really leaked, to show the report did run.
 * (cxx_static_dtor_static.cpp runs the same program linked with libmemtrack.a.)
 */
#include <map>
#include <string>
#include <vector>

struct Registry {
    std::map<std::string, std::vector<int>> entries;
    int *slots;
    Registry() : slots(new int[64]) { entries["boot"].push_back(1); }
    ~Registry() { delete[] slots; }
};

static Registry registry;              /* built before main */
static std::string banner(100, '=');   /* a buffer from the standard library */

static Registry &lazy()
{
    static Registry instance;          /* built on first use, in main */
    return instance;
}

int main()
{
    registry.entries["main"].assign(50, 2);
    lazy().entries["lazy"].assign(20, 3);
    int *leaked = new int[3];          /* the one leak */
    return leaked[0] == 0 && banner.size() == 0 ? 1 : 0;
}
