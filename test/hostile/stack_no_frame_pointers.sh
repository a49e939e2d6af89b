# stack_no_frame_pointers.sh - a program built without frame pointers gets stacks that stop at
# their first frame; the report says so once, and names the remedy (issue 26). The same
# program built as `memtrack cc` builds it says nothing of the kind, nor does it with
# unwind=exact.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir stack_no_frame_pointers
cat >prog.c <<'C'
#include <stdlib.h>
void *kept[3]; /* (not static: the stores stay) */
__attribute__((noinline)) static void deep(int i) { kept[i] = malloc(10 + (size_t)i); }
__attribute__((noinline)) static void middle(int i) { deep(i); __asm__ volatile("" ::: "memory"); }
int main(void)
{
    for (int i = 0; i < 3; i++)
        middle(i);
    return 0;
}
C
note='stacks: most call stacks stop before main: code built without frame pointers cuts them short'
cc -g -O2 -fomit-frame-pointer -DMEMORY_CONTROL_ON -I"$TOP/include" -include memtrack.h prog.c \
    -o nofp -L"$TOP/build" -lmemtrack -Wl,-rpath,"$TOP/build"
./nofp 2>nofp.err || true
[ "$(grep -c "$note" nofp.err)" = 1 ] || { cat nofp.err; exit 1; }
grep -q 'fno-omit-frame-pointer .*unwind=exact' nofp.err || { cat nofp.err; exit 1; }
MEMTRACK_OPTIONS=json=nofp.json ./nofp 2>/dev/null || true
python3 -c 'import json; n = json.load(open("nofp.json"))["stack_notes"]; assert n == {"unwalked": 0, "no_frame_pointers": True}, n'
MEMTRACK_OPTIONS=unwind=exact ./nofp 2>exact.err || true
if grep -q "$note" exact.err; then cat exact.err; exit 1; fi
"$M" cc -g -O2 prog.c -o fp
./fp 2>fp.err || true
if grep -q "$note" fp.err; then cat fp.err; exit 1; fi
grep -q 'from prog.c:[0-9]* in middle()' fp.err || { cat fp.err; exit 1; }
echo "ok: said once, with the remedy, only when it applies"
