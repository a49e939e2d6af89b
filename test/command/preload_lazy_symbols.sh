# preload_lazy_symbols.sh - under --preload the debug information is read only for what is
# printed: a clean run (whose only live blocks are the C library's) never opens libdw, which
# made `puts("hi")` take several times as long; a run with a leak still names its line.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir preload_lazy_symbols
printf '#include <stdio.h>\nint main(void)\n{\n    puts("hi");\n    return 0;\n}\n' >hi.c
printf '#include <stdlib.h>\nint main(void)\n{\n    return malloc(8) == NULL;\n}\n' >leak.c
cc -g -O0 hi.c -o hi
cc -g -O0 leak.c -o leak
LD_DEBUG=files "$M" run --preload ./hi >out.txt 2>err.txt
[ "$(cat out.txt)" = hi ]
! grep -q 'file=libdw' err.txt || { echo "a clean run opened libdw"; exit 1; }
status=0
LD_DEBUG=files "$M" run --preload ./leak >/dev/null 2>err2.txt || status=$?
[ $status = 23 ]
grep -q 'file=libdw' err2.txt # the control: a report with a site to name reads it
grep -q '8 bytes in 1 block at leak.c:4 in main() by malloc' err2.txt || { cat err2.txt; exit 1; }
