/* SPDX-License-Identifier: MIT */
/*
 * test_h5_bad_files.c - every kind of bad input gives the right status code
 * and a one-line message, never a crash and never HDF5's error stack on
 * stderr. Broken files are made by writing a good one and damaging a copy
 * with the HDF5 API.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "h5test_util.h"
#include "sp_h5_internal.h"
#include "sp_test.h"

static char dir[4096];
static char good[4096]; /* the sample run, written once */

/* Read path with stderr captured; check code, one line naming the file,
 * the needle in the message, and silence on stderr. */
#define EXPECT_BAD(path, code, needle)                                         \
    do {                                                                       \
        char cap_[4096];                                                       \
        h5t_join(cap_, sizeof cap_, dir, "stderr.txt");                        \
        fflush(stderr);                                                        \
        int saved_ = dup(2);                                                   \
        int fd_ = open(cap_, O_WRONLY | O_CREAT | O_TRUNC, 0644);              \
        dup2(fd_, 2);                                                          \
        close(fd_);                                                            \
        int st_ = 12345;                                                       \
        sp_run *run_ = sp_h5_read((path), &st_);                               \
        fflush(stderr);                                                        \
        dup2(saved_, 2);                                                       \
        close(saved_);                                                         \
        const char *msg_ = sp_last_error();                                    \
        if (getenv("H5T_VERBOSE"))                                             \
            fprintf(stderr, "  [%s] %s\n", sp_strerror(st_), msg_);           \
        ASSERT_MSG(run_ == NULL, "read of a bad file succeeded");              \
        ASSERT_MSG(st_ == (code), "status %d (%s), want %d: %s", st_,          \
                   sp_strerror(st_), (code), msg_);                            \
        ASSERT_CONTAINS(msg_, needle);                                         \
        ASSERT_MSG(!strchr(msg_, '\n'), "message has several lines: %s", msg_); \
        ASSERT_MSG(strstr(msg_, (path)) != NULL, "message does not name the file: %s", msg_); \
        ASSERT_MSG(h5t_file_size(cap_) == 0, "something was printed on stderr"); \
    } while (0)

/* A damaged copy of the good file: copy it, open it with HDF5 for writing. */
static hid_t damaged_copy(const char *name, char *path, size_t size)
{
    h5t_join(path, size, dir, name);
    if (h5t_copy_file(good, path, -1) != 0)
        return H5I_INVALID_HID;
    return H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
}

/* Replace dataset `name` by a contiguous one of file type ftype holding n
 * elements of memory type mtype from data (NULL: leave it unwritten). */
static int replace_dataset(hid_t f, const char *name, hid_t ftype, hid_t mtype,
                           int ndims, const hsize_t *dims, const void *data)
{
    if (H5Lexists(f, name, H5P_DEFAULT) > 0 && H5Ldelete(f, name, H5P_DEFAULT) < 0)
        return -1;
    hid_t space = H5Screate_simple(ndims, dims, NULL);
    hid_t d = H5Dcreate2(f, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc = d >= 0 ? 0 : -1;
    if (d >= 0 && data && H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
        rc = -1;
    if (d >= 0)
        H5Dclose(d);
    H5Sclose(space);
    return rc;
}

/* Set element i of an int64/int32 dataset. */
static int poke(hid_t f, const char *name, size_t i, int64_t value)
{
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    if (d < 0)
        return -1;
    hid_t space = H5Dget_space(d);
    hsize_t start[1] = {i}, count[1] = {1};
    hid_t mem = H5Screate_simple(1, count, NULL);
    int rc = H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
                     H5Dwrite(d, H5T_NATIVE_INT64, mem, space, H5P_DEFAULT, &value) >= 0
                 ? 0
                 : -1;
    H5Sclose(mem);
    H5Sclose(space);
    H5Dclose(d);
    return rc;
}

static int set_int_attr(hid_t loc, const char *obj, const char *name, int64_t value)
{
    /* Through an open object: H5Aopen_by_name() then H5Awrite() fails on
     * HDF5 1.10 for attributes of a group that is not open. */
    hid_t o = H5Oopen(loc, obj, H5P_DEFAULT);
    hid_t a = o >= 0 ? H5Aopen(o, name, H5P_DEFAULT) : H5I_INVALID_HID;
    int rc = a >= 0 && H5Awrite(a, H5T_NATIVE_INT64, &value) >= 0 ? 0 : -1;
    if (a >= 0)
        H5Aclose(a);
    if (o >= 0)
        H5Oclose(o);
    return rc;
}

static void test_missing_file(void)
{
    char path[4096];
    h5t_join(path, sizeof path, dir, "no-such-file.h5");
    EXPECT_BAD(path, SP_ENOENT, "No such file");
    h5t_join(path, sizeof path, dir, "no-such-dir/run.h5");
    EXPECT_BAD(path, SP_ENOENT, "No such file");
}

static void test_not_hdf5(void)
{
    char path[4096];
    h5t_join(path, sizeof path, dir, "empty.h5");
    ASSERT(h5t_write_text(path, "") == 0);
    EXPECT_BAD(path, SP_EFORMAT, "empty");
    h5t_join(path, sizeof path, dir, "text.h5");
    ASSERT(h5t_write_text(path, "region,calls\nmain,1\n") == 0);
    EXPECT_BAD(path, SP_EFORMAT, "not an HDF5 file");
    h5t_join(path, sizeof path, dir, "a-directory.h5");
    ASSERT(mkdir(path, 0755) == 0);
    EXPECT_BAD(path, SP_EFORMAT, "directory");
}

static void test_truncated_file(void)
{
    char path[4096];
    long size = h5t_file_size(good);
    ASSERT(size > 2000);
    h5t_join(path, sizeof path, dir, "truncated-half.h5");
    ASSERT(h5t_copy_file(good, path, size / 2) == 0);
    EXPECT_BAD(path, SP_EFORMAT, "truncated");
    h5t_join(path, sizeof path, dir, "truncated-tail.h5");
    ASSERT(h5t_copy_file(good, path, size - 100) == 0);
    EXPECT_BAD(path, SP_EFORMAT, "truncated");
    h5t_join(path, sizeof path, dir, "truncated-head.h5");
    ASSERT(h5t_copy_file(good, path, 600) == 0);
    EXPECT_BAD(path, SP_EFORMAT, "truncated");
}

static void test_foreign_hdf5_file(void)
{
    char path[4096];
    h5t_join(path, sizeof path, dir, "foreign.h5");
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dims[1] = {3};
    int64_t v[3] = {1, 2, 3};
    ASSERT(replace_dataset(f, "temperature", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, dims, v) == 0);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "not a scope-profiler file");
}

static void test_versions(void)
{
    char path[4096];
    hid_t f = damaged_copy("vnext.h5", path, sizeof path);
    ASSERT(f >= 0 && set_int_attr(f, "/", "scope_profiler_schema", SP_SCHEMA_VERSION + 1) == 0);
    H5Fclose(f);
    char want[128];
    snprintf(want, sizeof want, "was written with schema version %d; this build reads up to version %d",
             SP_SCHEMA_VERSION + 1, SP_SCHEMA_VERSION);
    EXPECT_BAD(path, SP_EVERSION, want);

    f = damaged_copy("v0.h5", path, sizeof path);
    ASSERT(f >= 0 && set_int_attr(f, "/", "scope_profiler_schema", 0) == 0);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "versions start at 1");

    /* A version that is not an integer. */
    f = damaged_copy("vstr.h5", path, sizeof path);
    ASSERT(f >= 0 && H5Adelete(f, "scope_profiler_schema") >= 0);
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, 3);
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(f, "scope_profiler_schema", t, s, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT(a >= 0 && H5Awrite(a, t, "one") >= 0);
    H5Aclose(a);
    H5Sclose(s);
    H5Tclose(t);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "not one integer");

    /* Our num_ranks without a version. */
    f = damaged_copy("noversion.h5", path, sizeof path);
    ASSERT(f >= 0 && H5Adelete(f, "scope_profiler_schema") >= 0);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "no 'scope_profiler_schema'");
}

static void test_mismatched_columns(void)
{
    char path[4096];
    hid_t f = damaged_copy("short-end.h5", path, sizeof path);
    hsize_t dims[1] = {7};
    int64_t v[7] = {1000, 1000, 1000, 1000, 1000, 1000, 1000};
    ASSERT(f >= 0 && replace_dataset(f, "/rank0/calls/end_ns", H5T_STD_I64LE,
                                     H5T_NATIVE_INT64, 1, dims, v) == 0);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "columns have different lengths (start_ns 8, end_ns 7");

    f = damaged_copy("threads-mismatch.h5", path, sizeof path);
    ASSERT(f >= 0 && replace_dataset(f, "/rank0/threads/os_tid", H5T_STD_I64LE,
                                     H5T_NATIVE_INT64, 1, dims, v) == 0);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "different lengths (os_tid 7, name 2)");

    f = damaged_copy("dropped-mismatch.h5", path, sizeof path);
    ASSERT(f >= 0 && replace_dataset(f, "/rank1/dropped/calls", H5T_STD_U64LE,
                                     H5T_NATIVE_INT64, 1, dims, v) == 0);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "different lengths (region 2, calls 7)");
}

static void test_out_of_range_values(void)
{
    char path[4096];
    hid_t f = damaged_copy("region-range.h5", path, sizeof path);
    ASSERT(f >= 0 && poke(f, "/rank0/calls/region", 3, 99) == 0);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "region 99 out of range (the region table has 6 rows)");

    f = damaged_copy("region-negative.h5", path, sizeof path);
    ASSERT(f >= 0 && poke(f, "/rank1/calls/region", 0, -1) == 0);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "region -1 out of range");

    f = damaged_copy("thread-range.h5", path, sizeof path);
    ASSERT(f >= 0 && poke(f, "/rank0/calls/thread", 1, 5) == 0);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "thread 5 out of range");

    f = damaged_copy("parent-range.h5", path, sizeof path);
    ASSERT(f >= 0 && poke(f, "/rank0/calls/parent", 2, 1000) == 0);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "parent 1000 out of range");

    f = damaged_copy("parent-self.h5", path, sizeof path);
    ASSERT(f >= 0 && poke(f, "/rank0/calls/parent", 2, 2) == 0);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "parent 2 out of range");

    f = damaged_copy("parent-not-enclosing.h5", path, sizeof path);
    ASSERT(f >= 0 && poke(f, "/rank0/calls/parent", 3, 2) == 0);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "is not enclosed by its parent 2");

    f = damaged_copy("parent-other-thread.h5", path, sizeof path);
    ASSERT(f >= 0 && poke(f, "/rank0/calls/parent", 6, 0) == 0);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "on another thread");

    f = damaged_copy("end-before-start.h5", path, sizeof path);
    ASSERT(f >= 0 && poke(f, "/rank1/calls/end_ns", 2, 69) == 0);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "ends before it starts");

    f = damaged_copy("line-region-range.h5", path, sizeof path);
    ASSERT(f >= 0 && poke(f, "/rank0/lines/region", 1, 6) == 0);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "line row 1: region 6 out of range");

    f = damaged_copy("counter-thread-range.h5", path, sizeof path);
    ASSERT(f >= 0 && poke(f, "/rank0/counters/thread", 0, 2) == 0);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "counter row 0: thread 2 out of range");

    f = damaged_copy("lines-mismatch.h5", path, sizeof path);
    hsize_t one[1] = {1};
    int64_t ns[1] = {5};
    ASSERT(f >= 0 && replace_dataset(f, "/rank0/lines/time_ns", H5T_STD_I64LE,
                                     H5T_NATIVE_INT64, 1, one, ns) == 0);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "columns have different lengths (region 3, file 3, lineno 3, function 3, samples 3, time_ns 1)");

    f = damaged_copy("flags-too-long.h5", path, sizeof path);
    hsize_t nine[1] = {9};
    int64_t fl[9] = {0};
    ASSERT(f >= 0 && replace_dataset(f, "/region_flags", H5T_STD_I32LE, H5T_NATIVE_INT64, 1,
                                     nine, fl) == 0);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "region_flags has 9 rows for 6 regions");

    f = damaged_copy("dropped-range.h5", path, sizeof path);
    ASSERT(f >= 0 && poke(f, "/rank1/dropped/region", 0, 6) == 0);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "out of range (6 regions)");
}

static void test_wrong_structure(void)
{
    char path[4096];
    hid_t f = damaged_copy("missing-parent.h5", path, sizeof path);
    ASSERT(f >= 0 && H5Ldelete(f, "/rank1/calls/parent", H5P_DEFAULT) >= 0);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "dataset /rank1/calls/parent is missing");

    f = damaged_copy("missing-rank.h5", path, sizeof path);
    ASSERT(f >= 0 && H5Ldelete(f, "/rank2", H5P_DEFAULT) >= 0);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "group /rank2 is missing");

    f = damaged_copy("huge-num-ranks.h5", path, sizeof path);
    ASSERT(f >= 0 && set_int_attr(f, "/", "num_ranks", 1000000000000LL) == 0);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "num_ranks is 1000000000000 but / holds only");

    f = damaged_copy("rank-attr.h5", path, sizeof path);
    ASSERT(f >= 0 && set_int_attr(f, "/rank1", "rank", 7) == 0);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "/rank1: attribute 'rank' is 7");

    f = damaged_copy("missing-metadata.h5", path, sizeof path);
    ASSERT(f >= 0 && H5Ldelete(f, "/metadata", H5P_DEFAULT) >= 0);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "group /metadata is missing");

    /* Duplicate region names. */
    f = damaged_copy("dup-names.h5", path, sizeof path);
    const char *names[2] = {"solve", "solve"};
    hsize_t two[1] = {2};
    hid_t st = sp__h5_file_type(SP_ST_STR);
    ASSERT(f >= 0 && replace_dataset(f, "/region_names", st, st, 1, two, names) == 0);
    sp__h5_type_close(st);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "name 'solve' appears twice");

    /* Floating-point timestamps. */
    f = damaged_copy("float-start.h5", path, sizeof path);
    hsize_t eight[1] = {8};
    double d[8] = {0};
    ASSERT(f >= 0 && replace_dataset(f, "/rank0/calls/start_ns", H5T_IEEE_F64LE,
                                     H5T_NATIVE_DOUBLE, 1, eight, d) == 0);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "/rank0/calls/start_ns has floating-point elements, expected integer");

    /* A 2-D column. */
    f = damaged_copy("2d-region.h5", path, sizeof path);
    hsize_t d2[2] = {4, 2};
    int32_t r[8] = {0};
    ASSERT(f >= 0 && replace_dataset(f, "/rank0/calls/region", H5T_STD_I32LE,
                                     H5T_NATIVE_INT32, 2, d2, r) == 0);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "/rank0/calls/region has 2 dimensions, expected 1");

    /* A column that claims 8 elements but was never written. */
    f = damaged_copy("unwritten.h5", path, sizeof path);
    ASSERT(f >= 0 && replace_dataset(f, "/rank0/calls/parent", H5T_STD_I64LE,
                                     H5T_NATIVE_INT64, 1, eight, NULL) == 0);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "not written, or damaged");

    /* A group where a dataset belongs. */
    f = damaged_copy("group-not-dataset.h5", path, sizeof path);
    ASSERT(f >= 0 && H5Ldelete(f, "/rank0/calls/thread", H5P_DEFAULT) >= 0);
    hid_t g = H5Gcreate2(f, "/rank0/calls/thread", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT(g >= 0);
    H5Gclose(g);
    H5Fclose(f);
    EXPECT_BAD(path, SP_EFORMAT, "/rank0/calls/thread is not a dataset");
}

static void test_bad_arguments(void)
{
    int st = 0;
    ASSERT(sp_h5_read(NULL, &st) == NULL);
    ASSERT_EQ_I(st, SP_EINVAL);
    ASSERT(sp_h5_read("", NULL) == NULL); /* status may be NULL */
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s", h5t_tmpdir("bad"));
    h5t_join(good, sizeof good, dir, "good.h5");
    sp_run *run = h5t_sample_run();
    if (sp_h5_write(run, good) != 0) {
        fprintf(stderr, "cannot write %s: %s\n", good, sp_last_error());
        return 1;
    }
    sp_run_free(run);
    int st;
    run = sp_h5_read(good, &st); /* the damage below is all that is wrong */
    if (!run) {
        fprintf(stderr, "cannot read %s: %s\n", good, sp_last_error());
        return 1;
    }
    sp_run_free(run);
    RUN(test_missing_file);
    RUN(test_not_hdf5);
    RUN(test_truncated_file);
    RUN(test_foreign_hdf5_file);
    RUN(test_versions);
    RUN(test_mismatched_columns);
    RUN(test_out_of_range_values);
    RUN(test_wrong_structure);
    RUN(test_bad_arguments);
    h5t_cleanup(sp_test_failed_count);
    return sp_test_summary();
}
