# pool_engine.sh - an engine's block allocator in its own file (engine/blocks.c: size
# classes over pools, behind blocks_allocate() and blocks_free()) used by a game in
# another (engine/game.c), as a game developer builds it: every leak and error is named
# at the game's line, with the calls that led there, never at the allocator's (issue 27).
# The report must equal pool_engine.expected (UPDATE=1 rewrites it). Run again with
# page_guard=all, every object is against a guard page: the overruns and the write after
# release are named at the game's line that made the access (pool_engine_paged.expected).
set -u
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir pool_engine
here="$TOP/test/e2e"
(cd "$here/engine" && "$M" cc -g -O0 blocks.c game.c -o "$OUT/pool_engine/game") || exit 1
(cd "$here/engine" && "$OUT/pool_engine/game" >/dev/null 2>"$OUT/pool_engine/game.err")
normalize "$OUT/pool_engine" <game.err | sed "s|$here/engine/||g" >game.norm
[ "${UPDATE:-0}" = 1 ] && cp game.norm "$here/pool_engine.expected"
diff -u "$here/pool_engine.expected" game.norm || exit 1
(cd "$here/engine" && MEMTRACK_OPTIONS=page_guard=all "$OUT/pool_engine/game" >/dev/null \
    2>"$OUT/pool_engine/paged.err")
normalize "$OUT/pool_engine" <paged.err | sed "s|$here/engine/||g" >paged.norm
[ "${UPDATE:-0}" = 1 ] && cp paged.norm "$here/pool_engine_paged.expected"
diff -u "$here/pool_engine_paged.expected" paged.norm
