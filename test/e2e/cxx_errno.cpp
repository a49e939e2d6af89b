// The tracker is a guest in the program: reporting an error (here one whose site needs the
// debug information, read through libdw) leaves errno as the program had it.
// e2e-stdout
#include <cerrno>
#include <cstdio>

int main()
{
    int *p = new int;
    errno = 0;
    delete[] p; // mismatched: reported, and errno stays 0
    int after = errno;
    std::printf("errno after the reported error: %d\n", after);
    return after != 0;
}
