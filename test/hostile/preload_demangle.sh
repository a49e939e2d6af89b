# preload_demangle.sh - under --preload, a malloc site in a C++ function of a program that does
# not load the C++ runtime (it only calls malloc, linked --as-needed) is still shown by its
# C++ name (ns::A::make), not its mangled symbol (_ZN2ns1A4makeEm).
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir preload_demangle
cat >prog.cpp <<'C'
#include <cstdlib>
namespace ns {
struct A {
    static void *make(unsigned long n) { return std::malloc(n); }
};
} // namespace ns
int main() { return ns::A::make(10) == nullptr; }
C
c++ -O0 -Wl,--as-needed prog.cpp -o prog # built without memtrack, without debug information
! ldd ./prog | grep -q 'libstdc++' || { echo "the C++ runtime is loaded: the test proves nothing"; exit 1; }
status=0
"$M" run --preload ./prog 2>err.txt || status=$?
grep -q "10 bytes in 1 block at 0x[0-9a-f]* in ns::A::make+0x" err.txt || { cat err.txt; exit 1; }
