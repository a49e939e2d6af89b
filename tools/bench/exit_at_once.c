/* exit_at_once.c - a program that leaves at once (bench-startup): built plain, linked with
 * an empty library and linked with libmemtrack, it measures what loading each costs. */
#include <unistd.h>

int main(void)
{
    _exit(0);
}
