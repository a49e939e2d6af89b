/* libs_lua.c - a host embedding Debian's Lua 5.4 for the real-library benchmark
 * (tools/bench/libs.c): runs a script (libs_lua.lua) in a fresh state made by luaL_newstate,
 * whose allocator is lauxlib's realloc and free, and prints the checksum the script returns.
 *
 *   libs_lua SCRIPT [SCALE]
 *
 * Built plain, with `memtrack cc` (the library's blocks are tracked through the process's
 * allocator, as a user's program would have them) and with ASan.
 */
#include <stdio.h>
#include <stdlib.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: libs_lua SCRIPT [SCALE]\n");
        return 2;
    }
    lua_State *L = luaL_newstate();
    if (L == NULL)
        return 1;
    luaL_openlibs(L);
    lua_pushnumber(L, argc > 2 ? atof(argv[2]) : 1.0);
    lua_setglobal(L, "SCALE");
    if (luaL_loadfile(L, argv[1]) != LUA_OK || lua_pcall(L, 0, 1, 0) != LUA_OK) {
        fprintf(stderr, "libs_lua: %s\n", lua_tostring(L, -1));
        lua_close(L);
        return 1;
    }
    printf("check=%lld\n", (long long)lua_tointeger(L, -1));
    lua_close(L);
    return 0;
}
