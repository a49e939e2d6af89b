// Errors found by delete and delete[] name the stack of the release that found them: a
// mismatched delete and a delete of freed memory, each made in a helper below main. A
// release wrapper (destroy(), which only deletes what it is given) is seen through to its
// caller. (Not one of the cxx_* tests, which the compiler matrix runs: the wrapper's frames
// differ from one compiler to another.)
// e2e-cflags: -include memtrack.h -fno-omit-frame-pointer
struct Particle {
    float x, y;
};

static void destroy(Particle *p)
{
    delete p;
}

static void clear_all(Particle *all, Particle *one)
{
    destroy(all); // made by new[]
    delete one;
    delete one; // again
}

int main()
{
    Particle *all = new Particle[4];
    Particle *one = new Particle;
    clear_all(all, one);
    return 0;
}
