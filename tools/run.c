/* run.c - the step of `memtrack run` that runs the program.
 *
 *   memtrack-report --run PIDFILE SCRIPT -- PROG ARGS...
 *
 * The memtrack script execs this in its own process, so the process a user or a CI job sends
 * SIGTERM, SIGINT, SIGHUP or SIGQUIT to (`kill` of memtrack run) is this one: it forwards the
 * signal to the program and goes on waiting. A signal from the terminal (Ctrl-C) reaches the
 * program itself, as the whole foreground group gets it, so it is not sent twice. The program
 * inherits the signal dispositions memtrack run had (handlers are installed here only after
 * the fork), its environment less the MEMTRACK_RUN_* variables, with MEMTRACK_OPTIONS and,
 * for --preload, LD_PRELOAD set. When it has ended, this process becomes SCRIPT's finishing
 * step (`SCRIPT __run-finish`) with MEMTRACK_RUN_STATUS: its exit status, or 128 + N when
 * signal N ended it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run.h"

static volatile pid_t child;

static void forward(int sig, siginfo_t *info, void *ctx)
{
    (void)ctx;
    /* sent by a process (kill), not by the terminal, which signals the program too */
    if (child > 0 && (info == NULL || info->si_code <= 0 || info->si_code == SI_TKILL))
        (void)kill(child, sig);
}

static void run_child(char **prog)
{
    const char *options = getenv("MEMTRACK_RUN_OPTIONS");
    const char *preload = getenv("MEMTRACK_RUN_PRELOAD");
    const char *track_named = getenv("MEMTRACK_RUN_TRACK_NAMED");
    if (options != NULL && track_named != NULL && strcmp(track_named, "1") == 0) {
        /* --preload without --track or --follow-all: this process, the program named, is
         * tracked whatever its executable (a script's is its interpreter's). */
        char with_pid[8192];
        snprintf(with_pid, sizeof with_pid, "%s:track_pid=%ld", options, (long)getpid());
        setenv("MEMTRACK_OPTIONS", with_pid, 1);
    } else if (options != NULL) {
        setenv("MEMTRACK_OPTIONS", options, 1);
    }
    if (preload != NULL && preload[0] != '\0')
        setenv("LD_PRELOAD", preload, 1);
    static const char *const ours[] = {"MEMTRACK_RUN_TMP",      "MEMTRACK_RUN_JSON",
                                       "MEMTRACK_RUN_SARIF",    "MEMTRACK_RUN_HTML",
                                       "MEMTRACK_RUN_EXITCODE", "MEMTRACK_RUN_PRELOAD_MODE",
                                       "MEMTRACK_RUN_PROGRAM",  "MEMTRACK_RUN_OPTIONS",
                                       "MEMTRACK_RUN_PRELOAD",  "MEMTRACK_RUN_TRACK_NAMED"};
    for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++)
        unsetenv(ours[i]);
    execvp(prog[0], prog);
    fprintf(stderr, "memtrack: run: %s: %s\n", prog[0], strerror(errno));
    _exit(127);
}

int tool_run(int argc, char **argv)
{
    if (argc < 5 || strcmp(argv[4], "--") != 0 || argc < 6) {
        fprintf(stderr, "memtrack: run: usage: --run PIDFILE SCRIPT -- PROG ARGS...\n");
        return 2;
    }
    const char *pidfile = argv[2], *script = argv[3];
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "memtrack: run: cannot start %s: %s\n", argv[5], strerror(errno));
        return 2;
    }
    if (pid == 0)
        run_child(argv + 5);
    child = pid;
    static const int forwarded[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = forward;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++)
        (void)sigaction(forwarded[i], &sa, NULL);

    FILE *f = fopen(pidfile, "w");
    if (f != NULL) {
        fprintf(f, "%ld\n", (long)pid);
        fclose(f);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    int code = WIFEXITED(status)     ? WEXITSTATUS(status)
               : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                                     : 2;
    char text[16];
    snprintf(text, sizeof text, "%d", code);
    setenv("MEMTRACK_RUN_STATUS", text, 1);
    execl(script, script, "__run-finish", (char *)NULL);
    fprintf(stderr, "memtrack: run: cannot finish with %s: %s\n", script, strerror(errno));
    return code != 0 ? code : 2;
}
