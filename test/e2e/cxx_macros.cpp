/* The opt-in macros name new and delete sites from the expressions themselves, without
 * debug information (this test is built with -g0: without the macros, these sites would
 * be bare addresses). Placement new, nothrow new, ::new and *new keep their meaning.
 * The class, defined before the macros, deletes its member from its own destructor; a
 * delete through its virtual destructor keeps the destructor's address as its site.
 * e2e-cflags: -include memtrack.h -g0
 * e2e-stdout
 */
#include <cstdio>
#include <new>
#include <string>
#include <vector>

struct Shape {
    virtual ~Shape() {}
};
struct Polygon : Shape {
    int *corners;
    Polygon() : corners(new int[4]) {}
    ~Polygon() override { delete[] corners; }
};
struct Cell {
    int value;
    ~Cell() { value = 0; }
};

#define MEMTRACK_NEW_MACRO
#define MEMTRACK_DELETE_MACRO
#include <memtrack.h>

int main()
{
    alignas(Cell) unsigned char buffer[sizeof(Cell)];
    Cell *placed = new (buffer) Cell{3};      /* placement new: nothing allocated */
    int *maybe = new (std::nothrow) int(4);
    int copied = *new int(5);                 /* leaked */
    Cell *cells = new Cell[3];
    delete cells;                             /* mismatch, named by both macros */
    int *numbers = ::new int[2];
    delete numbers;                           /* mismatch */
    Shape *shape = new Polygon;
    delete shape;                             /* through the virtual destructor */
    Shape *shapes = new Polygon[1];
    delete shapes;                            /* mismatch, inside Polygon's destructor */
    int maybe_was = *maybe; delete maybe;     /* read before: freed memory holds 0xDD */
    int *nothing = nullptr;
    delete nothing;                           /* calls no operator delete */
    std::vector<std::string> words(2, std::string(30, 'w'));
    std::printf("%d %d %d %zu\n", placed->value, copied, maybe_was == 4, words.size());
    placed->~Cell();
    return 0;
}
