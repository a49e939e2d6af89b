// A C++ program that never calls new itself: the standard library's compiled code does.
#include <iostream>
#include <locale>

int main()
{
    std::locale named("C.UTF-8");
    std::cout.imbue(named);
    std::cout << 1234.5 << '\n';
    return 0;
}
