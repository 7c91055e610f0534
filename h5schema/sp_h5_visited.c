/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_visited.c - objects already seen while walking a file (a group that
 * links back to itself must not make a reader loop).
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

/* ------------------------------------------------------ visited objects */

/* An object's identity in its file: 16 bytes (file number and address in
 * HDF5 1.10, the object token from 1.12 on). */
static int object_key(hid_t obj, unsigned char key[16])
{
    memset(key, 0, 16);
#if H5_VERSION_GE(1, 12, 0)
    H5O_info2_t info;
    if (H5Oget_info3(obj, &info, H5O_INFO_BASIC) < 0)
        return -1;
    memcpy(key, &info.token, sizeof info.token < 16 ? sizeof info.token : 16);
#else
    H5O_info_t info;
    if (H5Oget_info2(obj, &info, H5O_INFO_BASIC) < 0)
        return -1;
    uint64_t fileno = (uint64_t)info.fileno, addr = (uint64_t)info.addr;
    memcpy(key, &fileno, 8);
    memcpy(key + 8, &addr, 8);
#endif
    return 0;
}

static size_t key_hash(const unsigned char key[16])
{
    uint64_t a, b;
    memcpy(&a, key, 8);
    memcpy(&b, key + 8, 8);
    uint64_t h = (a * 0x9E3779B97F4A7C15ull) ^ (b + 0x632BE59BD9B4E019ull);
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    return (size_t)(h ^ (h >> 32));
}

int sp__h5_visit(const char *file, sp__h5_visited *v, hid_t obj, bool *seen)
{
    unsigned char key[16];
    *seen = false;
    if (object_key(obj, key) < 0)
        return sp__h5_error(SP_EFORMAT, "%s: cannot identify an object", file);
    if (2 * (v->n + 1) > v->cap) { /* grow: keep at most half full */
        size_t cap = v->cap ? 2 * v->cap : 64;
        int rc = sp__read_charge_n("the objects visited", cap, 17);
        if (rc < 0)
            return rc;
        unsigned char(*keys)[16] = calloc(cap, sizeof *keys);
        bool *used = calloc(cap, sizeof *used);
        if (!keys || !used) {
            free(keys);
            free(used);
            return sp__error(SP_ENOMEM, "%s: out of memory", file);
        }
        for (size_t i = 0; i < v->cap; i++) {
            if (!v->used[i])
                continue;
            size_t j = key_hash(v->keys[i]) & (cap - 1);
            while (used[j])
                j = (j + 1) & (cap - 1);
            memcpy(keys[j], v->keys[i], 16);
            used[j] = true;
        }
        free(v->keys);
        free(v->used);
        v->keys = keys;
        v->used = used;
        v->cap = cap;
    }
    size_t j = key_hash(key) & (v->cap - 1);
    for (; v->used[j]; j = (j + 1) & (v->cap - 1))
        if (memcmp(v->keys[j], key, 16) == 0) {
            *seen = true;
            return 0;
        }
    memcpy(v->keys[j], key, 16);
    v->used[j] = true;
    v->n++;
    return 0;
}

void sp__h5_visited_free(sp__h5_visited *v)
{
    free(v->keys);
    free(v->used);
    memset(v, 0, sizeof *v);
}

