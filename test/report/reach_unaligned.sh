# reach_unaligned.sh - the leak scan reads a block's words from the block's start. A
# page-guarded block ends at its page, aligned only as its size asks (page_guard=all,
# page_guard_site): a list of names, each a pointer then its text (a flexible array member,
# the C idiom), 13 or 14 bytes, starts 2 or 3 bytes off a word of memory. Read by words of
# memory, the scan never saw the pointers, and reported every name but the first lost:
# `git log` under memtrack run --preload with page_guard=all did. The control loses a name
# for real, which the scan must still find in the same mode.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir reach_unaligned
cat >names.c <<'C'
#include <stdlib.h>
#include <string.h>
struct name {
    struct name *next;
    char text[];
};
static struct name *names;
static void add(const char *s)
{
    struct name *n = malloc(sizeof *n + strlen(s) + 1);
    if (n == NULL)
        exit(1);
    n->next = names;
    strcpy(n->text, s);
    names = n;
}
int main(int argc, char **argv)
{
    add("alpha");
    add("beta");
    add("gamma");
    if (argc > 1)
        names->next = NULL; /* the control: beta and alpha lost */
    return 0;
}
C
cc -g -O0 names.c -o names # built without memtrack, as --preload runs it
for opts in page_guard=all "page_guard_site=names.c:10" page_guard=all:page_guard_side=start; do
    status=0
    "$M" run --preload --options "$opts" -- ./names >out.txt 2>err.txt || status=$?
    [ $status = 0 ] && [ ! -s err.txt ] ||
        { echo "$opts: a list held to the end is reported (status $status):"; cat err.txt; exit 1; }
    status=0
    "$M" run --preload --options "$opts" -- ./names lose >out.txt 2>err.txt || status=$?
    [ $status = 23 ] &&
        grep -qxF 'memtrack: 27 bytes leaked in 2 blocks from 2 sites; 0 errors found' err.txt &&
        grep -qxF 'memtrack: lost: 13 bytes in 1 block (nothing points at them)' err.txt &&
        grep -qxF 'memtrack: indirectly lost: 14 bytes in 1 block (only lost blocks point at them)' err.txt ||
        { echo "$opts: the names lost are not reported so (status $status):"; cat err.txt; exit 1; }
done
echo "reach_unaligned: ok"
