#!/bin/sh
# run.sh - builds report_prog.c with memtrack cc, runs it with memtrack run --html --json,
# and checks the HTML report in Debian's chromium (html_report.js, playwright-core from
# build/browser/node_modules, installed by make browser); then the call stacks of
# test/report/stacks.json rendered by memtrack report (html_stacks.js).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out="$top/build/browser"
mkdir -p "$out"
cd "$out"
# The program's symbol cache is the test's own, never the user's (test/lib/runner.sh).
XDG_CACHE_HOME="$out/cache"
rm -rf "$XDG_CACHE_HOME"
mkdir -p "$XDG_CACHE_HOME"
export XDG_CACHE_HOME
"$top/memtrack" cc -g -O0 "$top/test/browser/report_prog.c" -o report_prog
status=0
"$top/memtrack" run --html report.html --json report.json ./report_prog 2>report.txt || status=$?
[ $status = 23 ] || { echo "memtrack run: status $status, expected 23"; cat report.txt; exit 1; }
node "$top/test/browser/html_report.js" "$out/report.html" "$out/report.json" "$out/report.png"
# Call stacks, from a report that has them (the program above may not: stack=0).
"$top/memtrack" report "$top/test/report/stacks.json" --html stacks.html
exec node "$top/test/browser/html_stacks.js" "$out/stacks.html" "$out/stacks.png"
