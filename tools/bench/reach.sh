#!/bin/bash
# reach.sh - what the leak scan costs (make bench-reach; tools/bench/README.md, "The leak
# scan"): memtrack's scan time for live blocks and for megabytes of roots (tools/bench/
# reach.c, the median of 5 scans, CPU time), beside Valgrind's leak check on the same program
# built without memtrack (the CPU time of `valgrind --leak-check=full` less that of
# `--leak-check=no`, the median of REPS runs of each).
#
#   tools/bench/reach.sh [--quick]     (--quick: 100,000 blocks at most, no Valgrind at 1M)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${OUT:-$top/build/bench}
CC=${CC:-cc}
REPS=${REPS:-3}
mkdir -p "$out"
$CC -std=gnu11 -O2 -g -DMEMORY_CONTROL_ON -I"$top/include" -I"$top/src" -include memtrack.h \
    "$here/reach.c" -o "$out/reach-tracked" "$top/build/libmemtrack.a" -ldl -pthread || exit 1
$CC -std=gnu11 -O2 -g -I"$top/include" "$here/reach.c" -o "$out/reach-plain" || exit 1

median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

# CPU seconds (user + system) of one run of a command.
cpu() {
    local t
    t=$( { TIMEFORMAT='%U %S'; time "$@" >/dev/null 2>&1; } 2>&1 | tail -1)
    echo "$t" | awk '{printf "%.3f\n", $1 + $2}'
}

valgrind_check_ms() { # BLOCKS MB: the leak check's share of a Valgrind run, in ms
    local full=() none=()
    for _ in $(seq "$REPS"); do
        full+=("$(cpu valgrind --leak-check=full "$out/reach-plain" --blocks "$1" --roots-mb "$2")")
        none+=("$(cpu valgrind --leak-check=no "$out/reach-plain" --blocks "$1" --roots-mb "$2")")
    done
    local f n
    f=$(printf '%s\n' "${full[@]}" | median)
    n=$(printf '%s\n' "${none[@]}" | median)
    awk -v f="$f" -v n="$n" 'BEGIN {printf "%.0f\n", (f - n) * 1000}'
}

cases="1000:0 100000:0 1000:16 1000:64 1000000:0"
[ "${1:-}" = --quick ] && cases="1000:0 100000:0 1000:16"
printf '%-10s %-9s %-14s %-16s\n' blocks roots_MB memtrack_ms valgrind_check_ms
for c in $cases; do
    blocks=${c%%:*} mb=${c##*:}
    line=$(MEMTRACK_OPTIONS=track_all=0 "$out/reach-tracked" --blocks "$blocks" --roots-mb "$mb")
    ms=$(echo "$line" | sed -n 's/.*scan_ms \([0-9.]*\).*/\1/p')
    vg="-"
    command -v valgrind >/dev/null 2>&1 && vg=$(valgrind_check_ms "$blocks" "$mb")
    printf '%-10s %-9s %-14s %-16s\n' "$blocks" "$mb" "$ms" "$vg"
done
