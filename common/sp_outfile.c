/* SPDX-License-Identifier: MIT */
/* sp_outfile.c - exclusive temporary files renamed into place. */
#define _GNU_SOURCE /* mkostemp */
#include "sp_outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sp_error.h"

int sp_outfile_open(sp_outfile *o, const char *path)
{
    memset(o, 0, sizeof *o);
    if (!path || !*path)
        return sp__error(SP_EINVAL, "no output file name given");
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
        if (S_ISDIR(st.st_mode))
            return sp__error(SP_EIO, "cannot write '%s': it is a directory", path);
        /* A device, FIFO or socket: write to it, never replace it. */
        int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (!f) {
            int rc = sp__error(SP_EIO, "cannot write '%s': %s", path, strerror(errno));
            if (fd >= 0)
                close(fd);
            return rc;
        }
        o->f = f;
        o->path = strdup(path);
        if (!o->path) {
            fclose(f);
            o->f = NULL;
            return sp__error(SP_ENOMEM, "out of memory");
        }
        return 0;
    }
    size_t len = strlen(path);
    o->path = strdup(path);
    o->tmp = malloc(len + sizeof ".tmp.XXXXXX");
    if (!o->path || !o->tmp) {
        free(o->path);
        free(o->tmp);
        memset(o, 0, sizeof *o);
        return sp__error(SP_ENOMEM, "out of memory");
    }
    memcpy(o->tmp, path, len);
    memcpy(o->tmp + len, ".tmp.XXXXXX", sizeof ".tmp.XXXXXX");
    /* mkstemp: O_CREAT | O_EXCL, mode 0600, a name no one can predict. */
    int fd = mkostemp(o->tmp, O_CLOEXEC);
    if (fd < 0) {
        int rc = sp__error(SP_EIO, "cannot write '%s': %s", path, strerror(errno));
        free(o->path);
        free(o->tmp);
        memset(o, 0, sizeof *o);
        return rc;
    }
    /* An ordinary document: the permissions the umask gives a new file. */
    mode_t um = umask(022);
    umask(um);
    (void)fchmod(fd, 0666 & ~um); /* not fatal: the owner can still read it */
    o->f = fdopen(fd, "w");
    if (!o->f) {
        int rc = sp__error(SP_EIO, "cannot write '%s': %s", path, strerror(errno));
        close(fd);
        unlink(o->tmp);
        free(o->path);
        free(o->tmp);
        memset(o, 0, sizeof *o);
        return rc;
    }
    return 0;
}

int sp_outfile_close(sp_outfile *o, bool ok)
{
    if (!o->f)
        return 0;
    int rc = 0;
    bool failed = fflush(o->f) != 0 || ferror(o->f) != 0;
    int saved = failed ? errno : 0;
    if (fclose(o->f) != 0 && !failed) {
        failed = true;
        saved = errno;
    }
    if (ok && failed)
        rc = sp__error(SP_EIO, "cannot write '%s': %s", o->path,
                       strerror(saved ? saved : EIO));
    if (o->tmp) {
        if (ok && !failed && rename(o->tmp, o->path) != 0)
            rc = sp__error(SP_EIO, "cannot write '%s': %s", o->path, strerror(errno));
        if (!ok || rc)
            unlink(o->tmp);
    }
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof *o);
    return rc;
}
