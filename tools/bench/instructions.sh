#!/bin/bash
# instructions.sh - what one malloc+free pair of the churn executes, counted by callgrind:
# instructions, and with --cache the data misses of callgrind's simulated caches (first
# level, 48 KiB, and second level, 1 MiB: this machine's L1d and L2 per core; CACHE_LL
# sets the second, e.g. CACHE_LL=33554432,16,64 for its L3). Deterministic, so it compares two builds on a loaded machine
# where times do not.
#
#   tools/bench/instructions.sh [--cache] PROGRAM [CHURN ARGS...]   (env: MEMTRACK_OPTIONS...)
#
# Runs the churn program twice under callgrind, with 20 000 and 120 000 operations, and
# prints the difference over 100 000. Only the churn's loop is counted: churn.c toggles
# callgrind's collection around it (the caches are simulated throughout), so the setup, the
# teardown and the exit count for nothing (at a million blocks they did not cancel out: the
# C library consolidated its heap in one run and not the other, 50 instructions a pair).
# OPS="A B" sets the two counts: at a million live blocks the table still doubles in the
# first operations after the setup (a shard's 60 000 records rehashed: about 10 instructions
# and a miss a pair over 100 000 operations), and OPS="300000 800000" measures the steady
# state after them.
set -eu
sim=no
if [ "${1:-}" = --cache ]; then
    sim=yes
    shift
fi
prog=$1
shift
collect() { # collect OPS -> the event counts: Ir [Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw]
    valgrind --tool=callgrind --cache-sim=$sim --D1=49152,12,64 --LL="${CACHE_LL:-1048576,16,64}" \
        --collect-atstart=no --callgrind-out-file=/dev/null "$prog" "$@" \
        --ops "$ops" 2>&1 >/dev/null | sed -n 's/.*Collected : //p'
}
read -r ops_a ops_b <<<"${OPS:-20000 120000}"
ops=$ops_a a=($(collect "$@"))
ops=$ops_b b=($(collect "$@"))
if [ "${b[0]:-0}" = 0 ]; then
    echo "instructions.sh: nothing counted: is $prog the churn built with valgrind's headers?" >&2
    exit 1
fi
per() { awk -v a="${a[$1]:-0}" -v b="${b[$1]:-0}" -v n=$((ops_b - ops_a)) 'BEGIN {printf "%.3f", (b - a) / n}'; }
if [ $sim = yes ]; then
    echo "instructions_per_pair=$(printf %.1f "$(per 0)") d1_misses=$(awk -v r="$(per 4)" -v w="$(per 5)" 'BEGIN {printf "%.1f", r + w}') ll_misses=$(awk -v r="$(per 7)" -v w="$(per 8)" 'BEGIN {printf "%.2f", r + w}')"
else
    echo "instructions_per_pair=$(printf %.1f "$(per 0)")"
fi
