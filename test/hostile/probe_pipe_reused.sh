# probe_pipe_reused.sh - where the kernel refuses process_vm_readv (seccomp, some emulators),
# memory that may not be there is read through a pipe of the tracker's own (base/probe.c). A
# program that then closes every descriptor it does not know and opens its own files (which
# get the pipe's numbers) must find nothing written into them, nor read out of them, when
# the tracker reads memory again (here: two leak scans).
set -eu
# shellcheck source=../lib/runner.sh
. "$TOP/test/lib/runner.sh"
workdir probe_pipe_reused
case "$(uname -m)" in x86_64) ;; *) echo "skip: the filter below is x86-64's"; exit 0 ;; esac
cat >prog.c <<'C'
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* process_vm_readv fails with EPERM from now on, as under a seccomp policy */
static int refuse_vm_readv(void)
{
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_readv, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof filter / sizeof filter[0], filter};
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
                   prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0
               ? 0
               : -1;
}

static char **kept;

int main(void)
{
    if (refuse_vm_readv() != 0) {
        perror("seccomp");
        return 2;
    }
    kept = malloc(sizeof *kept);
    *kept = malloc(24); /* reached through a root: read during the scan */
    (void)memtrack_check_leaks(); /* the first read through the pipe makes it */
    for (int fd = 3; fd < 64; fd++) /* a daemon closes what it does not know */
        close(fd);
    int a = open("a.db", O_RDWR | O_CREAT | O_TRUNC, 0644);
    int b = open("b.db", O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (a < 0 || b < 0 || write(a, "rows\n", 5) != 5 || lseek(a, 0, SEEK_SET) != 0)
        return 3;
    (void)memtrack_check_leaks(); /* reads memory again */
    struct stat sa, sb;
    if (fstat(a, &sa) != 0 || fstat(b, &sb) != 0)
        return 4;
    char head[6] = "";
    if (read(a, head, 5) != 5 || strcmp(head, "rows\n") != 0) {
        fprintf(stderr, "a.db was read by the tracker\n");
        return 5;
    }
    if (sa.st_size != 5 || sb.st_size != 0) {
        fprintf(stderr, "the tracker wrote into the program's files: %lld and %lld bytes\n",
                (long long)sa.st_size, (long long)sb.st_size);
        return 6;
    }
    free(*kept);
    free(kept);
    return 0;
}
C
"$M" cc -g -O0 prog.c -o prog
rc=0
./prog || rc=$?
if [ $rc = 2 ]; then # (a sandbox that allows no seccomp filter of the program's own)
    echo "skip: no seccomp filter could be installed here"
    exit 0
fi
[ $rc = 0 ]
