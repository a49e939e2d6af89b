# exit_symbols.sh - an exit report symbolizes only what it prints or writes: with the
# default symbolize=1 and the C library's debug information installed (libc6-dbg), a
# program with one leak at main, or one made in a thread, never opens the C library's
# debug information (nor the C library's file) at exit, the JSON report included: the
# frames below the program's last (the C library's start-up, a thread's start) are left
# out without being read. Opened files are counted by an LD_PRELOAD library (open_log.c);
# the control case shows it sees libdw open the C library's debug information when a
# frame of the C library is printed (a block the C library made, with system_leaks=1).
# A clean run under --preload (leaks=lost), whose blocks the program and the C library still
# hold, prints nothing and names no holder: it opens no debug information at all, where it
# read the C library's (for its stdout buffer, held by a variable of the C library's) at
# every exit, a tenth of a second and 20 MB a process; with leaks=all the program's holder
# is named from the program's own debug information, and still not the C library's.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir exit_symbols
cc -O2 -fPIC -shared "$TOP/test/report/open_log.c" -o open_log.so
cat >one.c <<'C'
#include <stdlib.h>
int main(void)
{
    char *p = malloc(10);
    return p == NULL;
}
C
cat >thread.c <<'C'
#include <pthread.h>
#include <stdlib.h>
static void *work(void *arg)
{
    return malloc(20);
}
int main(void)
{
    pthread_t t;
    void *made = NULL;
    if (pthread_create(&t, NULL, work, NULL) != 0 || pthread_join(t, &made) != 0)
        return 1;
    return made == NULL;
}
C
cat >in_libc.c <<'C'
#include <stdio.h>
int main(void)
{
    return fopen("/dev/null", "r") == NULL;
}
C
for p in one thread in_libc; do "$M" cc -g -O0 -pthread "$p.c" -o "$p"; done

opened() { # opened PROG OPTIONS: runs PROG with the open() log; the paths in PROG.opened
    rm -f "$1.opened"
    MEMTRACK_OPTIONS=$2 OPEN_LOG="$PWD/$1.opened" LD_PRELOAD="$PWD/open_log.so" "./$1" 2>"$1.err" || true
    touch "$1.opened"
}
reads_libc_debug() { grep -Eq '^/usr/lib/debug/|/libc\.so' "$1.opened"; }

# The control: a block the C library made, listed with system_leaks=1, is named by the
# C library's own symbol table, which libdw finds in its debug information.
opened in_libc system_leaks=1
grep -q 'in __fopen_internal+0x[0-9a-f]* (libc.so.6) by malloc' in_libc.err ||
    { echo "control: the C library's block is not named by its symbol"; cat in_libc.err; exit 1; }
grep -q '^/usr/lib/debug/.build-id/.*\.debug$' in_libc.opened ||
    { echo "control: the C library's debug information was not seen opened (libc6-dbg missing? tools/deps.sh test)"; cat in_libc.opened; exit 1; }

opened one "json=$PWD/one.json"
grep -qx 'memtrack:   10 bytes in 1 block at one.c:4 in main() by malloc: #1' one.err ||
    { echo "one: the leak is not reported at its line"; cat one.err; exit 1; }
grep -qx "$PWD/one" one.opened ||
    { echo "one: libdw did not read the program's own debug information"; cat one.opened; exit 1; }
if reads_libc_debug one; then
    echo "one: the exit opened the C library's debug information:"; cat one.opened; exit 1
fi
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["leaks"]["sites"]; assert len(s) == 1 and s[0]["line"] == 4, s' one.json

opened thread "json=$PWD/thread.json"
site='memtrack:   20 bytes in 1 block at thread.c:5 in work\(\) by malloc: #[0-9]+'
grep -A1 -Ex "$site" thread.err | grep -q '^memtrack:       from' &&
    { echo "thread: the thread's start is shown"; cat thread.err; exit 1; }
grep -Eqx "$site" thread.err ||
    { echo "thread: the leak is not reported at its line"; cat thread.err; exit 1; }
if reads_libc_debug thread; then
    echo "thread: the exit opened the C library's debug information:"; cat thread.opened; exit 1
fi

cat >held.c <<'C'
#include <stdio.h>
#include <stdlib.h>
static char *kept; /* held to the end: still reachable */
int main(void)
{
    kept = malloc(32);
    printf("%d\n", kept != NULL); /* into a file: the C library's buffer, held by stdout */
    return kept == NULL;
}
C
cc -g -O0 held.c -o held # built without memtrack, as --preload runs it
preloaded() { # preloaded OPTIONS: held under libmemtrack and the open() log
    rm -f held.opened
    MEMTRACK_OPTIONS=$1 OPEN_LOG="$PWD/held.opened" \
        LD_PRELOAD="$TOP/build/libmemtrack.so $PWD/open_log.so" ./held >held.out 2>held.err || true
    touch held.opened
}
preloaded leaks=lost
[ ! -s held.err ] || { echo "held: a clean run printed:"; cat held.err; exit 1; }
if grep -Eq '^/usr/lib/debug/|/libc\.so|/held$' held.opened; then
    echo "held: a clean run under --preload opened debug information at exit:"; cat held.opened; exit 1
fi
preloaded leaks=all
grep -qx 'memtrack:       held by kept at held.c:3' held.err ||
    { echo "held: leaks=all does not name the program's holder:"; cat held.err; exit 1; }
grep -qx "$PWD/held" held.opened ||
    { echo "held: libdw did not read the program's debug information:"; cat held.opened; exit 1; }
if reads_libc_debug held; then
    echo "held: leaks=all opened the C library's debug information:"; cat held.opened; exit 1
fi
echo "exit_symbols: ok"
