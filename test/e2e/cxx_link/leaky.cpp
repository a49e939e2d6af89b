// A C++ program built with `pkg-config --cflags --libs memtrack`.
#include <string>

int main()
{
    std::string *name = new std::string("kept");
    return name->empty() ? 1 : 0;
}
