/* SPDX-License-Identifier: MIT */
/*
 * test_h5_roundtrip.c - writer -> reader round trips, exact dataset sizing,
 * chunking of big columns, and atomic writes (nothing half-written is ever
 * left at the target path).
 */
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "h5test_util.h"
#include "sp_h5_internal.h"
#include "sp_h5_v2_io.h"
#include "sp_test.h"

static char path_buf[4096];

static const char *in_dir(const char *dir, const char *name)
{
    return h5t_join(path_buf, sizeof path_buf, dir, name);
}

/* Write run to path, read it back, compare. */
static sp_run *roundtrip(const sp_run *run, const char *path, const char **diff)
{
    *diff = "write failed";
    if (sp_h5_write(run, path) != 0)
        return NULL;
    int st = 1;
    sp_run *back = sp_h5_read(path, &st);
    *diff = back ? h5t_runs_differ(run, back) : "read failed";
    return back;
}

static void test_sample_run_roundtrip(void)
{
    const char *dir = h5t_tmpdir("rt");
    char path[4096];
    h5t_join(path, sizeof path, dir, "sample.h5");
    sp_run *run = h5t_sample_run();
    const char *diff;
    sp_run *back = roundtrip(run, path, &diff);
    ASSERT_MSG(back, "%s: %s", diff, sp_last_error());
    ASSERT_MSG(diff == NULL, "round trip differs: %s", diff);
    /* Spot checks on what the comparison covers, so a broken comparison
     * cannot hide a broken reader. */
    ASSERT_STREQ(back->region_names[2], "io/write data.v2 \xE2\x9C\x93");
    ASSERT_EQ_U(back->nranks, 3);
    ASSERT_EQ_U(back->ranks[0].nthreads, 2);
    ASSERT_STREQ(back->ranks[0].threads[0].name, "main");
    ASSERT(back->ranks[0].threads[1].name == NULL);
    ASSERT_EQ_I(back->ranks[0].threads[1].os_tid, 1001);
    ASSERT_EQ_I(back->ranks[0].parent[2], 1);
    ASSERT_EQ_I(back->ranks[0].end_ns[4], 9000);
    ASSERT_EQ_I(back->ranks[1].clock_offset_ns, -123456789);
    ASSERT_EQ_I(back->ranks[1].clock_offset_err_ns, 17);
    ASSERT(back->ranks[1].dropped != NULL);
    ASSERT_EQ_U(back->ranks[1].dropped[5], 7);
    ASSERT_EQ_U(back->ranks[1].dropped[1], 1);
    ASSERT(back->ranks[0].dropped == NULL);
    ASSERT_STREQ(sp_kvlist_get(&back->ranks[1].meta, "hostname"), "node2");
    ASSERT_STREQ(sp_kvlist_get(&back->meta, "gr\xC3\xBC\xC3\x9F" "e/key.x y"), "Wert \xE2\x9C\x93");
    ASSERT_STREQ(sp_kvlist_get(&back->meta, "empty_value"), "");
    ASSERT_STREQ(back->meta.items[0].key, "timestamp"); /* insertion order kept */
    ASSERT_EQ_U(back->ranks[2].ncalls, 0);
    ASSERT_EQ_U(back->ranks[0].nlines, 3);
    ASSERT_EQ_I(back->ranks[0].line_lineno[1], 43);
    ASSERT_STREQ(back->ranks[0].line_function[2], "write_chunk \xE2\x9C\x93");
    ASSERT_EQ_U(back->ranks[0].ncounters, 2);
    ASSERT_STREQ(back->ranks[0].counter_name[1], "DP [MFLOP/s]");
    ASSERT(back->ranks[0].counter_value[1] == 1.25e-3);
    ASSERT_EQ_I(back->ranks[0].counter_thread[1], -1);
    ASSERT_EQ_U(back->ranks[1].nlines, 0);
    ASSERT_EQ_U(back->nregion_flags, 2);
    ASSERT_EQ_I(back->region_flags[1], 5);
    ASSERT_STREQ(back->layout, "scope-profiler");
    ASSERT_EQ_I(back->schema_version, SP_SCHEMA_V1); /* sp_h5_write writes version 1 */
    ASSERT_STREQ(back->source_path, path);
    ASSERT(!back->analyzed);
    sp_run_free(back);
    sp_run_free(run);
}

static void test_empty_runs_roundtrip(void)
{
    const char *dir = h5t_tmpdir("rt-empty");
    const char *diff;
    char path[4096];

    /* No ranks, no regions, no metadata. */
    sp_run *run = sp_run_new();
    h5t_join(path, sizeof path, dir, "none.h5");
    sp_run *back = roundtrip(run, path, &diff);
    ASSERT_MSG(back && !diff, "%s: %s", diff ? diff : "", sp_last_error());
    ASSERT_EQ_U(back->nranks, 0);
    ASSERT_EQ_U(back->nregions, 0);
    sp_run_free(back);

    /* One rank with zero calls and zero threads. */
    ASSERT(sp_run_set_ranks(run, 1) == 0);
    h5t_join(path, sizeof path, dir, "zero.h5");
    back = roundtrip(run, path, &diff);
    ASSERT_MSG(back && !diff, "%s: %s", diff ? diff : "", sp_last_error());
    ASSERT_EQ_U(back->nranks, 1);
    ASSERT_EQ_U(back->ranks[0].ncalls, 0);
    ASSERT_EQ_U(back->ranks[0].nthreads, 0);
    sp_run_free(back);
    sp_run_free(run);
}

static void test_unsorted_file_is_sorted_on_read(void)
{
    /* A file whose calls are not in model order (another writer, an old
     * version) is sorted by the reader, parents remapped. Write a sorted run
     * and swap two rows of the file on disk. */
    const char *dir = h5t_tmpdir("rt-sort");
    char path[4096];
    h5t_join(path, sizeof path, dir, "unsorted.h5");
    sp_run *run = h5t_sample_run();
    ASSERT(sp_h5_write(run, path) == 0);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT(f >= 0);
    sp_rank_data *rk = &run->ranks[0];
    size_t n = rk->ncalls;
    int64_t start[16], end[16], parent[16];
    int32_t region[16], thread[16];
    /* Reverse the rows: row i of the file holds call n-1-i. */
    for (size_t i = 0; i < n; i++) {
        size_t j = n - 1 - i;
        start[i] = rk->start_ns[j];
        end[i] = rk->end_ns[j];
        region[i] = rk->region[j];
        thread[i] = rk->thread[j];
        parent[i] = rk->parent[j] < 0 ? -1 : (int64_t)(n - 1) - rk->parent[j];
    }
    struct { const char *name; hid_t type; void *data; } cols[] = {
        {"/rank0/calls/start_ns", H5T_NATIVE_INT64, start},
        {"/rank0/calls/end_ns", H5T_NATIVE_INT64, end},
        {"/rank0/calls/region", H5T_NATIVE_INT32, region},
        {"/rank0/calls/thread", H5T_NATIVE_INT32, thread},
        {"/rank0/calls/parent", H5T_NATIVE_INT64, parent},
    };
    for (size_t c = 0; c < 5; c++) {
        hid_t d = H5Dopen2(f, cols[c].name, H5P_DEFAULT);
        ASSERT(d >= 0 && H5Dwrite(d, cols[c].type, H5S_ALL, H5S_ALL, H5P_DEFAULT, cols[c].data) >= 0);
        H5Dclose(d);
    }
    H5Fclose(f);
    int st;
    sp_run *back = sp_h5_read(path, &st);
    ASSERT_MSG(back, "%s", sp_last_error());
    const char *diff = h5t_runs_differ(run, back);
    ASSERT_MSG(!diff, "%s", diff);
    sp_run_free(back);
    sp_run_free(run);
}

static void test_writer_refuses_bad_runs(void)
{
    const char *dir = h5t_tmpdir("rt-bad");
    char path[4096];
    h5t_join(path, sizeof path, dir, "bad.h5");
    sp_run *run = h5t_sample_run();

    run->ranks[0].region[3] = 42;
    ASSERT_EQ_I(sp_h5_write(run, path), SP_EINVAL);
    ASSERT_CONTAINS(sp_last_error(), "region 42 out of range");
    run->ranks[0].region[3] = 3;

    run->ranks[0].parent[2] = 4; /* io does not enclose assemble */
    ASSERT_EQ_I(sp_h5_write(run, path), SP_EINVAL);
    ASSERT_CONTAINS(sp_last_error(), "parent");
    run->ranks[0].parent[2] = 1;

    int64_t s = run->ranks[0].start_ns[3];
    run->ranks[0].start_ns[3] = 5; /* out of (thread, start) order */
    ASSERT_EQ_I(sp_h5_write(run, path), SP_EINVAL);
    ASSERT_CONTAINS(sp_last_error(), "model order");
    run->ranks[0].start_ns[3] = s;

    char *old = run->region_names[4];
    run->region_names[4] = (char *)"bad \xFF utf8";
    ASSERT_EQ_I(sp_h5_write(run, path), SP_EINVAL);
    ASSERT_CONTAINS(sp_last_error(), "UTF-8");
    run->region_names[4] = (char *)"main"; /* duplicate */
    ASSERT_EQ_I(sp_h5_write(run, path), SP_EINVAL);
    ASSERT_CONTAINS(sp_last_error(), "twice");
    run->region_names[4] = old;

    ASSERT_EQ_I(sp_h5_write(NULL, path), SP_EINVAL);
    ASSERT_EQ_I(sp_h5_write(run, ""), SP_EINVAL);
    ASSERT_EQ_I(h5t_file_size(path), -1); /* nothing was created */
    ASSERT_EQ_I(h5t_count_entries(dir, ".tmp."), 0);
    ASSERT_EQ_I(sp_h5_write(run, path), 0); /* and the repaired run writes */
    sp_run_free(run);
}

/* Storage bytes and layout of one dataset. */
static void dataset_info(const char *path, const char *name, hsize_t *bytes,
                         H5D_layout_t *layout, hsize_t *chunk)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    hid_t dcpl = H5Dget_create_plist(d);
    *bytes = H5Dget_storage_size(d);
    *layout = H5Pget_layout(dcpl);
    *chunk = 0;
    if (*layout == H5D_CHUNKED)
        H5Pget_chunk(dcpl, 1, chunk);
    H5Pclose(dcpl);
    H5Dclose(d);
    H5Fclose(f);
}

static void test_small_datasets_are_exactly_sized(void)
{
    const char *dir = h5t_tmpdir("rt-size");
    char path[4096];
    h5t_join(path, sizeof path, dir, "five.h5");
    sp_run *run = h5t_synthetic_run(5, 1, 1);
    ASSERT(sp_h5_write(run, path) == 0);
    hsize_t bytes, chunk;
    H5D_layout_t layout;
    static const struct { const char *name; hsize_t size; } want[] = {
        {"/rank0/calls/start_ns", 40}, {"/rank0/calls/end_ns", 40},
        {"/rank0/calls/region", 20},   {"/rank0/calls/thread", 20},
        {"/rank0/calls/parent", 40},   {"/rank0/threads/os_tid", 8},
        {"/rank0/dropped/region", 0},  {"/rank0/dropped/calls", 0},
    };
    hsize_t total = 0;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        dataset_info(path, want[i].name, &bytes, &layout, &chunk);
        ASSERT_MSG(bytes == want[i].size, "%s stores %llu bytes, want %llu", want[i].name,
                   (unsigned long long)bytes, (unsigned long long)want[i].size);
        ASSERT_MSG(layout == H5D_CONTIGUOUS, "%s is not contiguous", want[i].name);
        total += bytes;
    }
    ASSERT_EQ_U(total, 5 * 32 + 8);
    /* The whole file, headers included, stays small. */
    long size = h5t_file_size(path);
    ASSERT_MSG(size > 0 && size < 16 * 1024, "file is %ld bytes", size);
    sp_run_free(run);
}

static void test_big_columns_are_chunked_without_padding(void)
{
    /* Thresholds scaled down so the test stays small: chunk from 1000
     * elements, about 256 per chunk. 2600 calls -> 11 chunks of 237. */
    const char *dir = h5t_tmpdir("rt-chunk");
    char path[4096];
    h5t_join(path, sizeof path, dir, "chunked.h5");
    sp_run *run = h5t_synthetic_run(2600, 50, 2);
    sp__h5_write_options o;
    sp__h5_write_options_default(&o);
    ASSERT(o.chunk_min > 0 && o.chunk_target > 0);
    o.chunk_min = 1000;
    o.chunk_target = 256;
    ASSERT(sp__h5_write_opts(run, path, &o) == 0);
    hsize_t bytes, chunk;
    H5D_layout_t layout;
    dataset_info(path, "/rank0/calls/start_ns", &bytes, &layout, &chunk);
    ASSERT(layout == H5D_CHUNKED);
    ASSERT_EQ_U(chunk, 237);
    ASSERT_EQ_U(bytes, 11 * 237 * 8); /* 2607 elements: 7 of padding */
    dataset_info(path, "/region_names", &bytes, &layout, &chunk);
    ASSERT(layout == H5D_CONTIGUOUS);
    int st;
    sp_run *back = sp_h5_read(path, &st);
    ASSERT_MSG(back, "%s", sp_last_error());
    const char *diff = h5t_runs_differ(run, back);
    ASSERT_MSG(!diff, "%s", diff);
    sp_run_free(back);

    /* Deflate (an option the benchmark compares) reads back the same. */
    o.deflate = 1;
    ASSERT(sp__h5_write_opts(run, path, &o) == 0);
    back = sp_h5_read(path, &st);
    ASSERT_MSG(back, "%s", sp_last_error());
    diff = h5t_runs_differ(run, back);
    ASSERT_MSG(!diff, "%s", diff);
    sp_run_free(back);
    sp_run_free(run);
}

static void test_write_into_missing_directory(void)
{
    const char *dir = h5t_tmpdir("rt-nodir");
    char path[4096];
    h5t_join(path, sizeof path, dir, "does/not/exist/run.h5");
    sp_run *run = h5t_sample_run();
    ASSERT_EQ_I(sp_h5_write(run, path), SP_EIO);
    ASSERT_CONTAINS(sp_last_error(), path);
    ASSERT_CONTAINS(sp_last_error(), "No such file or directory");
    ASSERT(!strchr(sp_last_error(), '\n'));
    ASSERT_EQ_I(h5t_count_entries(dir, ""), 2); /* only . and .. */
    sp_run_free(run);
}

static void test_write_into_read_only_directory(void)
{
    if (geteuid() == 0) {
        fprintf(stderr, "  (running as root: permissions do not apply, skipped)\n");
        return;
    }
    const char *dir = h5t_tmpdir("rt-ro");
    char path[4096];
    h5t_join(path, sizeof path, dir, "run.h5");
    ASSERT(chmod(dir, 0555) == 0);
    sp_run *run = h5t_sample_run();
    ASSERT_EQ_I(sp_h5_write(run, path), SP_EIO);
    ASSERT_CONTAINS(sp_last_error(), path);
    ASSERT_EQ_I(h5t_count_entries(dir, ""), 2);
    chmod(dir, 0755);
    sp_run_free(run);
}

static void test_failed_rename_leaves_target_and_no_temp(void)
{
    /* The target is a non-empty directory: everything is written, then
     * rename(2) fails. The directory must be untouched, the temp removed. */
    const char *dir = h5t_tmpdir("rt-rename");
    char target[4096];
    h5t_join(target, sizeof target, dir, "run.h5");
    ASSERT(mkdir(target, 0755) == 0);
    ASSERT(h5t_write_text(in_dir(target, "keep.txt"), "keep") == 0);
    sp_run *run = h5t_sample_run();
    ASSERT_EQ_I(sp_h5_write(run, target), SP_EIO);
    ASSERT_CONTAINS(sp_last_error(), "rename");
    ASSERT_EQ_I(h5t_file_size(in_dir(target, "keep.txt")), 4);
    ASSERT_EQ_I(h5t_count_entries(dir, ".tmp."), 0);
    sp_run_free(run);
}

static void test_disk_full_keeps_old_file(void)
{
    /* A file-size limit makes HDF5's writes fail midway (as a full disk
     * would, and unlike permissions it also binds root). Run in a child so
     * the limit does not outlive the test. */
    const char *dir = h5t_tmpdir("rt-full");
    char target[4096];
    h5t_join(target, sizeof target, dir, "run.h5");
    ASSERT(h5t_write_text(target, "previous run") == 0);
    sp_run *run = h5t_synthetic_run(200000, 100, 2); /* ~6 MB */
    fflush(NULL);
    pid_t pid = fork();
    ASSERT(pid >= 0);
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit lim = {256 * 1024, 256 * 1024};
        setrlimit(RLIMIT_FSIZE, &lim);
        int rc = sp_h5_write(run, target);
        const char *msg = sp_last_error();
        int ok = rc == SP_EIO && strstr(msg, target) && !strchr(msg, '\n');
        if (!ok)
            fprintf(stderr, "child: rc %d, message '%s'\n", rc, msg);
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    ASSERT(waitpid(pid, &status, 0) == pid);
    ASSERT_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
    ASSERT_EQ_I(h5t_file_size(target), 12); /* "previous run" untouched */
    ASSERT_EQ_I(h5t_count_entries(dir, ".tmp."), 0);
    /* Without the limit the same write replaces it. */
    ASSERT(sp_h5_write(run, target) == 0);
    ASSERT(h5t_file_size(target) > 12);
    ASSERT_EQ_I(h5t_count_entries(dir, ".tmp."), 0);
    sp_run_free(run);
}

static void test_hdf5_error_printing_is_restored(void)
{
    /* We silence HDF5's automatic error printing only inside our calls. */
    H5E_auto2_t before_func = NULL, after_func = NULL;
    void *before_data = NULL, *after_data = NULL;
    H5Eget_auto2(H5E_DEFAULT, &before_func, &before_data);
    int st;
    sp_run *none = sp_h5_read("/nonexistent/file.h5", &st);
    ASSERT(none == NULL);
    H5Eget_auto2(H5E_DEFAULT, &after_func, &after_data);
    ASSERT(before_func == after_func && before_data == after_data);
}

static void test_planted_links_are_never_followed(void)
{
    /* A shared directory: someone planted symbolic links at the temporary
     * name the v1 writer once used ("<path>.tmp.<pid>") and at one of the
     * new form. Writing must neither follow them nor fail because of them. */
    const char *dir = h5t_tmpdir("rt-links");
    char target[4096], victim[4096], link_old[4200], link_new[4200];
    h5t_join(target, sizeof target, dir, "run.h5");
    h5t_join(victim, sizeof victim, dir, "victim.txt");
    ASSERT(h5t_write_text(victim, "precious") == 0);
    snprintf(link_old, sizeof link_old, "%s.tmp.%ld", target, (long)getpid());
    ASSERT(symlink(victim, link_old) == 0);
    sp_run *run = h5t_sample_run();
    ASSERT_MSG(sp_h5_write(run, target) == 0, "%s", sp_last_error());
    ASSERT_EQ_I(h5t_file_size(victim), 8);
    struct stat st;
    ASSERT(lstat(target, &st) == 0 && S_ISREG(st.st_mode));
    ASSERT_EQ_I(h5t_count_entries(dir, ".tmp."), 1); /* only the planted link */

    /* The exclusive creation itself: a link at the exact name is refused
     * (EIO naming it) and its target stays as it was. */
    snprintf(link_new, sizeof link_new, "%s.tmp.1-00000000.0000000000000000", target);
    ASSERT(symlink(victim, link_new) == 0);
    hid_t f = H5I_INVALID_HID;
    ASSERT_EQ_I(sp_v2_file_create(link_new, H5P_DEFAULT, target, &f), SP_EIO);
    ASSERT(f < 0);
    ASSERT_CONTAINS(sp_last_error(), link_new);
    struct stat lst;
    ASSERT(lstat(link_new, &lst) == 0 && S_ISLNK(lst.st_mode)); /* left alone */
    ASSERT_EQ_I(h5t_file_size(victim), 8);
    sp_run_free(run);
}

int main(void)
{
    RUN(test_sample_run_roundtrip);
    RUN(test_empty_runs_roundtrip);
    RUN(test_unsorted_file_is_sorted_on_read);
    RUN(test_writer_refuses_bad_runs);
    RUN(test_small_datasets_are_exactly_sized);
    RUN(test_big_columns_are_chunked_without_padding);
    RUN(test_write_into_missing_directory);
    RUN(test_write_into_read_only_directory);
    RUN(test_failed_rename_leaves_target_and_no_temp);
    RUN(test_disk_full_keeps_old_file);
    RUN(test_planted_links_are_never_followed);
    RUN(test_hdf5_error_printing_is_restored);
    h5t_cleanup(sp_test_failed_count);
    return sp_test_summary();
}
