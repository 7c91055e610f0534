/* SPDX-License-Identifier: MIT */
/*
 * raw_read_floor.c - the practical floor of reading a v2 run: plain libhdf5
 * reads every rank's blocks/ and events/ columns in 4M-event slices and a
 * stack replay turns them into per-region call counts and total ticks. No
 * checks, no names, no tree, no histograms: what any reader of the format
 * must at least do. bench_read.sh divides each verb's time by this one's.
 *
 *   raw_read_floor RUN.h5          prints "raw read: N calls in S s"
 *   raw_read_floor --every RUN.h5  also reads every other dataset of each
 *       rank's group (its region and thread tables, clock, dropped calls,
 *       blocks/begins, sched/, lines/, counters/, mpi/: each opened, read
 *       whole in slices and closed; attributes not): the raw read of the
 *       rank groups, the other floor issue 18 was measured against (a run
 *       of many small ranks is mostly opening objects)
 */
#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SLICE ((hsize_t)1 << 22)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *read_col(hid_t g, const char *name, hid_t type, size_t width, hsize_t *n)
{
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT), s = H5Dget_space(d);
    *n = 0; /* a table it cannot open (a part still open for writing): no rows */
    if (H5Sget_simple_extent_dims(s, n, NULL) < 0)
        *n = 0;
    void *buf = malloc(*n ? *n * width : 1);
    if (*n)
        H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    H5Sclose(s);
    H5Dclose(d);
    return buf;
}

/* Whether values of type own heap memory (variable-length strings of
 * lines/ and counters/): read, they are reclaimed. */
static int owns_heap(hid_t type)
{
    return H5Tdetect_class(type, H5T_VLEN) > 0 ||
           (H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) > 0);
}

static void read_slice(hid_t d, hid_t type, hsize_t off, hsize_t n, void *buf)
{
    hid_t fs = H5Dget_space(d), ms = H5Screate_simple(1, &n, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &off, NULL, &n, NULL);
    H5Dread(d, type, ms, fs, H5P_DEFAULT, buf);
    if (owns_heap(type))
        H5Dvlen_reclaim(type, ms, H5P_DEFAULT, buf);
    H5Sclose(ms);
    H5Sclose(fs);
}

/* --every: a dataset read whole, in slices of SLICE rows (a 1-D table;
 * any other shape at once), as its native type. */
static herr_t read_every_dataset(hid_t d)
{
    hid_t ft = H5Dget_type(d), mt = H5Tget_native_type(ft, H5T_DIR_DEFAULT), s = H5Dget_space(d);
    int nd = H5Sget_simple_extent_ndims(s);
    hssize_t np = H5Sget_simple_extent_npoints(s);
    size_t w = H5Tget_size(mt);
    if (nd == 1 && np > 0) {
        hsize_t n = (hsize_t)np, step = n < SLICE ? n : SLICE;
        void *buf = malloc(step * w);
        for (hsize_t off = 0; buf && off < n; off += step)
            read_slice(d, mt, off, n - off < step ? n - off : step, buf);
        free(buf);
    } else if (np > 0) {
        void *buf = malloc((size_t)np * w);
        if (buf && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0 && owns_heap(mt))
            H5Dvlen_reclaim(mt, s, H5P_DEFAULT, buf);
        free(buf);
    }
    H5Sclose(s);
    H5Tclose(mt);
    H5Tclose(ft);
    return 0;
}

/* --every: each object under a group opened once (H5Oopen: no second
 * lookup for its type), groups recursed into, datasets read; what the
 * floor read already (blocks/, events/, regions/name_end) is skipped. ud:
 * the group's depth (0: the rank's group) and name. */
typedef struct where {
    int depth;
    const char *name;
} where;

static herr_t every_object(hid_t g, const char *name, const H5L_info_t *li, void *ud)
{
    const where *at = ud;
    if (li->type != H5L_TYPE_HARD ||
        (at->depth == 0 && (strcmp(name, "blocks") == 0 || strcmp(name, "events") == 0)) ||
        (at->depth == 1 && strcmp(at->name, "regions") == 0 && strcmp(name, "name_end") == 0))
        return 0;
    hid_t o = H5Oopen(g, name, H5P_DEFAULT);
    if (o < 0)
        return 0;
    where in = {at->depth + 1, name};
    if (H5Iget_type(o) == H5I_GROUP)
        H5Literate(o, H5_INDEX_NAME, H5_ITER_NATIVE, NULL, every_object, &in);
    else if (H5Iget_type(o) == H5I_DATASET)
        read_every_dataset(o);
    H5Oclose(o);
    return 0;
}

int main(int argc, char **argv)
{
    int every = argc == 3 && strcmp(argv[1], "--every") == 0;
    if (argc != 2 + every) {
        fprintf(stderr, "usage: raw_read_floor [--every] RUN.h5\n");
        return 2;
    }
    double t0 = now();
    hid_t f = H5Fopen(argv[1 + every], H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, H5P_DEFAULT);
    if (f < 0)
        return 1;
    int64_t nranks = 0;
    hid_t a = H5Aopen(f, "num_ranks", H5P_DEFAULT);
    H5Aread(a, H5T_NATIVE_INT64, &nranks);
    H5Aclose(a);
    uint64_t calls = 0;
    uint32_t *dt = malloc(SLICE * sizeof *dt);
    int32_t *reg = malloc(SLICE * sizeof *reg);
    for (int64_t r = 0; r < nranks; r++) {
        char name[64];
        snprintf(name, sizeof name, "rank%lld", (long long)r);
        hid_t rg = H5Gopen2(f, name, H5P_DEFAULT);
        hid_t gb = H5Gopen2(rg, "blocks", H5P_DEFAULT), ge = H5Gopen2(rg, "events", H5P_DEFAULT);
        hsize_t k, kt, nr;
        uint32_t *bev = read_col(gb, "events", H5T_NATIVE_UINT32, 4, &k);
        int32_t *bth = read_col(gb, "thread", H5T_NATIVE_INT32, 4, &kt);
        int64_t *bt0 = read_col(gb, "t0", H5T_NATIVE_INT64, 8, &kt);
        free(read_col(rg, "regions/name_end", H5T_NATIVE_UINT64, 8, &nr));
        int32_t maxthr = 0;
        for (hsize_t b = 0; b < k; b++)
            maxthr = bth[b] > maxthr ? bth[b] : maxthr;
        /* per thread: a stack of (region, start) */
        size_t nt = (size_t)maxthr + 1;
        int64_t **st_start = calloc(nt, sizeof *st_start);
        int32_t **st_reg = calloc(nt, sizeof *st_reg);
        size_t *depth = calloc(nt, sizeof *depth);
        for (size_t t = 0; t < nt; t++) {
            st_start[t] = malloc(4096 * sizeof **st_start);
            st_reg[t] = malloc(4096 * sizeof **st_reg);
        }
        uint64_t *cnt = calloc(nr + 1, sizeof *cnt);
        int64_t *tot = calloc(nr + 1, sizeof *tot);
        hid_t ddt = H5Dopen2(ge, "dt", H5P_DEFAULT), dreg = H5Dopen2(ge, "region", H5P_DEFAULT);
        hsize_t row = 0;
        for (hsize_t b = 0; b < k;) {
            hsize_t first = b, n = 0;
            while (b < k && n + bev[b] <= SLICE)
                n += bev[b++];
            read_slice(ddt, H5T_NATIVE_UINT32, row, n, dt);
            read_slice(dreg, H5T_NATIVE_INT32, row, n, reg);
            size_t at = 0;
            for (hsize_t i = first; i < b; i++) {
                int32_t th = bth[i];
                int64_t t = bt0[i];
                for (uint32_t e = 0; e < bev[i]; e++, at++) {
                    if (e)
                        t += dt[at];
                    if (reg[at] >= 0 && depth[th] < 4096) {
                        st_reg[th][depth[th]] = reg[at];
                        st_start[th][depth[th]++] = t;
                    } else if (reg[at] < 0 && depth[th]) {
                        size_t d = --depth[th];
                        cnt[st_reg[th][d]]++;
                        tot[st_reg[th][d]] += t - st_start[th][d];
                    }
                }
            }
            row += n;
        }
        for (hsize_t g = 0; g < nr; g++)
            calls += cnt[g];
        H5Dclose(ddt);
        H5Dclose(dreg);
        for (size_t t = 0; t < nt; t++) {
            free(st_start[t]);
            free(st_reg[t]);
        }
        free(st_start);
        free(st_reg);
        free(depth);
        free(cnt);
        free(tot);
        free(bev);
        free(bth);
        free(bt0);
        H5Gclose(gb);
        H5Gclose(ge);
        if (every) {
            where top = {0, name};
            H5Literate(rg, H5_INDEX_NAME, H5_ITER_NATIVE, NULL, every_object, &top);
        }
        H5Gclose(rg);
    }
    H5Fclose(f);
    free(dt);
    free(reg);
    printf("raw read%s: %llu calls in %.3f s\n", every ? " (every dataset)" : "",
           (unsigned long long)calls, now() - t0);
    return 0;
}
