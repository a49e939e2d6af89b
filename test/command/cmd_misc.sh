# cmd_misc.sh - memtrack --help, --version, --options (every option of the one table, with
# the defaults help=1 prints), clear errors for bad usage, and the installed command: it
# finds the installed header, library and report tool, not the source tree's.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir cmd_misc

"$M" --help >help.txt
grep -q '^usage: memtrack cc ARGS' help.txt
grep -q 'memtrack run \[OPTIONS\] \[--\] PROG ARGS' help.txt
grep -q 'memtrack report --diff OLD.json NEW.json' help.txt
status=0
"$M" >/dev/null 2>usage.txt || status=$?
[ $status = 2 ]
grep -q '^usage:' usage.txt

version=$(sed -n 's/^#define MEMTRACK_VERSION "\(.*\)"/\1/p' "$TOP/include/memtrack.h")
[ "$("$M" --version)" = "memtrack $version" ]

# --options: the one options table, the same names and defaults as the library prints
"$M" --options >options.txt
cat options.txt
sed -n 's/^  \([a-z_]*\) *\(0|1\|number\|bytes\|count\|text\) *\([^ ]*\) .*/\1 \3/p' options.txt |
    sed 's/ -$/ /' | sort >options.cmd
printf 'int main(void){return 0;}\n' >empty.c
cc empty.c -o empty -Wl,--no-as-needed -L"$TOP/build" -lmemtrack -Wl,-rpath,"$TOP/build"
MEMTRACK_OPTIONS=help=1 ./empty 2>&1 >/dev/null | sed -n 's/^memtrack: //p' |
    sed -n 's/^  \([a-z_]*\) *\(0|1\|number\|bytes\|count\|text\) *\([^ ]*\) .*/\1 \3/p' |
    sed 's/ -$/ /' | sort >options.lib
[ -s options.lib ]
diff -u options.lib options.cmd

# Bad usage: status 2 and a message that says what is wrong
bad() { # bad MESSAGE ARGS...
    msg=$1
    shift
    status=0
    "$M" "$@" >/dev/null 2>bad.txt || status=$?
    [ $status = 2 ] || { echo "memtrack $*: status $status"; cat bad.txt; exit 1; }
    grep -qF -- "$msg" bad.txt || { echo "memtrack $*:"; cat bad.txt; exit 1; }
}
bad "unknown command 'frobnicate'" frobnicate
bad 'which report?' report
bad '--html needs a file name' report x.json --html
bad 'unknown option --bogus' report x.json --bogus
bad 'one report at a time' report a.json b.json

# Installed: everything found under the prefix, even with the source tree out of reach
prefix="$d/prefix"
make -C "$TOP" -s install PREFIX="$prefix" >/dev/null
[ -x "$prefix/libexec/memtrack/memtrack-report" ]
grep -qx "MEMTRACK_INSTALLED=\"$prefix\"" "$prefix/bin/memtrack"
mkdir -p elsewhere
cp "$prefix/bin/memtrack" elsewhere/memtrack-copy
cat >leak.c <<'C'
#include <stdlib.h>
int main(void) { return malloc(8) == NULL; }
C
"$prefix/bin/memtrack" cc leak.c -o leak
readelf -d leak | grep -q "RUNPATH.*$prefix/lib\|RPATH.*$prefix/lib"
status=0
"$prefix/bin/memtrack" run --json leak.json --html leak.html ./leak 2>run.txt || status=$?
[ $status = 23 ]
grep -q '8 bytes in 1 block at leak.c:2' run.txt
"$prefix/bin/memtrack" report leak.json | grep -q '8 bytes leaked in 1 block'
"$prefix/bin/memtrack" --options | grep -q '^  guard '
# the copy outside the prefix still knows where the prefix is
./elsewhere/memtrack-copy --version | grep -q "^memtrack $version$"
echo "cmd_misc: ok"
