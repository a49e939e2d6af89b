/* The standard library allocates with the program's operator new too, and keeps some of
 * those blocks until the process ends: std::cout, never destroyed, holds on to the named
 * locale it was given, with its facets and caches. They are tracked (the counters see
 * them) but they are not the program's leaks: the report leaves them out, and this clean
 * run prints nothing.
 * Exceptions, threads and the streams leave nothing behind either.
 * e2e-stdout
 */
#include <cstdio>
#include <iostream>
#include <locale>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

static memtrack_stats_t stats()
{
    memtrack_stats_t st;
    memtrack_stats(&st);
    return st;
}

int main()
{
    memtrack_stats_t before = stats();
    std::locale::global(std::locale("C.UTF-8"));
    std::cout.imbue(std::locale());
    std::cout << 1234.5 << ' ' << 42 << '\n';
    std::locale::global(std::locale::classic()); /* std::cout keeps "C.UTF-8" */
    memtrack_stats_t after = stats();
    std::printf("the library's own news are tracked: %s\n",
                after.total_blocks - before.total_blocks >= 10 ? "yes" : "no");

    try {
        throw std::runtime_error(std::string(100, 'e'));
    } catch (const std::exception &e) {
        std::printf("caught %zu\n", std::string(e.what()).size());
    }
    std::thread worker([] {
        std::ostringstream out;
        out << std::hex << 255 << std::string(50, 'w');
    });
    worker.join();

    std::printf("the library keeps blocks until exit: %s\n",
                stats().current_blocks > before.current_blocks ? "yes" : "no");
    return 0;
}
