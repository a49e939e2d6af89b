# install_pkgconfig.sh - the three ways to use memtrack in a build, from an installed copy:
# include + flag, force-include, pkg-config; with the shared and the static library.
set -eu
prefix="$OUT/prefix"
stage="$OUT/stage"
rm -rf "$prefix" "$stage"
make -C "$TOP" -s install PREFIX="$prefix" >/dev/null
make -C "$TOP" -s install PREFIX=/opt/memtrack DESTDIR="$stage" >/dev/null
for f in include/memtrack.h lib/libmemtrack.a lib/libmemtrack.so lib/pkgconfig/memtrack.pc bin/memtrack; do
    [ -e "$prefix/$f" ] || { echo "missing after install: $f"; exit 1; }
    [ -e "$stage/opt/memtrack/$f" ] || { echo "missing under DESTDIR: $f"; exit 1; }
done
grep -q '^prefix=/opt/memtrack$' "$stage/opt/memtrack/lib/pkgconfig/memtrack.pc"
"$prefix/bin/memtrack" --version | grep -q '^memtrack '

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cat >"$OUT/leaky.c" <<'C'
#include <stdlib.h>
int main(void) { return malloc(42) == NULL; }
C
expect_leak() { # expect_leak BINARY
    out=$("$1" 2>&1)
    echo "$out" | grep -q "42 bytes in 1 block at leaky.c:2 in main() by malloc" ||
        { echo "no leak report from $1:"; echo "$out"; exit 1; }
}
cd "$OUT"
# 1. pkg-config, explicit flag, the header included by the source
printf '#include "memtrack.h"\n' | cat - leaky.c >leaky_inc.c
cc -DMEMORY_CONTROL_ON $(pkg-config --cflags memtrack) leaky_inc.c -o leaky_inc $(pkg-config --libs memtrack)
out=$(./leaky_inc 2>&1); echo "$out" | grep -q "42 bytes in 1 block at leaky_inc.c:3 in main() by malloc" || { echo "$out"; exit 1; }
# 2. force-include, no source change, shared library
cc -DMEMORY_CONTROL_ON -include memtrack.h $(pkg-config --cflags memtrack) leaky.c -o leaky_force $(pkg-config --libs memtrack)
expect_leak ./leaky_force
# 3. the static library
cc -DMEMORY_CONTROL_ON -include memtrack.h -I"$prefix/include" leaky.c -o leaky_static "$prefix/lib/libmemtrack.a" -ldl -pthread
expect_leak ./leaky_static
if ldd ./leaky_static | grep -q libmemtrack; then echo "static build depends on libmemtrack.so"; exit 1; fi
echo "install_pkgconfig: ok"
