// A C++ library that a C program loads with dlopen(): the C++ runtime arrives after
// libmemtrack, whose operators then serve the library without it.
#include <stdexcept>
#include <string>
#include <vector>

extern "C" int plugin_work(void)
{
    std::vector<std::string> words(10, std::string(40, 'p'));
    int caught = 0;
    try {
        throw std::runtime_error("inside the plugin");
    } catch (const std::exception &) {
        caught = 1;
    }
    int *table = new int[16];
    delete[] table;
    return caught + static_cast<int>(words.size());
}

extern "C" void *plugin_leak(void)
{
    return new double[4]; // the one leak
}
