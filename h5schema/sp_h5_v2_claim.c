/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_v2_claim.c - one run per path (issue 22, P4): a part being written
 * is never removed or replaced by another run. Before, a second sp_setup on
 * the same file_path (another process, a fork child, another MPI job)
 * deleted the first run's part while it wrote; the first lost every call.
 *
 * A live run holds a lock on each of its parts: a read lock on one byte far
 * past any data (SP_V2_LIVE_BYTE), taken through a descriptor of its own
 * that stays open from the part's creation until the run has removed the
 * part (finalize) or the process ends. Open file description locks
 * (F_OFD_SETLK, Linux >= 3.15): they belong to that descriptor, so HDF5
 * opening and closing the same file in the process never drops them (a
 * classic fcntl lock would go at any close of the file by the process), a
 * fork child sharing the descriptor does not make a second owner, and they
 * are released by the kernel when the process dies, however it dies. They
 * never touch HDF5's own flock() of the file (independent on Linux; on NFS,
 * where flock is emulated with whole-file fcntl locks, a read lock still
 * lets readers in). Where the kernel has no OFD locks, classic fcntl locks
 * (per process) serve.
 *
 * The lock exists before the part has its name: the part is created and
 * locked under a temporary name, then linked to its name (link(2) fails if
 * the name exists: the claim is atomic) and the temporary removed. So a
 * part at its name without a lock is stale (its run is dead, or wrote it
 * before this rule), and can be removed: by whoever takes a write lock on
 * it (only possible while nobody holds any lock: one remover at a time,
 * never a live part), checks the name still refers to that file, and
 * unlinks it. A name that is a symbolic link or not a regular file is not
 * a part: the name is removed (unlink removes a link, never its target).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sp_error.h"
#include "sp_h5_v2.h"

#define SP_V2_LIVE_BYTE ((off_t)1 << 62)
/* Temporaries of parts cleaned per call at most (each is a death in the
 * instant between creating a part and naming it: rare). */
#define SP_V2_PART_TMPS_MAX 16

/* fcntl on the live byte: F_OFD_* where the kernel has them, else the
 * classic command. Returns 0 or -1 (errno). */
static int live_fcntl(int fd, bool get, short type, short *held)
{
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    fl.l_start = SP_V2_LIVE_BYTE;
    fl.l_len = 1;
    int rc = fcntl(fd, get ? F_OFD_GETLK : F_OFD_SETLK, &fl);
    if (rc != 0 && errno == EINVAL) {
        memset(&fl, 0, sizeof fl);
        fl.l_type = type;
        fl.l_whence = SEEK_SET;
        fl.l_start = SP_V2_LIVE_BYTE;
        fl.l_len = 1;
        rc = fcntl(fd, get ? F_GETLK : F_SETLK, &fl);
    }
    if (rc == 0 && held)
        *held = fl.l_type;
    return rc;
}

int sp_v2_claim_lock(int fd) { return live_fcntl(fd, false, F_RDLCK, NULL); }

/* What is at `name` (in directory dfd): */
typedef enum { PART_NONE, PART_LIVE, PART_STALE, PART_BEING_REMOVED } part_state;

/* Remove the part at name if it is stale. Returns its state before:
 * PART_STALE means it is gone now (or was never a part: a link, a FIFO). */
static part_state remove_if_stale(int dfd, const char *name)
{
    struct stat st;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return PART_NONE;
    if (!S_ISREG(st.st_mode)) /* not a part: the name goes, never its target */
        return unlinkat(dfd, name, 0) == 0 || errno == ENOENT ? PART_STALE : PART_LIVE;
    int fd = openat(dfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENOENT)
            return PART_NONE;
        /* Not ours to write: only its owner removes it. */
        return PART_LIVE;
    }
    part_state s = PART_STALE;
    short held = F_UNLCK;
    if (live_fcntl(fd, false, F_WRLCK, NULL) != 0) {
        /* Someone holds a lock: a live run (read) or a remover (write). */
        if (live_fcntl(fd, true, F_WRLCK, &held) == 0 && held == F_WRLCK)
            s = PART_BEING_REMOVED;
        else
            s = PART_LIVE;
    } else {
        /* Ours to remove, if the name still refers to this file. */
        struct stat now, mine;
        if (fstat(fd, &mine) == 0 && fstatat(dfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
            now.st_dev == mine.st_dev && now.st_ino == mine.st_ino)
            unlinkat(dfd, name, 0);
    }
    close(fd); /* releases the write lock */
    return s;
}

/* The directory of path (opened) and its last component. */
static int open_dir_of(const char *path, const char **base)
{
    const char *slash = strrchr(path, '/');
    *base = slash ? slash + 1 : path;
    if (!slash)
        return open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    char *dir = strndup(path, slash > path ? (size_t)(slash - path) : 1);
    if (!dir)
        return -1;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(dir);
    return dfd;
}

int sp_v2_claim_name(const char *tmp, const char *name, bool *busy)
{
    *busy = false;
    const char *base;
    int dfd = open_dir_of(name, &base);
    if (dfd < 0)
        return sp__error(SP_EIO, "cannot write '%s': its directory: %s", name, strerror(errno));
    int rc = 0;
    /* A remover holds the name only for a moment: wait for it a little. */
    for (int attempt = 0;; attempt++) {
        if (link(tmp, name) == 0) {
            unlink(tmp);
            break;
        }
        if (errno == EEXIST) {
            part_state s = remove_if_stale(dfd, base);
            if (s == PART_LIVE) {
                *busy = true;
                rc = sp__error(SP_EIO, "cannot write '%s': another run that is still running "
                                       "writes it", name);
                break;
            }
            if (s == PART_BEING_REMOVED && attempt < 1000) {
                const struct timespec ms = {0, 1000000};
                nanosleep(&ms, NULL);
            }
            if (attempt < 1000)
                continue;
        }
        /* A file system without hard links: claim by renaming, after the
         * same check (a race with another run starting at that instant
         * is not excluded there). */
        if ((errno == EPERM || errno == EOPNOTSUPP || errno == ENOSYS) &&
            remove_if_stale(dfd, base) != PART_LIVE && rename(tmp, name) == 0)
            break;
        rc = sp__error(SP_EIO, "cannot write '%s': cannot put it in place: %s", name,
                       strerror(errno));
        break;
    }
    close(dfd);
    return rc;
}

int sp_v2_part_live(const char *part_path)
{
    int fd = open(part_path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return 0;
    short held = F_UNLCK;
    int rc = live_fcntl(fd, true, F_WRLCK, &held);
    close(fd);
    if (rc != 0)
        return -1; /* no locks here: cannot tell */
    return held == F_RDLCK;
}

/* name is "<base>.rank<digits>.part", optionally followed by
 * ".tmp.<pid>-<host>.<random>" (*tmp set, the rest in *suffix). */
static bool part_name(const char *name, const char *base, bool *tmp, const char **suffix)
{
    size_t bl = strlen(base);
    if (strncmp(name, base, bl) != 0 || strncmp(name + bl, ".rank", 5) != 0)
        return false;
    const char *p = name + bl + 5;
    if (*p < '0' || *p > '9')
        return false;
    while (*p >= '0' && *p <= '9')
        p++;
    if (strncmp(p, ".part", 5) != 0)
        return false;
    p += 5;
    *tmp = *p != '\0';
    *suffix = p;
    return !*tmp || strncmp(p, ".tmp.", 5) == 0;
}

int sp_v2_remove_stale_parts(const char *path, const char *keep)
{
    const char *keep_base = keep ? strrchr(keep, '/') : NULL;
    keep_base = keep_base ? keep_base + 1 : keep;
    const char *base;
    int dfd = open_dir_of(path, &base);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return 0;
    }
    int removed = 0, ntmp = 0;
    char *tmps[SP_V2_PART_TMPS_MAX];
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        bool tmp;
        const char *suffix;
        struct stat st;
        if (!*base || !part_name(e->d_name, base, &tmp, &suffix) ||
            (keep_base && strcmp(e->d_name, keep_base) == 0))
            continue;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            st.st_uid != geteuid())
            continue; /* another user's */
        if (tmp) { /* a part being created, or left by a death at that moment */
            if (ntmp < SP_V2_PART_TMPS_MAX &&
                (tmps[ntmp] = strndup(e->d_name, (size_t)(suffix - e->d_name))))
                ntmp++;
            continue;
        }
        removed += remove_if_stale(dirfd(d), e->d_name) == PART_STALE;
    }
    closedir(d);
    /* Temporaries of parts: the temporaries' own rule (their process is
     * gone: sp_h5_v2_stale.c), under the part's name. */
    size_t dl = (size_t)(base - path);
    for (int i = 0; i < ntmp; i++) {
        char *part = malloc(dl + strlen(tmps[i]) + 1);
        if (part) {
            memcpy(part, path, dl);
            strcpy(part + dl, tmps[i]);
            removed += sp_v2_remove_stale_tmps(part);
        }
        free(part);
        free(tmps[i]);
    }
    return removed;
}
