/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_v2_stale.c - temporaries of the finished file that a killed run
 * left behind (issue 13: 26 of 80 kills during finalize left one).
 *
 * A temporary is named PATH.tmp.<pid>-<host>.<random> (sp_v2_tmp_name):
 * the pid and an 8-hex-digit hash of the host name of the process that
 * made it, then 64 unpredictable bits. One is stale when it was made on
 * this host by a process that no longer exists (kill(pid, 0): ESRCH). Only
 * exact matches of that pattern for this PATH, regular files (never a
 * symbolic link, never followed: fstatat AT_SYMLINK_NOFOLLOW, unlinkat
 * removes the name only), owned by this user, are removed. The parts of a
 * killed streamed run (PATH.rank<N>.part, the recoverable data the file at
 * PATH links to) never match. A pid reused by a live process keeps its
 * temporary (never removed while any process has that pid); one made on
 * another host of a shared file system is left to that host.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sp_h5_v2.h"

unsigned sp_v2_host_hash(void)
{
    char host[256] = "";
    if (gethostname(host, sizeof host) != 0)
        host[0] = '\0';
    host[sizeof host - 1] = '\0';
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const char *p = host; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return h;
}

/* n hex digits (lower case) at s. */
static bool hex_run(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
    return true;
}

/* name is "<base>.tmp.<pid>-<8 hex>.<16 hex>": its pid and host hash. */
static bool parse_tmp(const char *name, const char *base, long *pid, unsigned *host)
{
    size_t bl = strlen(base);
    if (strncmp(name, base, bl) != 0 || strncmp(name + bl, ".tmp.", 5) != 0)
        return false;
    const char *p = name + bl + 5;
    if (*p < '1' || *p > '9')
        return false;
    char *end;
    errno = 0;
    long v = strtol(p, &end, 10);
    if (errno || v <= 0 || end - p > 10 || *end != '-' || !hex_run(end + 1, 8) ||
        end[9] != '.' || !hex_run(end + 10, 16) || end[26] != '\0')
        return false;
    *pid = v;
    *host = (unsigned)strtoul(end + 1, NULL, 16);
    return true;
}

int sp_v2_remove_stale_tmps(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dl = slash ? (size_t)(slash - path) : 0;
    char *dir = slash ? strndup(path, dl ? dl : 1) : strdup(".");
    if (!dir || !*base) {
        free(dir);
        return 0;
    }
    int removed = 0;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        free(dir);
        return 0;
    }
    unsigned me = sp_v2_host_hash();
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long pid;
        unsigned host;
        struct stat st;
        if (!parse_tmp(e->d_name, base, &pid, &host) || host != me || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* alive (or not ours to ask about: EPERM means alive) */
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
            st.st_uid != geteuid())
            continue;
        if (unlinkat(dfd, e->d_name, 0) == 0)
            removed++;
    }
    closedir(d);
    free(dir);
    return removed;
}
