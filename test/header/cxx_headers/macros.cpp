// The opt-in macros, after the standard headers: placement new, nothrow new, ::new,
// *new, new[] and both deletes compile (C++98 and later).
#include <map>
#include <new>
#include <string>
#include <vector>

struct Item {
    int value;
    Item() : value(1) {}
    ~Item() { value = 0; }
};

#define MEMTRACK_NEW_MACRO
#define MEMTRACK_DELETE_MACRO
#include <memtrack.h>

int main()
{
    union {
        double align;
        unsigned char bytes[sizeof(Item)];
    } storage;
    Item *placed = new (storage.bytes) Item;
    placed->~Item();
    int *maybe = new (std::nothrow) int(2);
    int value = *new int(3);
    Item *items = ::new Item[2];
    delete[] items;
    delete maybe;
    std::map<std::string, std::vector<int> > index;
    index["a"].push_back(value);
    return 0;
}
