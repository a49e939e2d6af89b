/* Windows only: the CRT's own names and Win32 threads. _aligned_malloc and _strdup blocks
 * leak by file and line, an _aligned_malloc block is aligned as asked and its one-byte
 * overrun is found by _aligned_free, _aligned_free of a stack address is refused, a block
 * the CRT's _aligned_malloc made for a library built without memtrack goes back to the
 * CRT through tracked _aligned_free, and two CreateThread threads each leak one block.
 * platform-targets: windows
 * platform-options: report_seqs=0
 * platform-untracked: windows-untracked.c
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

void *lib_aligned_malloc(size_t n, size_t alignment);

static DWORD WINAPI worker(LPVOID arg)
{
    (void)arg;
    (void)malloc(24); /* a leak in each thread */
    return 0;
}

int main(void)
{
    char *a = _aligned_malloc(100, 64); /* leaked */
    if ((uintptr_t)a % 64 != 0)
        return 2;
    char *s = _strdup("leaked"); /* leaked */
    if (strcmp(s, "leaked") != 0)
        return 3;
    char *b = _aligned_malloc(16, 32);
    b[16] = 'x'; /* one byte past its end */
    _aligned_free(b);
    int local = 0;
    _aligned_free(&local); /* a stack address */
    void *c = lib_aligned_malloc(40, 128); /* untracked, released by tracked code */
    _aligned_free(c);
    HANDLE t[2];
    for (int i = 0; i < 2; i++)
        t[i] = CreateThread(NULL, 0, worker, NULL, 0, NULL);
    WaitForMultipleObjects(2, t, TRUE, INFINITE);
    CloseHandle(t[0]);
    CloseHandle(t[1]);
    return 0;
}
