# stack_matrix.sh - the stack of stack_chain.c's leak, whatever built it: gcc and clang, -O0
# and -O2, with frame pointers and without, each run with the fast unwinder (the default)
# and with unwind=exact.
# - The site is always level3's line.
# - With frame pointers (as `memtrack cc` builds), and with unwind=exact always, the stack
#   is exactly level2's, level1's and main's lines.
# - Without frame pointers the fast unwinder may stop early or skip callers, but every line
#   it shows is one of those, in order: never a wrong frame.
set -u
chain=("from stack_chain.c:20 in level2()" "from stack_chain.c:26 in level1()"
    "from stack_chain.c:32 in main()")
site='memtrack:   12 bytes in 1 block at stack_chain.c:14 in level3() by malloc: #1'
status=0
dir="$OUT/stack_matrix"
mkdir -p "$dir"

# frames FILE -> the stack lines under the site, without their prefix
frames() { sed -n 's/^memtrack:       \(from .*\)$/\1/p' "$1"; }

# in_order FILE: each frame shown is one of the chain's, in the chain's order
in_order() {
    local i=0 line
    while IFS= read -r line; do
        while [ $i -lt ${#chain[@]} ] && [ "${chain[$i]}" != "$line" ]; do i=$((i + 1)); done
        [ $i -lt ${#chain[@]} ] || return 1
        i=$((i + 1))
    done < <(frames "$1")
}

for compiler in gcc clang; do
    command -v $compiler >/dev/null 2>&1 || { echo "missing $compiler"; status=1; continue; }
    for opt in -O0 -O2; do
        for fp in fp nofp; do
            flags="-fno-omit-frame-pointer"
            [ $fp = nofp ] && flags="-fomit-frame-pointer"
            name="$compiler$opt-$fp"
            bin="$dir/$name"
            if ! $compiler -std=gnu11 -g $opt $flags -DMEMORY_CONTROL_ON -I"$TOP/include" \
                -include memtrack.h stack_chain.c -o "$bin" -L"$TOP/build" -lmemtrack \
                -Wl,-rpath,"$TOP/build" 2>"$bin.build"; then
                echo "FAIL $name: build"; cat "$bin.build"; status=1; continue
            fi
            for unwind in fast exact; do
                err="$bin.$unwind.err"
                MEMTRACK_OPTIONS=unwind=$unwind "$bin" 2>"$err"
                ok=1
                grep -qxF "$site" "$err" || ok=0
                if [ $fp = fp ] || [ $unwind = exact ]; then
                    [ "$(frames "$err")" = "$(printf '%s\n' "${chain[@]}")" ] || ok=0
                else
                    in_order "$err" || ok=0
                fi
                if [ $ok = 1 ]; then
                    echo "ok   $name unwind=$unwind: $(frames "$err" | wc -l) frames"
                else
                    echo "FAIL $name unwind=$unwind"; cat "$err"; status=1
                fi
            done
        done
    done
done
exit $status
