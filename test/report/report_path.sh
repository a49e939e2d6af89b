# report_path.sh - report=PATH writes the report to a file (%p becomes the pid), leaving
# stderr empty; report=stdout comes after the program's own buffered output.
set -eu
cat >"$OUT/leak2.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
int main(void) { printf("program output\n"); return malloc(64) == NULL; }
C
cc -DMEMORY_CONTROL_ON -include memtrack.h -I"$TOP/include" "$OUT/leak2.c" -o "$OUT/leak2" \
    -L"$TOP/build" -lmemtrack -Wl,-rpath,"$TOP/build"
rm -f "$OUT"/report.*.txt
err=$(MEMTRACK_OPTIONS="report=$OUT/report.%p.txt" "$OUT/leak2" 2>&1 >/dev/null)
[ -z "$err" ] || { echo "stderr not empty: $err"; exit 1; }
files=("$OUT"/report.*.txt)
[ ${#files[@]} = 1 ] && [ -f "${files[0]}" ] || { echo "expected one report file, got: ${files[*]}"; exit 1; }
pid=${files[0]##*/report.}; pid=${pid%.txt}
grep -q "report for .*leak2 (pid $pid)" "${files[0]}" || { echo "pid in name and report differ"; cat "${files[0]}"; exit 1; }
grep -q "64 bytes in 1 block at .*leak2.c:3 in main() by malloc" "${files[0]}"
# report=stdout: the program's line first, then the report, all on stdout
out=$(MEMTRACK_OPTIONS=report=stdout "$OUT/leak2" 2>/dev/null)
[ "$(echo "$out" | head -1)" = "program output" ] || { echo "$out"; exit 1; }
echo "$out" | grep -q "64 bytes in 1 block"
# an unwritable path: one warning, then the report on stderr
err=$(MEMTRACK_OPTIONS=report=/nonexistent/dir/r.txt "$OUT/leak2" 2>&1 >/dev/null)
echo "$err" | grep -q "warning: cannot open report file '/nonexistent/dir/r.txt'" || { echo "$err"; exit 1; }
echo "$err" | grep -q "64 bytes in 1 block"
echo "report_path: ok"
