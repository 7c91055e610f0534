/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_read_v2_link.c - the only place a reader leaves the run file: the
 * external link /rank<N> -> "<name>.rank<N>.part":/rank<N> of a run that
 * records (or was killed). HDF5 never follows a link of ours by itself:
 * the link's value is read and checked against the one target a run may
 * have (its own part, named after the run file, in the run file's
 * directory, for that very rank), the part is opened by us (no symbolic
 * link followed, never a FIFO or device, never the run file itself) and
 * HDF5 reads it through /proc/self/fd. Anything else is refused with the
 * reason (SCHEMA.md, "What a file's content must satisfy").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sp_error.h"
#include "sp_h5_read_v2.h"

#define LINK_VALUE_MAX 4096 /* bytes of a link value we look at */

/* The run file's real directory and name (symbolic links resolved: the
 * parts lie next to the file itself). */
static int run_dir_name(const char *file, char *dir, size_t dlen, char *name, size_t nlen)
{
    char *real = realpath(file, NULL);
    const char *p = real ? real : file;
    const char *slash = strrchr(p, '/');
    int ok;
    if (slash)
        ok = snprintf(dir, dlen, "%.*s", (int)(slash - p), p) < (int)dlen &&
             snprintf(name, nlen, "%s", slash + 1) < (int)nlen;
    else
        ok = snprintf(dir, dlen, ".") < (int)dlen && snprintf(name, nlen, "%s", p) < (int)nlen;
    if (slash == p) /* a file in / */
        snprintf(dir, dlen, "/");
    free(real);
    return ok ? 0 : sp__error(SP_EFORMAT, "%s: path too long", file);
}

static const char *link_kind(H5L_type_t t)
{
    return t == H5L_TYPE_HARD ? "a group" : t == H5L_TYPE_SOFT ? "a soft link"
         : t == H5L_TYPE_EXTERNAL ? "an external link" : "a user-defined link";
}

/* The external link's target file and object, or an error. */
static int link_target(const char *file, hid_t fid, const char *name, const H5L_info_t *li,
                       char *tfile, size_t tflen, char *tobj, size_t tolen)
{
    size_t size = li->u.val_size;
    if (size < 3 || size > LINK_VALUE_MAX)
        return sp__error(SP_EFORMAT, "%s: /%s: external link of %zu bytes (damaged)", file,
                         name, size);
    /* Two zero bytes past the value: HDF5's unpacking runs strlen() on it. */
    char *buf = calloc(1, size + 2);
    if (!buf)
        return sp__error(SP_ENOMEM, "%s: out of memory", file);
    unsigned flags;
    const char *f = NULL, *o = NULL;
    int rc = 0;
    if (H5Lget_val(fid, name, buf, size, H5P_DEFAULT) < 0 ||
        H5Lunpack_elink_val(buf, size, &flags, &f, &o) < 0 || !f || !o)
        rc = sp__h5_error(SP_EFORMAT, "%s: /%s: unreadable external link (damaged)", file, name);
    else {
        snprintf(tfile, tflen, "%s", f);
        snprintf(tobj, tolen, "%s", o);
    }
    free(buf);
    H5Eclear2(H5E_DEFAULT);
    return rc;
}

/* The part opened by us: no symbolic link, a regular file, not the run
 * file itself. *fd = -1 and 0 when it does not exist or is empty. */
static int open_part_file(const char *file, const char *dir, const char *pname, int *fd)
{
    char path[PATH_MAX];
    struct stat st, run_st;
    *fd = -1;
    if (snprintf(path, sizeof path, "%s/%s", dir, pname) >= (int)sizeof path)
        return sp__error(SP_EFORMAT, "%s: path too long", file);
    int f = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (f < 0) {
        if (errno == ENOENT)
            return 0;
        if (errno == ELOOP)
            return sp__error(SP_EFORMAT, "%s: its part '%s' is a symbolic link: refused (a "
                             "part is read only where the run wrote it)", file, pname);
        return sp__error(SP_EIO, "%s: cannot read its part '%s': %s", file, pname,
                         strerror(errno));
    }
    const char *what = NULL;
    if (fstat(f, &st) != 0)
        what = "unreadable";
    else if (!S_ISREG(st.st_mode))
        what = S_ISDIR(st.st_mode)    ? "a directory, not a file"
             : S_ISFIFO(st.st_mode) ? "a FIFO, not a file"
             : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device, not a file"
                                                            : "a special file, not a file";
    else if (stat(file, &run_st) == 0 && run_st.st_dev == st.st_dev &&
             run_st.st_ino == st.st_ino)
        what = "the run file itself";
    if (what) {
        close(f);
        return sp__error(SP_EFORMAT, "%s: its part '%s' is %s: refused", file, pname, what);
    }
    if (st.st_size == 0) { /* created, nothing written yet: no part */
        close(f);
        return 0;
    }
    sp__read_budget *b = sp__read_budget_current();
    if (b) /* the part's storage bounds what its datasets may claim */
        b->file_size = (uint64_t)st.st_size > b->file_size || b->file_size == UINT64_MAX
                           ? (uint64_t)st.st_size
                           : b->file_size;
    *fd = f;
    return 0;
}

/* HDF5 on the part we opened: SWMR reading (a part being written or left
 * by a killed writer), else plainly. Strong close: closing the file
 * closes anything an error path left open. */
static hid_t h5_open_part(int fd)
{
    char name[64];
    snprintf(name, sizeof name, "/proc/self/fd/%d", fd);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0)
        return H5I_INVALID_HID;
    hid_t pf = H5I_INVALID_HID;
    if (H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) >= 0) {
        pf = H5Fopen(name, H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, fapl);
        if (pf < 0)
            pf = H5Fopen(name, H5F_ACC_RDONLY, fapl);
    }
    H5Pclose(fapl);
    H5Eclear2(H5E_DEFAULT);
    return pf;
}

int sp_v2_open_rank(sp_v2_read *st, hid_t fid, size_t r, sp_v2_rank_loc *loc, bool *missing)
{
    const char *file = st->file;
    char name[64], want_obj[72], dir[PATH_MAX], run_name[NAME_MAX + 1];
    char want_file[NAME_MAX + 96], tfile[LINK_VALUE_MAX + 1], tobj[LINK_VALUE_MAX + 1];
    snprintf(name, sizeof name, "%s%zu", SP_NAME(RANK_GROUP), r);
    loc->group = loc->part = H5I_INVALID_HID;
    loc->fd = -1;
    *missing = false;
    H5L_info_t li;
    if (H5Lget_info(fid, name, &li, H5P_DEFAULT) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return sp__error(SP_EFORMAT, "%s: group /%s is missing", file, name);
    }
    if (li.type == H5L_TYPE_HARD) {
        if ((loc->group = H5Gopen2(fid, name, H5P_DEFAULT)) < 0)
            return sp__h5_error(SP_EFORMAT, "%s: /%s is not a group", file, name);
        return 0;
    }
    if (li.type != H5L_TYPE_EXTERNAL)
        return sp__error(SP_EFORMAT, "%s: /%s is %s: never followed", file, name,
                         link_kind(li.type));
    if (st->complete)
        return sp__error(SP_EFORMAT, "%s: /%s is an external link, but a finished file "
                         "(complete = 1) has no links: refused", file, name);
    int rc = link_target(file, fid, name, &li, tfile, sizeof tfile, tobj, sizeof tobj);
    if (rc)
        return rc;
    if ((rc = run_dir_name(file, dir, sizeof dir, run_name, sizeof run_name)))
        return rc;
    if (snprintf(want_file, sizeof want_file, "%s.%s%zu.part", run_name, SP_NAME(RANK_GROUP),
                 r) >= (int)sizeof want_file)
        return sp__error(SP_EFORMAT, "%s: path too long", file);
    snprintf(want_obj, sizeof want_obj, "/%s", name);
    if (strcmp(tfile, want_file) != 0 || strcmp(tobj, want_obj) != 0)
        return sp__error(SP_EFORMAT, "%s: /%s: external link refused: it points at '%s':%s, "
                         "and a run's link may only lead to its own part '%s':%s next to it",
                         file, name, tfile, tobj, want_file, want_obj);
    if ((rc = open_part_file(file, dir, want_file, &loc->fd)))
        return rc;
    if (loc->fd < 0 || (loc->part = h5_open_part(loc->fd)) < 0) {
        /* No part yet (a rank killed before it created or first flushed
         * it): a rank with no calls, named in incomplete_ranks. */
        sp_v2_close_rank(loc);
        *missing = true;
        return 0;
    }
    /* The part holds its rank's group itself: no link leads further. */
    if (H5Lget_info(loc->part, want_obj, &li, H5P_DEFAULT) < 0) {
        H5Eclear2(H5E_DEFAULT);
        rc = sp__error(SP_EFORMAT, "%s: its part %s has no group %s", file, want_file,
                       want_obj);
    } else if (li.type != H5L_TYPE_HARD) {
        rc = sp__error(SP_EFORMAT, "%s: %s: %s is %s: refused (a part holds its rank's group "
                       "itself)", file, want_file, want_obj, link_kind(li.type));
    } else if ((loc->group = H5Gopen2(loc->part, want_obj, H5P_DEFAULT)) < 0) {
        rc = sp__h5_error(SP_EFORMAT, "%s: %s: %s is not a group", file, want_file, want_obj);
    }
    if (rc)
        sp_v2_close_rank(loc);
    return rc;
}

void sp_v2_close_rank(sp_v2_rank_loc *loc)
{
    if (loc->group >= 0)
        H5Gclose(loc->group);
    if (loc->part >= 0)
        H5Fclose(loc->part);
    if (loc->fd >= 0)
        close(loc->fd);
    loc->group = loc->part = H5I_INVALID_HID;
    loc->fd = -1;
}
