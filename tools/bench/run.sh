#!/bin/bash
# run.sh - memtrack's benchmark: builds the churn and visits programs in each variant,
# runs them several times, and prints the tables of tools/bench/README.md with medians.
#
#   tools/bench/run.sh [--quick]        (make bench, make bench QUICK=1)
#
# Environment: CC (default cc), REPS (repetitions per figure; 5, quick 3), OUT (build dir),
# BENCH_OPTIONS (more MEMTRACK_OPTIONS sets for table 6, separated by spaces).
# Every ratio is taken between runs made in the same repetition, interleaved, so the
# machine's background load hits both sides alike; the median of the per-run figures and
# of the per-repetition ratios is printed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${OUT:-$top/build/bench}
CC=${CC:-cc}
quick=0
[ "${1:-}" = --quick ] && quick=1
if [ $quick = 1 ]; then
    REPS=${REPS:-3}
    SIZES="1000 10000 100000 1000000"
    RSS_LIVE=1000000
else
    REPS=${REPS:-5}
    SIZES="1000 10000 100000 1000000 10000000"
    RSS_LIVE=1000000
fi
mkdir -p "$out"
log="$out/bench.log"
: >"$log"

# ---- builds ---------------------------------------------------------------------------

CFLAGS="-std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -pthread"
build() { # build COMMAND...
    echo "$*" >>"$log"
    if ! "$@" >>"$log" 2>&1; then
        echo "bench: '$*' failed; see $log" >&2
        return 1
    fi
}
set -e
build $CC $CFLAGS -c "$here/list.c" -o "$out/list.o"
build $CC $CFLAGS "$here/churn.c" "$out/list.o" -o "$out/churn-plain"
build $CC $CFLAGS -DMEMORY_CONTROL_ON -I"$top/include" -include memtrack.h "$here/churn.c" \
    "$out/list.o" -o "$out/churn-tracked" -L"$top/build" -lmemtrack -Wl,-rpath,"$top/build"
build $CC $CFLAGS "$here/churn.c" "$out/list.o" -o "$out/churn-passthru" \
    -L"$top/build" -lmemtrack -Wl,-rpath,"$top/build"
build $CC -std=gnu11 -O2 -g -Wall -pthread -DMEMORY_CONTROL_ON -I"$top/include" \
    -I"$top/src" -include memtrack.h "$here/visits.c" -o "$out/visits" \
    "$top/build/libmemtrack.a" -ldl -pthread
set +e
have_asan=0 have_dmalloc=0 have_valgrind=0
if command -v clang >/dev/null 2>&1 &&
    clang -std=c11 -D_GNU_SOURCE -O2 -g -pthread -fsanitize=address "$here/churn.c" \
        "$here/list.c" -o "$out/churn-asan" >>"$log" 2>&1; then
    have_asan=1
fi
if [ -f /usr/include/dmalloc.h ] &&
    $CC $CFLAGS "$here/churn.c" "$out/list.o" -o "$out/churn-dmalloc" -ldmallocth >>"$log" 2>&1; then
    have_dmalloc=1
fi
command -v valgrind >/dev/null 2>&1 && have_valgrind=1

# ---- helpers --------------------------------------------------------------------------

field() { # field KEY LINE -> value
    sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$2"
}

median() { # median NUMBERS... -> the middle value (lower middle for even counts)
    printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {if (NR) print v[int((NR+1)/2)]}'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}'; }

# run VARIANT ARGS... -> the program's result line (also logged); env via RUN_ENV
run() {
    local variant=$1
    shift
    local line
    line=$(env ${RUN_ENV:-} "$out/churn-$variant" "$@" 2>>"$log")
    echo "churn-$variant $* ${RUN_ENV:-}: $line" >>"$log"
    echo "$line"
}

# The list tracker visits l/2 records per free: its ops shrink as the live set grows.
# A walk of a million records misses the cache at every step (a third of a second a free).
list_ops() {
    case $1 in
    1000) echo 200000 ;; 10000) echo 20000 ;; 100000) echo 2000 ;; *) echo 20 ;;
    esac
}
churn_ops() { # ops per run at a live-set size
    if [ $quick = 1 ]; then echo 500000; else echo 1000000; fi
}

printf '%s\n' "memtrack benchmark ($( [ $quick = 1 ] && echo quick || echo full ) mode, $REPS repetitions, medians)"
printf '%s\n' "$(uname -srm); $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs; $(date -u '+%Y-%m-%d %H:%M UTC')"
printf 'load average at start: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
echo

# ---- 1. churn -------------------------------------------------------------------------

echo "1. Churn: ns per malloc+free pair (16..256 bytes, first and last byte written)"
printf '%10s %10s %10s %7s %10s %7s %12s %9s\n' live untracked tracked ratio passthru ratio \
    list "list/trk"
declare -A churn_ratio
for n in $SIZES; do
    ops=$(churn_ops "$n")
    p=() t=() q=() r=() rq=()
    for ((k = 0; k < REPS; k++)); do
        a=$(field ns_per_pair "$(run plain --live "$n" --ops "$ops" --seed $((k + 1)))")
        b=$(field ns_per_pair "$(run tracked --live "$n" --ops "$ops" --seed $((k + 1)))")
        c=$(field ns_per_pair "$(run passthru --live "$n" --ops "$ops" --seed $((k + 1)))")
        p+=("$a") t+=("$b") q+=("$c") r+=("$(ratio "$b" "$a")") rq+=("$(ratio "$c" "$a")")
    done
    lst="-" lr="-"
    if [ "$n" -le $([ $quick = 1 ] && echo 100000 || echo 1000000) ]; then
        l=()
        for ((k = 0; k < ($n >= 1000000 ? 1 : (REPS < 3 ? REPS : 3)); k++)); do
            l+=("$(field ns_per_pair "$(run plain --list --live "$n" --ops "$(list_ops "$n")" --seed $((k + 1)))")")
        done
        lst=$(median "${l[@]}")
        lr=$(ratio "$lst" "$(median "${t[@]}")")
    fi
    churn_ratio[$n]=$(median "${r[@]}")
    printf '%10s %10s %10s %7s %10s %7s %12s %9s\n' "$n" "$(median "${p[@]}")" \
        "$(median "${t[@]}")" "${churn_ratio[$n]}" "$(median "${q[@]}")" "$(median "${rq[@]}")" \
        "$lst" "$lr"
done
echo "   untracked: glibc; tracked: built with -DMEMORY_CONTROL_ON against libmemtrack (default"
echo "   options); passthru: built without the flag but linked with libmemtrack (a library's"
echo "   blocks: every free is looked up); list: the paper's traditional tracker (list.c),"
echo "   fewer operations at large sizes (20 frees, one run at 1M), not run at 10M (l/2 visits"
echo "   per free: a million at 10M)."
echo

# ---- 2. records visited ---------------------------------------------------------------

echo "2. Records visited per lookup (the paper's measure)"
printf '%9s %10s %12s %10s %9s %10s %10s %8s\n' pattern live list fixed1024 max table buckets max
for pattern in random strided; do
    for n in $SIZES; do
        line=$("$out/visits" --pattern $pattern "$n" 2>>"$log")
        echo "visits $pattern $n: $line" >>"$log"
        nx=$(field noexpand "$line")
        printf '%9s %10s %12s %10s %9s %10s %10s %8s%s\n' $pattern "$n" "$(field list "$line")" \
            "$(field fixed1024 "$line")" "$(field fixed1024_max "$line")" "$(field table "$line")" \
            "$(field table_buckets "$line")" "$(field table_max "$line")" \
            "$([ "${nx:-0}" != 0 ] && echo "  ($nx shards stopped growing)")"
    done
done
echo "   list: (l+1)/2; fixed1024: the paper's table, index (addr>>4)&1023, on the same live"
echo "   blocks; table: memtrack's table (all shards), mean and longest chain. strided: 80-byte"
echo "   blocks only (one chunk size, so addr>>4 advances in steps of 8)."
echo

# ---- 3. threads -----------------------------------------------------------------------

TLIVE=10000
tops=$([ $quick = 1 ] && echo 500000 || echo 1000000)
echo "3. Threads: million pairs per second, all threads ($TLIVE live blocks per thread)"
printf '%8s %11s %8s %11s %8s\n' threads untracked scaling tracked scaling
declare -A tput
for th in 1 2 4; do
    u=() v=()
    for ((k = 0; k < REPS; k++)); do
        u+=("$(field mpairs_per_s "$(run plain --live $TLIVE --ops "$tops" --threads $th --seed $((k + 1)))")")
        v+=("$(field mpairs_per_s "$(run tracked --live $TLIVE --ops "$tops" --threads $th --seed $((k + 1)))")")
    done
    tput[u$th]=$(median "${u[@]}")
    tput[t$th]=$(median "${v[@]}")
    printf '%8s %11s %8s %11s %8s\n' $th "${tput[u$th]}" "$(ratio "${tput[u$th]}" "${tput[u1]}")" \
        "${tput[t$th]}" "$(ratio "${tput[t$th]}" "${tput[t1]}")"
done
echo "   scaling: throughput over one thread's; this machine has $(nproc) CPUs."
echo

# ---- 4. memory ------------------------------------------------------------------------

echo "4. Memory: peak RSS with $RSS_LIVE live blocks (after setup, then after churn)"
printf '%10s %12s %12s %7s %18s\n' variant "setup MiB" "peak MiB" ratio "bytes/block over"
declare -A rss
for v in plain tracked; do
    s=() m=()
    for ((k = 0; k < (REPS < 3 ? REPS : 3); k++)); do
        line=$(run $v --live $RSS_LIVE --ops 200000 --seed $((k + 1)))
        s+=("$(field setup_rss_kb "$line")") m+=("$(field maxrss_kb "$line")")
    done
    rss[s$v]=$(median "${s[@]}") rss[m$v]=$(median "${m[@]}")
done
for v in plain tracked; do
    printf '%10s %12s %12s %7s %18s\n' $([ $v = plain ] && echo untracked || echo tracked) \
        "$(awk -v k="${rss[s$v]}" 'BEGIN {printf "%.1f", k / 1024}')" \
        "$(awk -v k="${rss[m$v]}" 'BEGIN {printf "%.1f", k / 1024}')" \
        "$(ratio "${rss[m$v]}" "${rss[mplain]}")" \
        "$(awk -v a="${rss[m$v]}" -v b="${rss[mplain]}" -v n=$RSS_LIVE 'BEGIN {printf "%.0f", (a - b) * 1024 / n}')"
done
echo "   ru_maxrss of the whole process (the slot array of 8 bytes per block included on both sides)."
echo

# ---- 5. peers -------------------------------------------------------------------------

PLIVE=$([ $quick = 1 ] && echo 1000 || echo "1000 100000")
pops=$([ $quick = 1 ] && echo 200000 || echo 500000)
echo "5. Peers: ns per pair and ratio to untracked, same run"
printf '%10s %10s %15s %15s %15s %15s\n' live untracked memtrack ASan dmalloc valgrind
for n in $PLIVE; do
    declare -A pr=()
    for v in plain tracked asan dmalloc valgrind; do
        vals=()
        reps=$REPS
        case $v in
        asan) [ $have_asan = 1 ] || continue ;;
        dmalloc) [ $have_dmalloc = 1 ] || continue ;;
        valgrind) [ $have_valgrind = 1 ] || continue; reps=1 ;;
        esac
        for ((k = 0; k < reps; k++)); do
            case $v in
            dmalloc) line=$(RUN_ENV="DMALLOC_OPTIONS=debug=0x4e48503,log=$out/dmalloc.log" run dmalloc --live "$n" --ops "$pops") ;;
            valgrind)
                line=$(valgrind --tool=memcheck -q "$out/churn-plain" --live "$n" --ops $((pops / 10)) 2>>"$log")
                echo "valgrind churn-plain $n: $line" >>"$log" ;;
            *) line=$(run $v --live "$n" --ops "$pops") ;;
            esac
            vals+=("$(field ns_per_pair "$line")")
        done
        pr[$v]=$(median "${vals[@]}")
    done
    cells=()
    for v in plain tracked asan dmalloc valgrind; do
        if [ -z "${pr[$v]:-}" ]; then cells+=("n/a")
        elif [ $v = plain ]; then cells+=("${pr[$v]}")
        else cells+=("$(printf '%.0f (%.1fx)' "${pr[$v]}" "$(ratio "${pr[$v]}" "${pr[plain]}")")"); fi
    done
    printf '%10s %10s %15s %15s %15s %15s\n' "$n" "${cells[@]}"
done
[ $have_asan = 1 ] || echo "   ASan: skipped (clang with libclang-rt not installed: tools/deps.sh bench)"
[ $have_dmalloc = 1 ] || echo "   dmalloc: skipped (libdmalloc-dev not installed: tools/deps.sh bench)"
[ $have_valgrind = 1 ] || echo "   valgrind: skipped (valgrind not installed: tools/deps.sh bench)"
echo "   ASan: clang -O2 -fsanitize=address; dmalloc: -ldmallocth, DMALLOC_OPTIONS 'low' (fences,"
echo "   alloc and free fills); valgrind: memcheck on the untracked build, one run, 1/10 the ops."
echo

# ---- 6. options -----------------------------------------------------------------------

OLIVE=$([ $quick = 1 ] && echo 100000 || echo 1000000)
echo "6. What the defaults cost: tracked ns per pair and ratio to untracked, 1000 and $OLIVE live"
printf '%-28s %10s %7s %10s %7s\n' options "1000" ratio "$OLIVE" ratio
# BENCH_OPTIONS adds option sets, e.g. BENCH_OPTIONS="guard=0:timeline=0 verbose=1".
opt_sets=("(defaults)" "guard=0" "timeline=0" ${BENCH_OPTIONS:-})
for o in "${opt_sets[@]}"; do
    cells=()
    for n in 1000 $OLIVE; do
        ops=$(churn_ops "$n")
        x=() rr=()
        for ((k = 0; k < REPS; k++)); do
            a=$(field ns_per_pair "$(run plain --live "$n" --ops "$ops" --seed $((k + 1)))")
            if [ "$o" = "(defaults)" ]; then b=$(field ns_per_pair "$(run tracked --live "$n" --ops "$ops" --seed $((k + 1)))")
            else b=$(field ns_per_pair "$(RUN_ENV="MEMTRACK_OPTIONS=$o" run tracked --live "$n" --ops "$ops" --seed $((k + 1)))"); fi
            x+=("$b") rr+=("$(ratio "$b" "$a")")
        done
        cells+=("$(median "${x[@]}")" "$(median "${rr[@]}")")
    done
    printf '%-28s %10s %7s %10s %7s\n' "$o" "${cells[@]}"
done
echo

# ---- targets --------------------------------------------------------------------------

check() { # check TEXT VALUE OP LIMIT
    if awk -v v="$2" -v l="$4" -v op="$3" 'BEGIN {exit !((op == "<=") ? v <= l : v >= l)}'; then
        printf '   met     %-58s %s (%s %s)\n' "$1" "$2" "$3" "$4"
    else
        printf '   MISSED  %-58s %s (%s %s)\n' "$1" "$2" "$3" "$4"
    fi
}
echo "Targets (issue 7; default options, guards on)"
check "churn tracked/untracked at 1K" "${churn_ratio[1000]}" "<=" 1.5
check "churn tracked/untracked at 1M" "${churn_ratio[1000000]}" "<=" 1.3
last=${SIZES##* }
check "churn ratio at ${last} over ratio at 1K (flat per op)" \
    "$(ratio "${churn_ratio[$last]}" "${churn_ratio[1000]}")" "<=" 1.1
check "2 threads over 1 thread, tracked" "$(ratio "${tput[t2]}" "${tput[t1]}")" ">=" 1.7
check "peak RSS tracked/untracked at $RSS_LIVE live" "$(ratio "${rss[mtracked]}" "${rss[mplain]}")" "<=" 1.8
printf 'load average at the end: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
echo "   (log of every run: $log)"
