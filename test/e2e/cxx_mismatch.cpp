/* Each way of releasing a block with the wrong family is an error naming both sites, and
 * the block is then released as it was made: no crash, no leak. Gauge has a destructor,
 * so new[] puts an element count in front of the elements (the "array cookie"): delete
 * then gets a pointer into the block, and delete[] on a single Gauge reads a count from
 * in front of it (memtrack keeps that count 0, so no destructor runs over other memory).
 * e2e-stdout
 */
#include <cstdio>
#include <cstdlib>

struct Gauge {
    int level;
    ~Gauge() { level = -1; }
};

int main()
{
    Gauge *gauges = new Gauge[4];
    delete gauges; /* new[] released by delete */

    Gauge *gauge = new Gauge;
    delete[] gauge; /* new released by delete[] */

    char *text = static_cast<char *>(malloc(16));
    delete text; /* malloc released by delete */

    double *value = new double(2.5);
    free(value); /* new released by free */

    int *counts = new int[8];
    counts = static_cast<int *>(realloc(counts, 64 * sizeof(int))); /* new[] by realloc */
    free(counts);

    std::printf("still running\n");
    return 0;
}
