# readme_report.sh - the README's two reports are what `make demo` prints: the demo's
# ("Reading the report") and the engine's pools and arenas ("Pools and arenas"), every
# memtrack line in order, addresses and pids aside. The programs run at a terminal (script),
# as a user runs make demo: glibc gives a terminal's stdout a 1 KiB buffer, which the report
# counts apart as a system library's block.
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir readme_report
here=$PWD
cd "$TOP" # the demo's sites are named as make demo names them: test/demo/...
cc -std=c11 -g -O0 -DMEMORY_CONTROL_ON -Iinclude test/demo/demo.c -o "$here/demo" \
    -Lbuild -lmemtrack -Wl,-rpath,"$TOP/build" 2>/dev/null
cc -std=c11 -g -O0 -DMEMORY_CONTROL_ON -Iinclude test/demo/engine/engine.c \
    test/demo/engine/game.c -o "$here/engine" -Lbuild -lmemtrack -Wl,-rpath,"$TOP/build"

stable() { # memtrack's lines, with the block addresses, pids and program paths made stable
    tr -d '\r' | grep '^memtrack:' | sed -E -e 's/0x[0-9a-f]+/0xADDR/g' \
        -e 's/\(pid [0-9]+\)/(pid PID)/' -e 's/report for [^ ]+/report for PROG/'
}
# readme_block TEXT: the README's fenced block that holds TEXT
readme_block() {
    python3 - "$TOP/README.md" "$1" <<'PY'
import re, sys
text, want = open(sys.argv[1], encoding='utf-8').read(), sys.argv[2]
blocks = [b for b in re.findall(r'^```[a-z]*\n(.*?)^```', text, re.S | re.M) if want in b]
if len(blocks) != 1:
    sys.exit('README.md: %d blocks hold %r' % (len(blocks), want))
sys.stdout.write(blocks[0])
PY
}
for prog in demo engine; do
    case $prog in
    demo) key='test/demo/demo.c:47 in main() by malloc' ;;
    engine) key='double release of object #2 (16 bytes) to pool "bullets"' ;;
    esac
    readme_block "$key" | stable >"$here/$prog.readme"
    script -qc "$here/$prog" /dev/null </dev/null | stable >"$here/$prog.run"
    [ -s "$here/$prog.run" ] || { echo "$prog printed no report"; exit 1; }
    diff -u "$here/$prog.readme" "$here/$prog.run"
done
echo "the README's reports are make demo's"
