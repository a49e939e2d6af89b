# report_cross_frames.sh - memtrack report names the frames a cross target saved by function
# and offset alone (issue 33): test/platforms/stack_helper.c built for aarch64 and run under
# qemu-aarch64 (and for Windows under wine, when its tools are here) saves its callers as
# "load_config+0x1c"; rendered on this machine, its report shows each caller's file and
# line from the program file's DWARF (libdw reads the foreign ELF; a PE's DWARF sections
# through tools/pe_file.c), found where it ran, beside the report or with --modules DIR.
# A file that does not have the frame's function names nothing.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir report_cross_frames
for tool in aarch64-linux-gnu-gcc qemu-aarch64; do
    command -v $tool >/dev/null || { echo "no $tool here (tools/deps.sh platforms)"; exit 77; }
done
make -s -C "$TOP" PLATFORM=aarch64 >build-aarch64.log 2>&1 || { cat build-aarch64.log; exit 1; }

want_named() { # REPORT_TEXT: the helper's callers by file and line, under the leak and the error
    grep -q '^memtrack:       from stack_helper.c:25 in load_config()$' "$1"
    grep -q '^memtrack:       from stack_helper.c:35 in main()$' "$1"
    grep -q 'allocated at stack_helper.c:26 in load_config(), released' "$1"
}
want_saved() { # REPORT_TEXT: the frames as the program named them
    grep -q '^memtrack:       from 0x[0-9a-f]* in load_config+0x[0-9a-f]*$' "$1"
    ! grep -q 'from stack_helper.c' "$1"
}

# aarch64: the program's own report names its callers by symbol only.
# Built from its folder, as test/platforms/run.sh builds it: its DWARF names stack_helper.c.
mkdir -p run
(cd "$TOP/test/platforms" && aarch64-linux-gnu-gcc -std=gnu11 -g -O0 -DMEMORY_CONTROL_ON \
    -I"$TOP/include" -include memtrack.h stack_helper.c -o "$OLDPWD/run/prog" \
    "$TOP/build/platform/aarch64/libmemtrack.a" -ldl -pthread)
(cd run && MEMTRACK_OPTIONS=json=report.json qemu-aarch64 -L /usr/aarch64-linux-gnu ./prog 2>stderr.txt) || true
grep -q '^memtrack:       from 0x[0-9a-f]* in load_config+0x1c$' run/stderr.txt
mkdir -p elsewhere
cd elsewhere
# Where it ran (the report's cwd and program).
"$M" report ../run/report.json >where_it_ran.txt
want_named where_it_ran.txt
# The same in JSON: file and line in the frames.
"$M" report ../run/report.json --json named.json
grep -q '"function": "load_config", "file": "stack_helper.c", "line": 25' named.json
# Moved away: the frames stay as saved; with --modules, or beside the report, named again.
mkdir -p ../moved ../copy
mv ../run/prog ../moved/prog
"$M" report ../run/report.json >moved.txt
want_saved moved.txt
"$M" report ../run/report.json --modules /nonexistent --modules ../moved >modules.txt
want_named modules.txt
cp ../run/report.json ../moved/prog ../copy/
"$M" report ../copy/report.json >beside.txt
want_named beside.txt
# Another program in its place, without the frames' function: nothing named.
printf 'int main(void) { return 0; }\n' >other.c
aarch64-linux-gnu-gcc -g other.c -o ../run/prog
"$M" report ../run/report.json >other.txt
want_saved other.txt

# Inlined code (-O2): the target saw only fill's symbol; the DWARF says make's malloc was
# inlined into keep, inlined into fill, each a frame, as a live report on the host has them.
cat >inl.c <<'C'
#include <stdlib.h>
#include <string.h>
static inline char *make(const char *s) { char *p = malloc(strlen(s) + 1); strcpy(p, s); return p; }
static inline void keep(char **slot, const char *s) { *slot = make(s); }
__attribute__((noinline)) void fill(char **slots) { keep(&slots[0], "one"); }
int main(void) { char *s[1]; fill(s); return s[0] == 0; }
C
aarch64-linux-gnu-gcc -std=gnu11 -g -O2 -fno-omit-frame-pointer -DMEMORY_CONTROL_ON -I"$TOP/include" \
    -include memtrack.h inl.c -o inl "$TOP/build/platform/aarch64/libmemtrack.a" -ldl -pthread
MEMTRACK_OPTIONS=json=inl.json qemu-aarch64 -L /usr/aarch64-linux-gnu ./inl 2>inl.stderr || true
grep -q '^memtrack:       from 0x[0-9a-f]* in fill+0x[0-9a-f]*$' inl.stderr
"$M" report inl.json >inl.txt
grep -A3 'at inl.c:3 in make() by malloc' inl.txt >inl.stack
printf '%s\n' "memtrack:       inlined into inl.c:4 in keep()" "memtrack:       inlined into inl.c:5 in fill()" \
    "memtrack:       from inl.c:6 in main()" | diff - <(tail -3 inl.stack)

# Windows: the PE's DWARF and COFF symbols.
if command -v x86_64-w64-mingw32-gcc >/dev/null && command -v wine >/dev/null; then
    make -s -C "$TOP" PLATFORM=windows >build-windows.log 2>&1 || { cat build-windows.log; exit 1; }
    mkdir -p ../win
    (cd "$TOP/test/platforms" && x86_64-w64-mingw32-gcc -std=gnu11 -g -O0 -DMEMORY_CONTROL_ON \
        -I"$TOP/include" -include memtrack.h stack_helper.c -o "$OLDPWD/../win/prog.exe" -static \
        "$TOP/build/platform/windows/libmemtrack.a" -pthread)
    (cd ../win && MEMTRACK_OPTIONS=json=report.json "$TOP/test/platforms/wine.sh" ./prog.exe 2>stderr.txt) || true
    grep -q '^memtrack:       from 0x[0-9a-f]* in load_config+0x[0-9a-f]*$' ../win/stderr.txt
    grep -q '"cwd": "Z:' ../win/report.json
    "$M" report ../win/report.json >windows.txt
    want_named windows.txt
else
    echo "Windows part not run: no x86_64-w64-mingw32-gcc or wine here (tools/deps.sh platforms)"
fi
echo ok
