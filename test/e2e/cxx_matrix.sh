# cxx_matrix.sh - every C++ end-to-end test (cxx_*.cpp) again with g++ and clang++, at
# -std=c++11, c++17 and c++20: the same program must give the same report, byte for byte,
# whichever compiler and standard built it. (run.sh itself runs them once with $CXX and
# c++17.) Outputs go to $OUT/matrix/gcc-11/, clang-20/... (run.sh reads the directory name
# as a pattern: no '+' in it).
set -u
tests=""
for f in cxx_*.cpp; do tests="$tests ${f%.cpp}"; done
status=0
for compiler in g++ clang++; do
    case $compiler in g++) short=gcc ;; *) short=clang ;; esac
    if ! command -v "$compiler" >/dev/null 2>&1; then
        echo "missing $compiler (tools/deps.sh test installs it)"; status=1; continue
    fi
    for std in c++11 c++17 c++20; do
        dir="$OUT/matrix/$short-${std#c++}"
        mkdir -p "$dir"
        # shellcheck disable=SC2086
        if CXX=$compiler CXXSTD=-std=$std E2E_OUT="$dir" "$TOP/test/e2e/run.sh" $tests >"$dir.log" 2>&1; then
            echo "ok   $compiler -std=$std: $(tail -1 "$dir.log")"
        else
            echo "FAIL $compiler -std=$std"; grep -v '^ok ' "$dir.log"; status=1
        fi
    done
done
exit $status
