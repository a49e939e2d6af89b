/* C++ leaks are named by the line of the new-expression: the operators record the
 * caller's address and the report reads file and line from the debug information; a
 * function that only returns what its new made is seen through to its caller. Freed
 * blocks, the standard containers' included, are not reported.
 */
#include <map>
#include <string>
#include <vector>

struct Node {
    int value;
    Node *next;
};

static Node *make_node(int value)
{
    return new Node{value, nullptr}; /* leaked once, through the list below */
}

int main()
{
    int *table = new int[25]; /* leaked */
    Node *list = make_node(1);
    list->next = make_node(2);
    delete list; /* the second node leaks */

    std::vector<std::string> words(3, std::string(40, 'w'));
    std::map<int, std::vector<int>> index;
    index[1].assign(10, 1);
    return table[0] == 0 ? 0 : 0;
}
