# zero_cost.sh - without MEMORY_CONTROL_ON the header changes nothing: an object file
# compiled with it (force-included) disassembles the same as one compiled without it.
set -eu
fails=0
disasm() { objdump -d --no-show-raw-insn "$1" | sed 1,3d; }
for cc in gcc clang; do
    for opt in -O0 -O2; do
        for src in ./uses_plain.c ./xopen_source.c; do
            $cc -std=gnu11 $opt -DFEATURE=1 -c "$src" -o "$OUT/plain.o"
            $cc -std=gnu11 $opt -DFEATURE=1 -include memtrack.h -I"$TOP/include" -c "$src" -o "$OUT/with.o"
            if ! diff <(disasm "$OUT/plain.o") <(disasm "$OUT/with.o") >"$OUT/zero_cost.diff"; then
                echo "DIFFERENT CODE: $cc $opt $src"; head -20 "$OUT/zero_cost.diff"; fails=$((fails + 1))
            fi
        done
    done
done
for cxx in g++ clang++; do
    g=./uses_plain.c
    for opt in -O0 -O2; do
        $cxx -std=c++17 $opt -x c++ -c $g -o "$OUT/plain.o"
        $cxx -std=c++17 $opt -x c++ -include memtrack.h -I"$TOP/include" -c $g -o "$OUT/with.o"
        diff <(disasm "$OUT/plain.o") <(disasm "$OUT/with.o") >/dev/null || { echo "DIFFERENT CODE: $cxx $opt"; fails=$((fails + 1)); }
    done
done
# The comparison can fail: with the flag, the code differs.
$cc -std=gnu11 -O2 -DMEMORY_CONTROL_ON -include memtrack.h -I"$TOP/include" -c ./uses_plain.c -o "$OUT/on.o"
if diff <(disasm "$OUT/plain.o") <(disasm "$OUT/on.o") >/dev/null; then
    echo "tracking on gives the same code: the comparison proves nothing"; fails=$((fails + 1))
fi
echo "zero_cost: $fails failures"
[ $fails = 0 ]
