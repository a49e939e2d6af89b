# stack_wrappers.sh - a leak made inside allocation wrappers is headlined at the program's line
# that called the outermost one, whatever the chain, the compiler and the -O level, and the
# same in every process (issue 26):
# - db: a database-shaped chain of three wrappers ending in tail calls (wrappers/db.c, in the
#   manner of SQLite's), built at -O0 and -O2 with gcc and clang as `memtrack cc` builds, run
#   twice, the second time with more functions calling the allocator: the three leaks of
#   wrappers/app.c are three groups headlined at its three lines, and every build and run
#   lists them alike (line for line; the rule never asks how many callers a run saw).
# - interp: an interpreter's l_alloc (as Lua's), whose realloc is a jump at -O2, leaving no
#   frame: its objects' leaks are headlined at the interpreter's functions that called it.
# - inline_named: option alloc_fn names a wrapper the compiler inlined into its callers: each
#   leak is headlined at its own caller's line (one caller further would be main, thrice).
# Without the rule (wrappers=0) the db's leaks are all headlined at mem_malloc's line: the
# control that shows what the rule changes.
set -u
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
status=0
dir="$OUT/stack_wrappers"
rm -rf "$dir"
mkdir -p "$dir"

# leaks FILE: the leak list (each site and its stack), without the sizes' alignment
leaks() { sed -n 's/^memtrack:  *\([0-9]* bytes in .*\)$/\1/p; s/^memtrack:  *\(from .*\|inlined into .*\)$/  \1/p' "$1"; }

check() { # check NAME FILE EXPECTED-TEXT
    if [ "$(leaks "$2")" = "$3" ]; then
        echo "ok   $1"
    else
        echo "FAIL $1"; diff <(echo "$3") <(leaks "$2"); cat "$2"; status=1
    fi
}

db_leaks="4104 bytes in 1 block at app.c:22 in warm_cache() by malloc: #3
  from app.c:48 in main()
264 bytes in 1 block at app.c:17 in open_table() by malloc: #2
  from app.c:47 in main()
14 bytes in 1 block at app.c:16 in open_table() by malloc: #1
  from app.c:47 in main()"
interp_leaks="48 bytes in 1 block at interp.c:54 in new_table() by realloc: #2
  from interp.c:77 in main()
48 bytes in 1 block at interp.c:61 in new_closure() by realloc: #3
  from interp.c:78 in main()
22 bytes in 1 block at interp.c:47 in new_string() by realloc: #1
  from interp.c:76 in main()"
named_leaks="100 bytes in 1 block at inline_named.c:21 in load_level() by malloc: #1
  from inline_named.c:37 in main()
40 bytes in 1 block at inline_named.c:26 in spawn_player() by malloc: #2
  from inline_named.c:38 in main()
20 bytes in 1 block at inline_named.c:31 in start_sound() by malloc: #3
  from inline_named.c:39 in main()"

for compiler in gcc clang; do
    command -v $compiler >/dev/null 2>&1 || { echo "missing $compiler"; status=1; continue; }
    for opt in -O0 -O2; do
        name="$compiler$opt"
        mkdir -p "$dir/$name"
        if ! (cd wrappers && MEMTRACK_CC=$compiler "$M" cc -g $opt db.c app.c -o "$dir/$name/app" &&
            MEMTRACK_CC=$compiler "$M" cc -g $opt interp.c -o "$dir/$name/interp" &&
            MEMTRACK_CC=$compiler "$M" cc -g $opt inline_named.c -o "$dir/$name/inline_named") \
            >"$dir/$name.build" 2>&1; then
            echo "FAIL $name: build"; cat "$dir/$name.build"; status=1; continue
        fi
        (cd "$dir/$name" && ./app >/dev/null 2>app.err && ./app 50 >/dev/null 2>app-50.err &&
            ./interp >/dev/null 2>interp.err &&
            MEMTRACK_OPTIONS=alloc_fn=xalloc ./inline_named >/dev/null 2>inline_named.err &&
            MEMTRACK_OPTIONS=wrappers=0 ./app >/dev/null 2>app-norule.err)
        check "$name db" "$dir/$name/app.err" "$db_leaks"
        check "$name db, more callers" "$dir/$name/app-50.err" "$db_leaks"
        check "$name interp" "$dir/$name/interp.err" "$interp_leaks"
        check "$name inline_named" "$dir/$name/inline_named.err" "$named_leaks"
        if [ "$(leaks "$dir/$name/app-norule.err" | grep -c '^[0-9].* at db.c:[0-9]* in mem_malloc()')" = 3 ]; then
            echo "ok   $name db, wrappers=0"
        else
            echo "FAIL $name db, wrappers=0"; cat "$dir/$name/app-norule.err"; status=1
        fi
    done
done
exit $status
