/* empty_lib.c - a library with one function and nothing else (bench-startup): what loading
 * any library costs a process, to set libmemtrack's own cost against. */
int mt_bench_empty(void);

int mt_bench_empty(void)
{
    return 0;
}
