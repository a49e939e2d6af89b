/* out_file.c - the files the report tool writes (out_file.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "out_file.h"

bool out_file_open(mt_buf_t *b, const char *path, const char *who)
{
    int fd = strcmp(path, "-") == 0
                 ? STDOUT_FILENO
                 : open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
        fprintf(stderr, "%s: cannot write %s: %s\n", who, path,
                errno == ELOOP ? "it is a symbolic link, which memtrack does not follow"
                               : strerror(errno));
        return false;
    }
    mt_buf_init(b, fd);
    return true;
}

bool out_file_close(mt_buf_t *b, const char *path, const char *who)
{
    mt_buf_flush(b);
    int err = b->error;
    if (b->fd != STDOUT_FILENO && close(b->fd) != 0 && err == 0)
        err = errno;
    if (err != 0)
        fprintf(stderr, "%s: cannot write %s: %s\n", who, path, strerror(err));
    return err == 0;
}
