# options_warnings.sh - bad options are warned about within bounds: a MEMTRACK_OPTIONS of
# hundreds of bad entries (a script appending alloc_fn= in a loop) gets the first warnings
# and one line counting the rest, a repeatable option that is full says so once, and
# `memtrack --options` lines every column up whatever the longest option name.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir options_warnings
printf '#include <stdlib.h>\nint main(void){free(malloc(1));return 0;}\n' >empty.c
"$M" cc empty.c -o empty
opts=stack=1000:page_guard_slots=0
i=0
while [ $i -lt 300 ]; do
    opts="$opts:alloc_fn=a_function_with_a_long_name_number_$i"
    i=$((i + 1))
done
MEMTRACK_OPTIONS=$opts ./empty 2>err.txt
cat err.txt
grep -q "^memtrack: warning: MEMTRACK_OPTIONS: bad value '1000' for stack (expected a count from 0 to 64); stack stays 32\$" err.txt
grep -q "^memtrack: warning: MEMTRACK_OPTIONS: bad value '0' for page_guard_slots (expected a count from 1 to 1048576); page_guard_slots stays 16\$" err.txt
[ "$(grep -c 'no room for' err.txt)" = 1 ] || { echo "alloc_fn's lack of room not told exactly once"; exit 1; }
grep -q "^memtrack: warning: MEMTRACK_OPTIONS: [0-9]* more bad entries were ignored (the warnings above name the first)\$" err.txt
lines=$(wc -l <err.txt)
[ "$lines" -le 9 ] || { echo "$lines lines of warnings"; exit 1; }
# The options table: TYPE starts at one column on every row, after the longest name.
"$M" --options | sed -n 's/^  \([a-z_A-Z]*\)\( *\)\(0|1\|number\|bytes\|count\|text\|TYPE\) .*/\1\2/p' >rows
[ "$(wc -l <rows)" -gt 40 ] || { echo "the table has too few rows"; exit 1; }
[ "$(awk '{ print length($0) }' rows | sort -u | wc -l)" = 1 ] || {
    echo "the options table's TYPE column does not line up:"
    awk '{ print length($0) ": " $0 }' rows | sort -u -n | head
    exit 1
}
