# header_features.sh - force-included before a source's own #define _XOPEN_SOURCE (or
# _POSIX_C_SOURCE, _GNU_SOURCE, _FILE_OFFSET_BITS), memtrack.h must not lock glibc's feature
# set too early: the source compiles silently under -std=c99 -Werror and runs tracked.
set -eu
fails=0
for cc in gcc clang; do
    for feature in 1 2 3 4; do
        for std in -std=c99 -std=c11 -std=gnu11; do
            bin="$OUT/xopen_$cc$feature${std#-std=}"
            if ! out=$($cc $std -Werror -Wall -Wextra -DFEATURE=$feature -DMEMORY_CONTROL_ON \
                    -include memtrack.h -I"$TOP/include" ./xopen_source.c -o "$bin" \
                    -L"$TOP/build" -lmemtrack -Wl,-rpath,"$TOP/build" 2>&1) || [ -n "$out" ]; then
                echo "NOT SILENT: $cc $std FEATURE=$feature"; echo "$out" | head; fails=$((fails + 1)); continue
            fi
            if ! err=$(MEMTRACK_OPTIONS=exitcode=9 "$bin" 2>&1); then
                echo "RUN FAILED: $cc $std FEATURE=$feature"; echo "$err"; fails=$((fails + 1))
            fi
        done
    done
done
# Without the header's care, -std=c99 + force-include loses sigaction: prove the test can
# fail by including <stdlib.h> first the same way.
if echo '#include <stdlib.h>' | gcc -std=c99 -E - >/dev/null &&
    printf '#include <stdlib.h>\n' >"$OUT/first.h" &&
    gcc -std=c99 -Werror -DFEATURE=1 -include "$OUT/first.h" -c ./xopen_source.c -o /dev/null 2>/dev/null; then
    echo "control case compiled: this test would not catch the problem"; fails=$((fails + 1))
fi
echo "header_features: $fails failures"
[ $fails = 0 ]
