# preload_crash_hint.sh - under --preload, a crash on freed memory in a program built
# without memtrack says so: following a pointer read from a freed block names memtrack's
# fill in a register, and a write into a block whose memory went back to the C library
# names the block with its allocation and its free by file and line (looked up before the
# crash report, which looks nothing up itself).
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir preload_crash_hint
cat >prog.c <<'C'
#include <stdlib.h>
#include <string.h>
struct node {
    struct node *next;
    int value;
};
int main(int argc, char **argv)
{
    if (argc > 1) {
        char *frame = malloc(4 << 20); /* too big for the quarantine: given back at once */
        memset(frame, 0, 4 << 20);
        free(frame);
        frame[10] = 1; /* into memory unmapped since */
        return 0;
    }
    struct node *first = malloc(sizeof *first);
    first->next = malloc(sizeof *first);
    free(first->next);
    free(first);
    return first->next->value; /* a pointer read from freed memory, followed */
}
C
cc -g -O0 prog.c -o prog # built without memtrack
for run in pointer gone; do
    args=(); [ $run = gone ] && args=(gone)
    status=0
    MEMTRACK_OPTIONS=page_guard_rate=0 "$M" run --preload ./prog "${args[@]}" >/dev/null \
        2>"$run.txt" || status=$?
    [ $status = 139 ] || { echo "$run: status $status, expected 139 (SIGSEGV)"; cat "$run.txt"; exit 1; }
done
grep -q "^memtrack:   the crash follows a pointer read from freed or released memory: register [a-z0-9]* = 0xdddddddddddddddd is memtrack's fill of freed and released bytes (0xdd)$" pointer.txt ||
    { echo "pointer: no word on the freed memory"; cat pointer.txt; exit 1; }
want=("memtrack: ERROR: use after free (write) of block #1 (4194304 bytes) at offset 10, by main() at prog.c:13"
      "memtrack:   allocated at prog.c:10 in main() by malloc (block "
      "memtrack:   freed at prog.c:12 in main() by free"
      "memtrack:   found by the crash it caused: the block's memory had gone back to the C library")
for line in "${want[@]}"; do
    grep -qF "$line" gone.txt || { echo "gone: no line \"$line\""; cat gone.txt; exit 1; }
done
