# runner.sh - what every test runner and script test shares (sourced, bash):
#   TOP, CC, CXX, M   the repository, the compilers, the memtrack command
#   normalize DIR     stdin to stdout with addresses, pids, offsets and DIR/ made stable
#   directive P N F   the value of "P-N: value" in the first lines of file F, or nothing
#   passed NAME, failed NAME [FILE...], skipped NAME WHY, summary SUITE   the count and its
#                     closing line, "SUITE: N passed, N failed" (then the failed names;
#                     ", N skipped" when a test could not run here, which is not a failure)
#   workdir NAME      a fresh $OUT/NAME, made the current directory
: "${TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
CC=${CC:-cc}
CXX=${CXX:-c++}
M="$TOP/memtrack"

# The symbol cache the programs under test keep (option symbol_cache, by default under
# $XDG_CACHE_HOME): their own, fresh for each runner and each script test, never the
# user's. A program run twice by one runner (fault's abort_on_error pass) names its frames
# from it the second time, with the same report.
XDG_CACHE_HOME="$TOP/build/test-cache/$$"
rm -rf "$XDG_CACHE_HOME"
mkdir -p "$XDG_CACHE_HOME"
export XDG_CACHE_HOME

normalize() {
    sed -E -e 's/0x[0-9a-f]{6,}/0xADDR/g' -e 's/\(pid [0-9]+\)/(pid PID)/g' \
        -e "s|$1/||g" -e 's/\+0x[0-9a-f]+/+0xOFF/g'
}

directive() {
    sed -n "s/^.*$1-$2:[[:space:]]*\(.*[^[:space:]]\)[[:space:]]*\(\*\/\)\{0,1\}$/\1/p" "$3" \
        | sed 's/[[:space:]]*\*\/$//' | head -1
}

pass=0
fail=0
skipped_count=0
failed_names=""

passed() {
    pass=$((pass + 1))
    echo "ok   $1"
}

failed() {
    local name=$1
    shift
    fail=$((fail + 1))
    failed_names="$failed_names $name"
    echo "FAIL $name"
    [ $# -eq 0 ] || cat "$@"
}

skipped() {
    skipped_count=$((skipped_count + 1))
    echo "skip $1: $2"
}

summary() {
    local skips=""
    [ "$skipped_count" = 0 ] || skips=", $skipped_count skipped"
    echo "$1: $pass passed, $fail failed$skips${failed_names:+:$failed_names}"
    [ "$fail" = 0 ]
}

workdir() {
    d="$OUT/$1"
    rm -rf "$d"
    mkdir -p "$d"
    cd "$d" || exit 1
}
