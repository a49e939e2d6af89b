# reach_valgrind.sh - the leak scan classes blocks as Valgrind's memcheck does. The program
# test/e2e/reach.c (a block held each way: globals, a static local, a chain, lost, indirectly
# lost, a pointer into the middle, main's frame, a running thread's stack) is built without
# memtrack and run under valgrind --leak-check=full --show-leak-kinds=all, and built with
# memtrack and run with json=: the class of the blocks made at each line of reach.c must be
# the same in both, and every one of its nine allocations must be there. The same for
# test/e2e/reach_counted.c, blocks held one word in (Valgrind's length64 and newarray
# heuristics). Blocks the C library made (a thread's thread-local storage) are the
# system's for memtrack and left out.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir reach_valgrind

# compare PROGRAM ALLOCATIONS: the classes by line, for each of its allocations in the program.
compare() {
    cp "$TOP/test/e2e/$1.c" .
    $CC -std=gnu11 -g -O0 -pthread "$1.c" -o "$1-plain"
    valgrind --leak-check=full --show-leak-kinds=all --log-file="$1.valgrind" "./$1-plain"
    $CC -std=gnu11 -g -O0 -DMEMORY_CONTROL_ON -I"$TOP/include" -include memtrack.h "$1.c" \
        -o "$1-tracked" -L"$TOP/build" -lmemtrack -Wl,-rpath,"$TOP/build" -pthread
    MEMTRACK_OPTIONS=json=$1.json "./$1-tracked" 2>"$1.stderr"
    python3 - "$1" "$2" <<'PY'
import json, re, sys
name, count = sys.argv[1], int(sys.argv[2])

# Valgrind's loss records: the kind, then the stack of the allocation; the block is the
# program's when the first frame past the allocation functions is in the program.
words = {"definitely lost": "lost", "indirectly lost": "indirect",
         "possibly lost": "possible", "still reachable": "reachable"}
allocators = {"malloc", "calloc", "realloc", "strdup", "strndup"}
valgrind, record = {}, None
for line in open(name + ".valgrind"):
    m = re.search(r"blocks? (?:are|is) (definitely lost|indirectly lost|possibly lost|still reachable)", line)
    if m:
        record = words[m.group(1)]
        continue
    m = re.search(r"==\s+(?:at|by) 0x[0-9A-F]+: (\S+) \((.*)\)", line)
    if record is None or not m:
        if not line.strip("= 0123456789\n"):
            record = None
        continue
    func, where = m.groups()
    site = re.match(re.escape(name) + r"\.c:(\d+)", where)
    if site:
        valgrind[int(site.group(1))] = record
        record = None
    elif func not in allocators:
        record = None  # made by the C library: not one of the program's blocks

report = json.load(open(name + ".json"))
assert report["leaks"]["classified"] is True, report["leaks"]
memtrack = {s["line"]: s["class"] for s in report["leaks"]["sites"] if s["file"] == name + ".c"}

print(name, "valgrind:", sorted(valgrind.items()))
print(name, "memtrack:", sorted(memtrack.items()))
assert len(valgrind) == count, "valgrind's records: %r" % valgrind
assert memtrack == valgrind, "the classes differ"
PY
}

compare reach 9
compare reach_counted 3
echo "same classes as valgrind: ok"
