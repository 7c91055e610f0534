/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_read_budget.c - how much reading one file may take (the read limit and
 * the per-thread budget every reader charges before it allocates), part of
 * reading a file without trusting it (sp_h5_internal.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sp_error.h"
#include "sp_h5_internal.h"

/* ------------------------------------------------------------ read budget */

/* The read in progress on this thread (sp_h5_read() sets it); NULL outside a
 * read, and then nothing is charged and only the file-size checks that need
 * no budget apply. */
static _Thread_local sp__read_budget *current_budget;

int sp_h5_parse_size(const char *s, uint64_t *out)
{
    if (!s || !*s)
        return SP_EINVAL;
    if (strcmp(s, "unlimited") == 0 || strcmp(s, "none") == 0) {
        *out = UINT64_MAX;
        return 0;
    }
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !(v > 0))
        return SP_EINVAL;
    double unit = 1;
    if (*end) {
        switch (*end == 'k' ? 'K' : *end) {
        case 'K': unit = 1024.0; break;
        case 'M': unit = 1024.0 * 1024; break;
        case 'G': unit = 1024.0 * 1024 * 1024; break;
        case 'T': unit = 1024.0 * 1024 * 1024 * 1024; break;
        default: return SP_EINVAL;
        }
        end++;
        if (*end == 'i')
            end++;
        if (*end == 'B')
            end++;
        if (*end)
            return SP_EINVAL;
    }
    v *= unit;
    if (v < 1024 * 1024) /* a read needs some room; refuse nonsense like "5" */
        return SP_EINVAL;
    *out = v >= 1.8e19 ? UINT64_MAX : (uint64_t)v;
    return 0;
}

uint64_t sp_h5_read_limit(void)
{
    uint64_t v;
    const char *env = getenv(SP_READ_LIMIT_ENV);
    if (env && sp_h5_parse_size(env, &v) == 0)
        return v;
    return SP_READ_LIMIT_DEFAULT;
}

void sp__h5_size_str(uint64_t bytes, char *buf, size_t len)
{
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 6)
        v /= 1024, u++;
    if (u == 0)
        snprintf(buf, len, "%" PRIu64 " bytes", bytes);
    else
        snprintf(buf, len, "%.1f %s", v, units[u]);
}

int sp__read_budget_begin(sp__read_budget *b, const char *file, int fd)
{
    struct stat st;
    memset(b, 0, sizeof *b);
    b->file = file;
    b->limit = SP_READ_LIMIT_DEFAULT;
    const char *env = getenv(SP_READ_LIMIT_ENV);
    if (env && *env && sp_h5_parse_size(env, &b->limit) != 0)
        return sp__error(SP_EINVAL,
                         "invalid %s '%s' (a size such as 512M, 8G or unlimited, at least 1M)",
                         SP_READ_LIMIT_ENV, env);
    if (fd >= 0 && fstat(fd, &st) != 0)
        return sp__error(SP_EIO, "cannot read '%s': %s", file, strerror(errno));
    b->file_size = fd >= 0 ? (uint64_t)st.st_size : UINT64_MAX;
    b->prev = current_budget;
    current_budget = b;
    return 0;
}

void sp__read_budget_end(sp__read_budget *b)
{
    if (current_budget == b)
        current_budget = b->prev;
}

sp__read_budget *sp__read_budget_current(void)
{
    return current_budget;
}

int sp__read_charge(const char *what, uint64_t bytes)
{
    sp__read_budget *b = current_budget;
    if (!b)
        return 0;
    if (bytes <= b->limit && b->used <= b->limit - bytes) {
        b->used += bytes;
        return 0;
    }
    char need[32], lim[32];
    sp__h5_size_str(bytes, need, sizeof need);
    sp__h5_size_str(b->limit, lim, sizeof lim);
    return sp__error(SP_ENOMEM,
                     "%s: %s needs %s more, over the read limit of %s (raise it with %s=SIZE, "
                     "or scope-profiler --read-limit SIZE)",
                     b->file, what, need, lim, SP_READ_LIMIT_ENV);
}

/* n * size, or UINT64_MAX when it overflows. */
int sp__read_charge_n(const char *what, uint64_t n, uint64_t size)
{
    return sp__read_charge(what, sp__mul_sat(n, size));
}

int sp__read_charge_ranks(size_t nranks, size_t nregions)
{
    sp__read_budget *b = sp__read_budget_current();
    int rc = sp__read_charge_n("its ranks x regions (statistics)", nranks,
                               sizeof(sp_rank_data) + (uint64_t)nregions * SP__H5_RANK_REGION_BYTES);
    if (rc == 0 && b)
        b->ranks_charged = true;
    return rc;
}
