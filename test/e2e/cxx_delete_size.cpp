/* C++14 sized deallocation tells operator delete the size of the type deleted. A derived
 * object deleted through a base class without a virtual destructor gives the base's size:
 * an error (its destructor never ran). With a virtual destructor, arrays with a cookie,
 * and the standard containers, the sizes agree; a mismatched delete is one error, not two.
 * e2e-cflags: -include memtrack.h -fsized-deallocation
 */
#include <string>
#include <vector>

struct Record {
    int id;
};
struct NamedRecord : Record {
    double weight[4];
};

struct Shape {
    virtual ~Shape() {}
};
struct Circle : Shape {
    double center[2], radius;
};

struct Slot {
    std::string label;
};

int main()
{
    Record *record = new NamedRecord();
    delete record; /* the error: 4 bytes said, 40 made */

    Shape *shape = new Circle;
    delete shape; /* the virtual destructor passes Circle's size */

    Slot *slots = new Slot[3];
    delete[] slots; /* the size with the array cookie */

    std::vector<std::string> names(5, std::string(32, 'n'));
    names.resize(50);

    Slot *one = new Slot[2];
    delete one; /* a mismatch, reported once */
    return 0;
}
