/* An allocation failure injected into operator new throws std::bad_alloc, as C++ does when
 * memory runs out, and the nothrow form returns a null pointer. Parser's constructor made a
 * buffer with malloc before its second new failed: the unwinding path leaks it, and the
 * report says where it was made (with fail_nth, the 3rd allocation counted: new Parser,
 * its malloc, then its new int[]).
 * e2e-options: fail_nth=3
 * e2e-stdout
 */
#include <cstdio>
#include <cstdlib>
#include <new>

struct Parser {
    char *scratch;
    int *tokens;
    Parser() : scratch(static_cast<char *>(std::malloc(64))), tokens(new int[16]) {}
    ~Parser()
    {
        delete[] tokens;
        std::free(scratch);
    }
};

int main()
{
    try {
        Parser *p = new Parser();
        std::printf("unexpected: a parser\n");
        delete p;
    } catch (const std::bad_alloc &) {
        std::printf("new: std::bad_alloc\n");
    }
    int *n = new (std::nothrow) int[4]; /* the 4th: not failed */
    std::printf("nothrow new: %s\n", n != nullptr ? "memory" : "null");
    delete[] n;
    return 0;
}
