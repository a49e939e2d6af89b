#!/bin/bash
# run.sh - the same programs on every target (tools/doc/platforms.md): each is built with the
# target's compiler against build/platform/NAME/libmemtrack.a, run here (natively or under
# qemu-user), and its stderr, addresses and pids normalized, must equal the expected report
# line for line: the very report Linux x86-64 glibc prints, which runs first.
#
# The programs: this folder's (NAME.c, NAME.expected) and some of test/e2e's, whose reports
# do not depend on the size of a pointer (E2E below), with their e2e expected files.
# Directives: platform-options (or e2e-options): MEMTRACK_OPTIONS for the run; OUT in them
# is the output folder, and a report written to OUT/NAME.json is compared after stderr.
# platform-untracked: FILE.c is also compiled WITHOUT the flag and linked in (a library).
# platform-targets: the only targets the program is for (its calls are theirs alone).
# platform-status: the exit status the program ends with (0 when not given).
# platform-skip: TARGET...: why: targets that cannot run the program, and why (printed).
# A target's PLATFORM_DYNAMIC programs (tools/platform.mk) also run linked without its
# LDFLAGS' -static (as TARGET/dynamic/NAME, outputs in its dynamic/), with the same
# expected report.
#
#   test/platforms/run.sh [PLATFORM...]    default: native and every target of
#                                          tools/platform.mk; outputs in build/platforms
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/runner.sh
. "$here/../lib/runner.sh"
top=$TOP
STACK_LINE='^memtrack:  *(from|held by) '
E2E="clean clean_verbose leak_kinds overrun guard_zero atexit_order fork_exit options_bad \
    options_code xmalloc pool_errors pool_register arena_errors fail_report"

stack_lines() {
    if [ -n "${NO_STACKS:-}" ]; then
        grep -Ev "$STACK_LINE"
    else
        grep -Ev '^memtrack:  *held by ' | sed -E 's/^(memtrack: +(from|inlined into) )([^ ]+:[0-9]+ in |0xADDR in )([^ (+]+)(\(\)|\+0xOFF).*/\1\4/'
    fi
}

# A target without stacks (NO_STACKS: why) says so once in each report, after its
# statistics, and in its JSON's stack_notes: added to Linux x86-64's expected reports there
# (the target's own expected reports have them already).
no_stacks_notice() {
    if [ -z "${NO_STACKS:-}" ]; then cat; return; fi
    awk -v why="$NO_STACKS" '
        pending { if ($0 !~ /^memtrack: call stacks: /)
                      print "memtrack: call stacks: not available on this target (" why ")"
                  pending = 0 }
        /^  "errors": \{$/ && prev !~ /^  "stack_notes": / {
            print "  \"stack_notes\": {\"unwalked\": 0, \"no_frame_pointers\": false, \"unavailable\": \"" why "\"}," }
        { print; prev = $0 }
        /^memtrack: peak / { pending = 1 }'
}

platforms=("$@")
[ ${#platforms[@]} -eq 0 ] && platforms=(native $(make -s -C "$top" print-platforms))

for p in "${platforms[@]}"; do
    out="$top/build/platforms/$p"
    mkdir -p "$out"
    if [ "$p" = native ]; then
        lib="$top/build/libmemtrack.a"; CC=${CC:-cc}; LDFLAGS=""; RUN=""; SKIP=""; WHY=""
        LIBS="-ldl -pthread"; EXPECT=""; STDOUT_EXPECT=""; DYNAMIC=""; NO_STACKS=""
        make -s -C "$top" all >"$out/build.log" 2>&1
    else
        lib="$top/build/platform/$p/libmemtrack.a"
        eval "$(make -s -C "$top" PLATFORM="$p" platform-env)"
        make -s -C "$top" PLATFORM="$p" >"$out/build.log" 2>&1
    fi || { failed "$p: the library" "$out/build.log"; continue; }
    progs=()
    for n in $E2E; do progs+=("$top/test/e2e/$n.c"); done
    for src in "$here"/*.c; do [[ "$src" == *-untracked.c ]] || progs+=("$src"); done
    for n in $DYNAMIC; do
        src="$top/test/e2e/$n.c"; [ -f "$here/$n.c" ] && src="$here/$n.c"
        progs+=("$src@dynamic")
    done
    for entry in "${progs[@]}"; do
        src=${entry%@dynamic}; bdir=$out; link=$LDFLAGS; label=""
        if [ "$src" != "$entry" ]; then
            bdir=$out/dynamic; link=${LDFLAGS//-static/}; label=dynamic/
        fi
        mkdir -p "$bdir"
        dir=$(dirname "$src"); name=$(basename "$src" .c)
        kind=platform; [ "$dir" = "$here" ] || kind=e2e
        if [[ " $SKIP " == *" $name "* ]]; then echo "skip $p/$name: $WHY"; continue; fi
        skip=$(directive $kind skip "$src")
        if [ -n "$skip" ] && [[ " ${skip%%:*} " == *" $p "* ]]; then
            echo "skip $p/$name:${skip#*:}"; continue
        fi
        targets=$(directive $kind targets "$src")
        [ -z "$targets" ] || [[ " $targets " == *" $p "* ]] || continue
        options=$(directive $kind options "$src")
        options=${options//OUT/$out}
        rm -f "$out/$name.json"
        bin="$bdir/$name"
        untracked=$(directive $kind untracked "$src")
        objs=()
        if [ -n "$untracked" ]; then
            # shellcheck disable=SC2086
            (cd "$dir" && $CC -std=gnu11 -g -O0 -c "$untracked" -o "$bdir/$name-untracked.o") \
                >"$bdir/$name.build" 2>&1 || { failed "$p/$label$name" "$bdir/$name.build"; continue; }
            objs=("$bdir/$name-untracked.o")
        fi
        # shellcheck disable=SC2086
        if ! (cd "$dir" && $CC -std=gnu11 -g -O0 -DMEMORY_CONTROL_ON -I"$top/include" \
                -include memtrack.h "$name.c" "${objs[@]}" -o "$bin" $link "$lib" $LIBS) \
                >"$bdir/$name.build" 2>&1; then
            failed "$p/$label$name" "$bdir/$name.build"; continue
        fi
        # shellcheck disable=SC2086
        (cd "$dir" && MEMTRACK_OPTIONS="$options" timeout 120 $RUN "$bin" >"$bdir/$name.out" \
            2>"$bdir/$name.err")
        status=$?
        # The JSON report up to its options (which grow with memtrack, not with the target).
        [ -f "$out/$name.json" ] && sed -E -e 's/"pid": [0-9]+/"pid": PID/' \
            -e 's/"device": [0-9]+, "inode": [0-9]+/"device": DEV, "inode": INO/' \
            -e 's/"usec": [0-9]+/"usec": USEC/g' -e 's/"cwd": "[^"]*"/"cwd": CWD/' \
            -e '/^  "options": \{/,$d' "$out/$name.json" >>"$bdir/$name.err"
        # Stack lines are compared by function: the native build names a frame from the
        # debug information (libdw: "from x.c:9 in f()"), the others from the program's
        # symbol table ("from 0x4011d6 in f+0x1c"); both read "from f". A target without
        # stacks (NO_STACKS: its README row says why) leaves them out of both. What holds a
        # leak ("held by g_x at x.c:3") only the native build names: left out everywhere.
        normalize "$bdir" <"$bdir/$name.err" | stack_lines >"$bdir/$name.norm"
        ok=1
        sed -e "${EXPECT:-}" "$dir/$name.expected" | no_stacks_notice | stack_lines >"$bdir/$name.want"
        diff -u "$bdir/$name.want" "$bdir/$name.norm" >"$bdir/$name.diff" 2>&1 || ok=0
        if grep -q "$kind-stdout" "$src"; then
            sed -e "${STDOUT_EXPECT:-}" "$dir/$name.stdout" >"$bdir/$name.stdout"
            diff -u "$bdir/$name.stdout" "$bdir/$name.out" >>"$bdir/$name.diff" 2>&1 || ok=0
        fi
        want_status=$(directive $kind status "$src")
        [ "$status" = "${want_status:-0}" ] ||
            { echo "exit status $status, expected ${want_status:-0}" >>"$bdir/$name.diff"; ok=0; }
        if [ $ok = 1 ]; then passed "$p/$label$name"; else failed "$p/$label$name" "$bdir/$name.diff"; fi
    done
    # Windows: memtrack.h also in MSVC's dialect, no GNU extension needed: clang in MSVC
    # mode with neither __GNUC__ nor __clang__ defined, the CRT's declarations standing in
    # from msvc/, and mingw-w64's gcc as strict ISO C.
    if [ "$p" = windows ]; then
        log="$out/msvc_header.log"
        : >"$log"
        ok=1
        for std in c99 c11; do
            clang --target=x86_64-pc-windows-msvc -fms-compatibility -fsyntax-only -std=$std \
                -Werror -Wall -Wextra -pedantic -Wno-builtin-macro-redefined -U__clang__ \
                -nostdlibinc -isystem "$here/msvc" -DMEMORY_CONTROL_ON -I"$top/include" \
                "$here/msvc/use.c" >>"$log" 2>&1 || ok=0
            $CC -std=$std -pedantic-errors -Wall -Wextra -Werror -fsyntax-only \
                -DMEMORY_CONTROL_ON -I"$top/include" "$here/msvc/use.c" >>"$log" 2>&1 || ok=0
        done
        if [ $ok = 1 ]; then passed "$p/msvc_header"; else failed "$p/msvc_header" "$log"; fi
    fi
done
summary platforms
