#!/bin/bash
# scripts.sh - runs script tests: each test/GROUP/NAME.sh checks itself (exit 0 = pass),
# run from its own folder with TOP and OUT (its scratch folder) set; output in
# build/GROUP/NAME.log, shown when it fails. A test that cannot run on this machine (the
# package test without root) exits 77 after printing why, as its last line: it is skipped.
#
#   test/lib/scripts.sh GROUP [NAME...]      (make test-command, test-header, test-report)
set -u
# shellcheck source=./runner.sh
. "$(dirname "$0")/runner.sh"
group=$1
shift
here="$TOP/test/$group"
out="${OUT:-$TOP/build/$group}"
mkdir -p "$out"
tests=("$@")
[ ${#tests[@]} -eq 0 ] && tests=($(cd "$here" && ls *.sh | grep -v '^strict_matrix\.sh$' | sed 's/\.sh$//'))
for name in "${tests[@]}"; do
    (cd "$here" && TOP="$TOP" OUT="$out" CC="$CC" CXX="$CXX" bash "$name.sh") >"$out/$name.log" 2>&1
    status=$?
    if [ $status = 0 ]; then
        passed "$name"
    elif [ $status = 77 ]; then
        skipped "$name" "$(tail -1 "$out/$name.log")"
    else
        failed "$name"
        tail -40 "$out/$name.log"
    fi
done
summary "$group"
