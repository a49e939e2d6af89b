#!/bin/bash
# arena_work.sh - the arena-heavy workload (arena_work.c) plain, under ASan and with memtrack's
# tracked arena: ns per allocation (the parse's work included), each the fastest of 5 runs
# taken in turn, and PASS or MISS against issue 27's target of 1.5x plain for the tracked arena
# (the median of the five rounds' ratios, each round's two runs one after the other).
#
#   tools/bench/arena_work.sh [--quick]     (make bench-pools runs it; from the top directory)
set -eu
out=build/bench
mkdir -p "$out"
flags="-std=gnu11 -O2 -g -Wall -Wextra -pthread"
src=tools/bench/arena_work.c
cc=${CC:-cc}
$cc $flags "$src" -o "$out/arena-work-plain"
asan=yes
$cc $flags -fsanitize=address "$src" -o "$out/arena-work-asan" 2>/dev/null || asan=no
$cc $flags -fno-omit-frame-pointer -DTRACKED -DMEMORY_CONTROL_ON -Iinclude -include memtrack.h \
    "$src" -o "$out/arena-work-tracked" build/libmemtrack.a -ldl
variants="plain tracked"
[ $asan = yes ] && variants="plain asan tracked"
declare -A best
ratios=() # tracked / plain of each round: the two run one after the other, so that the
          # machine's load hits both alike; the verdict is the median of these
for run in 1 2 3 4 5; do
    declare -A now=()
    for v in $variants; do
        ns=$(MEMTRACK_OPTIONS= "$out/arena-work-$v" "$@" | sed -n 's/.*ns_per_allocation=\([0-9.]*\).*/\1/p')
        [ -n "$ns" ] || { echo "arena_work: $v printed no figure" >&2; exit 1; }
        now[$v]=$ns
        best[$v]=$(awk -v a="${best[$v]:-}" -v b="$ns" 'BEGIN {print (a == "" || b < a) ? b : a}')
    done
    ratios+=("$(awk -v a="${now[tracked]}" -v b="${now[plain]}" 'BEGIN {printf "%.3f", a / b}')")
done
ratio() { awk -v a="$1" -v b="${best[plain]}" 'BEGIN {printf "%.2fx", a / b}'; }
median=$(printf '%s\n' "${ratios[@]}" | sort -n | sed -n 3p)
echo
echo "**Arena-heavy workload** (arena_work.c: a node per 30 bytes parsed), ns per allocation,"
echo "the fastest of 5 rounds; the verdict is the median of the rounds' tracked / plain:"
echo
echo "| plain | ASan | tracked arena | ASan / plain | tracked / plain | median of rounds | target 1.5x |"
echo "|---:|---:|---:|---:|---:|---:|---|"
t=$(ratio "${best[tracked]}")
verdict=$(awk -v r="$median" 'BEGIN {print r <= 1.5 ? "PASS" : "MISS"}')
a=${best[asan]:-n/a}
ar=n/a
[ $asan = yes ] && ar=$(ratio "$a")
echo "| ${best[plain]} | $a | ${best[tracked]} | $ar | $t | $(printf %.2fx "$median") | $verdict |"
