/* SPDX-License-Identifier: MIT */
/* sp_source.c - the source files a run names: where they may come from and
 * reading them without blocking (policy: sp_source.h). */
#define _GNU_SOURCE /* O_NOFOLLOW, O_CLOEXEC, realpath */
#include "sp_source.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sp_error.h"

static char *join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    if (!p)
        return NULL;
    memcpy(p, dir, a);
    size_t o = a;
    if (o && p[o - 1] != '/')
        p[o++] = '/';
    memcpy(p + o, name, b + 1);
    return p;
}

/* The resolved directory, or NULL when it is not an existing directory. */
static char *resolve_dir(const char *dir)
{
    if (!dir || !*dir)
        return NULL;
    char *r = realpath(dir, NULL);
    struct stat st;
    if (r && (stat(r, &st) != 0 || !S_ISDIR(st.st_mode))) {
        free(r);
        r = NULL;
    }
    return r;
}

/* Whether resolved path p is root or below it. */
static bool below(const char *p, const char *root)
{
    size_t n = strlen(root);
    if (n == 1 && root[0] == '/')
        return p[0] == '/';
    return strncmp(p, root, n) == 0 && (p[n] == '/' || p[n] == '\0');
}

static int add_root(sp_source_policy *p, char *resolved)
{
    if (!resolved)
        return 0;
    for (size_t i = 0; i < p->nroots; i++)
        if (strcmp(p->roots[i], resolved) == 0) {
            free(resolved);
            return 0;
        }
    char **r = realloc(p->roots, (p->nroots + 1) * sizeof *r);
    if (!r) {
        free(resolved);
        return sp__error(SP_ENOMEM, "out of memory");
    }
    p->roots = r;
    p->roots[p->nroots++] = resolved;
    return 0;
}

int sp_source_policy_init(sp_source_policy *p, const char *run_path, const char *working_dir,
                          const char *const *dirs, size_t ndirs)
{
    memset(p, 0, sizeof *p);
    p->max_bytes = SP_SOURCE_MAX_BYTES;
    if (working_dir && *working_dir && !(p->working_dir = strdup(working_dir)))
        return sp__error(SP_ENOMEM, "out of memory");
    /* The recorded working directory vouches for its files only when the run
     * file lies inside it: the run was saved where it was recorded. */
    char *wd = resolve_dir(working_dir);
    if (wd && run_path && strcmp(wd, "/") != 0) {
        char *file = realpath(run_path, NULL);
        char *slash = file ? strrchr(file, '/') : NULL;
        if (slash) {
            *slash = '\0';
            p->wd_trusted = below(*file ? file : "/", wd);
        }
        free(file);
    }
    int rc = 0;
    if (p->wd_trusted)
        rc = add_root(p, wd);
    else
        free(wd);
    for (size_t i = 0; i < ndirs && rc == 0; i++)
        rc = add_root(p, resolve_dir(dirs[i]));
    const char *env = getenv(SP_SOURCE_DIR_ENV);
    if (env && rc == 0) {
        char *list = strdup(env);
        if (!list)
            rc = sp__error(SP_ENOMEM, "out of memory");
        for (char *save = NULL, *d = list ? strtok_r(list, ":", &save) : NULL; d && rc == 0;
             d = strtok_r(NULL, ":", &save))
            rc = add_root(p, resolve_dir(d));
        free(list);
    }
    if (rc)
        sp_source_policy_free(p);
    return rc;
}

void sp_source_policy_free(sp_source_policy *p)
{
    for (size_t i = 0; i < p->nroots; i++)
        free(p->roots[i]);
    free(p->roots);
    free(p->working_dir);
    memset(p, 0, sizeof *p);
}

/* Reasons, most telling first: a candidate refused for a reason ranked
 * higher than "not found" explains better why nothing is shown. */
enum { R_NONE, R_NOT_FOUND, R_UNREADABLE, R_OUTSIDE, R_HIDDEN, R_SPECIAL, R_DIR, R_HUGE,
       R_BINARY, R_CHANGED, R_COUNT };
static const char *const reasons[R_COUNT] = {
    "no file name recorded",
    "not found",
    "cannot be read",
    "outside the run's working directory and the source directories (--source-dir)",
    "a hidden file or directory",
    "not a regular file (a FIFO, device or socket)",
    "a directory",
    "larger than 16 MiB",
    "not a text file",
    "changed while it was opened",
};

/* A component below root that starts with '.' (root itself may be hidden:
 * the user chose it). */
static bool hidden_below(const char *p, const char *root)
{
    size_t n = strcmp(root, "/") == 0 ? 0 : strlen(root);
    for (const char *s = p + n; *s; s++)
        if (s[0] == '/' && s[1] == '.')
            return true;
    return false;
}

/* Try one candidate path: 0 with the text, or the reason (R_*). */
static int try_read(const sp_source_policy *p, const char *cand, char **text, size_t *len)
{
    char *res = realpath(cand, NULL);
    if (!res)
        return errno == ENOENT || errno == ENOTDIR ? R_NOT_FOUND : R_UNREADABLE;
    const char *root = NULL;
    for (size_t i = 0; i < p->nroots && !root; i++)
        if (below(res, p->roots[i]))
            root = p->roots[i];
    int why = R_NONE;
    if (!root)
        why = R_OUTSIDE;
    else if (hidden_below(res, root))
        why = R_HIDDEN;
    int fd = -1;
    if (why == R_NONE) {
        /* Non-blocking: opening a FIFO never waits for a writer; no link at
         * the last component (the resolved path has none, unless swapped). */
        fd = open(res, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
            why = errno == ELOOP ? R_CHANGED : errno == ENOENT ? R_NOT_FOUND : R_UNREADABLE;
    }
    struct stat st;
    if (why == R_NONE && fstat(fd, &st) != 0)
        why = R_UNREADABLE;
    if (why == R_NONE && !S_ISREG(st.st_mode))
        why = S_ISDIR(st.st_mode) ? R_DIR : R_SPECIAL;
    if (why == R_NONE && (uint64_t)st.st_size > p->max_bytes)
        why = R_HUGE;
    if (why == R_NONE) {
        /* Still the file resolved above: a directory swapped for a link
         * between realpath() and open() would show up here. */
        char proc[64], now[PATH_MAX + 1];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
        ssize_t k = readlink(proc, now, sizeof now - 1);
        if (k >= 0) {
            now[k] = '\0';
            if (strcmp(now, res) != 0)
                why = R_CHANGED;
        }
    }
    char *buf = NULL;
    size_t n = 0;
    if (why == R_NONE) {
        size_t cap = (size_t)st.st_size + 1; /* it may grow: read at most the limit */
        buf = malloc(cap + 1);
        if (!buf)
            why = R_UNREADABLE;
        while (buf && why == R_NONE) {
            ssize_t k = read(fd, buf + n, cap - n);
            if (k < 0 && errno == EINTR)
                continue;
            if (k < 0)
                why = R_UNREADABLE;
            if (k <= 0)
                break;
            n += (size_t)k;
            if (n == cap) {
                if (cap > p->max_bytes) {
                    why = R_HUGE;
                    break;
                }
                size_t ncap = cap * 2 > p->max_bytes + 1 ? p->max_bytes + 1 : cap * 2;
                char *b = realloc(buf, ncap + 1);
                if (!b) {
                    why = R_UNREADABLE;
                    break;
                }
                buf = b;
                cap = ncap;
            }
        }
        if (why == R_NONE && memchr(buf, '\0', n))
            why = R_BINARY;
    }
    if (fd >= 0)
        close(fd);
    free(res);
    if (why != R_NONE) {
        free(buf);
        return why;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return R_NONE;
}

int sp_source_read(const sp_source_policy *p, const char *recorded, char **text, size_t *len,
                   const char **why)
{
    *text = NULL;
    *len = 0;
    *why = reasons[R_NONE];
    if (!recorded || !*recorded)
        return SP_ENOENT;
    int best = R_NONE;
    /* Candidates: an absolute name as it is; a relative one below the
     * recorded working directory, then below each root. */
    size_t ncand = recorded[0] == '/' ? 1 : 1 + p->nroots;
    for (size_t i = 0; i < ncand; i++) {
        char *cand;
        if (recorded[0] == '/')
            cand = strdup(recorded);
        else if (i == 0)
            cand = p->working_dir ? join(p->working_dir, recorded) : NULL;
        else
            cand = join(p->roots[i - 1], recorded);
        if (!cand)
            continue;
        int r = try_read(p, cand, text, len);
        free(cand);
        if (r == R_NONE)
            return 0;
        if (r > best)
            best = r;
    }
    if (best == R_NONE)
        best = R_NOT_FOUND;
    *why = reasons[best];
    return best == R_NOT_FOUND ? SP_ENOENT : SP_EINVAL;
}
