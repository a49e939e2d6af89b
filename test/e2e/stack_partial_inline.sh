# stack_partial_inline.sh - GCC's partial inlining splits a function in two: its head is
# inlined into its callers and its body kept out of line (record.part.0), and its debug
# information names the function for both, so the stack read "at s.c:11 in record()", then
# "from s.c:19 in record()", "inlined into s.c:19 in work()": one call shown as two. A
# function named twice in a row, once inlined, is one frame (issue 26). (The blocks are kept in
# a global: leaks=all lists them, which --preload leaves out by default.)
set -u
dir="$OUT/stack_partial_inline"
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 1
cat >s.c <<'C'
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
void *kept[64];
int counter;
static void record(int i, const char *name)
{
    if (i < 0 || name == NULL)
        return;
    /* the body, split off by GCC's partial inlining (record.part.0) */
    char *copy = malloc(strlen(name) + 1 + (size_t)i);
    strcpy(copy, name);
    for (int k = 0; k < i; k++)
        copy[k] ^= (char)counter++;
    kept[i % 64] = copy;
    printf("%d %s\n", i, copy);
    counter += (int)strlen(copy);
}
__attribute__((noinline)) void work(int i) { record(i, "alpha"); record(i + 1, "beta"); }
int main(int argc, char **argv) { (void)argv; work(argc); return 0; }
C
gcc -g -O2 -fno-omit-frame-pointer s.c -o s || exit 1
nm s | grep -q 'record\.part' || { echo "skipped: this gcc did not split record()"; exit 0; }
"$TOP/memtrack" run --preload --options leaks=all ./s >/dev/null 2>err.txt
grep -A2 -F 'memtrack:   7 bytes in 1 block at s.c:11 in record() by malloc: #1' err.txt >got.txt
printf '%s\n' 'memtrack:   7 bytes in 1 block at s.c:11 in record() by malloc: #1' \
    'memtrack:       inlined into s.c:19 in work()' \
    'memtrack:       from s.c:20 in main()' | diff -u - got.txt || { cat err.txt; exit 1; }
echo "ok: record() once"
