/* SPDX-License-Identifier: MIT */
/*
 * test_hostile_conditions.c - the recorder under conditions its users create
 * without meaning to (issue 13, "the recorder survives its users"):
 *   - region and thread names that are not valid UTF-8 (a Latin-1 string, a
 *     thread named with a stray byte): the run is written, names kept;
 *   - fork(): the child records nothing, its sp_finalize() (run after the
 *     parent's) returns SP_ESTATE and never touches the parent's file;
 *   - links planted at the names the recorder writes next to its target (the
 *     rank part, a temporary of the old predictable form, the target
 *     itself): none is followed, the link's target stays as it was;
 *   - a nearly full disk of 16 KiB to 8 MiB (a file-size limit, which binds
 *     root too, and a real full tmpfs where it can be mounted): finalize
 *     returns SP_EIO with a one-line reason, no crash (also at exit()), no
 *     temporary left.
 */
#include <errno.h>
#include <sched.h>
#include <sys/mount.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include "h5schema/h5test_util.h" /* file helpers: h5t_count_entries, ... */
#include "rec_util.h"
#include "sp_test.h"

/* ---------------------------------------------------------------- names */

static void *latin1_thread(void *arg)
{
    (void)arg;
    /* A library that names its thread with a byte that is not UTF-8. */
    pthread_setname_np(pthread_self(), "io\xff" "thread");
    sp_region *r = sp_region_get("caf\xe9 latin-1");
    rec_record_calls(r, 3);
    return NULL;
}

static void test_names_that_are_not_utf8(void)
{
    rec_clear_env();
    const char *dir = rec_tmpdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/names.h5", dir);
    sp_options o = rec_file_options(path);
    ASSERT_EQ_I(sp_setup(&o), 0);
    sp_region *bad = sp_region_get("half \xc3"); /* a cut UTF-8 sequence */
    ASSERT(bad != NULL);
    sp_region_begin(bad);
    sp_region_end(bad);
    pthread_t t;
    ASSERT_EQ_I(pthread_create(&t, NULL, latin1_thread, NULL), 0);
    pthread_join(t, NULL);
    ASSERT_MSG(sp_finalize(false, NULL) == 0, "%s", sp_last_error());

    /* The file exists and keeps every call; the reader shows each byte that
     * is not UTF-8 as \xNN (SCHEMA.md, "Names are stored as bytes"). */
    sp_run *back = sp_read_h5(path);
    ASSERT_MSG(back != NULL, "%s", sp_last_error());
    if (!back)
        return;
    ASSERT_EQ_U(rec_count(back, "caf\\xe9 latin-1"), 3);
    ASSERT_EQ_U(rec_count(back, "half \\xc3"), 1);
    bool thread_found = false;
    for (size_t i = 0; i < back->ranks[0].nthreads; i++) {
        const char *n = back->ranks[0].threads[i].name;
        thread_found |= n && strcmp(n, "io\\xffthread") == 0;
    }
    ASSERT_MSG(thread_found, "thread name io\\xffthread not found");
    sp_run_free(back);
}

/* ---------------------------------------------------------------- fork */

static void test_fork_child_finalizing_last(void)
{
    rec_clear_env();
    const char *dir = rec_tmpdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/parent.h5", dir);
    sp_options o = rec_file_options(path);
    ASSERT_EQ_I(sp_setup(&o), 0);
    sp_region *before = sp_region_get("before_fork");
    sp_region *parent_only = sp_region_get("parent_after_fork");
    sp_region *child_only = sp_region_get("child_after_fork");
    rec_record_calls(before, 10);
    int go[2]; /* the parent tells the child when it has finalized */
    ASSERT_EQ_I(pipe(go), 0);
    fflush(NULL);
    pid_t pid = fork();
    ASSERT(pid >= 0);
    if (pid == 0) {
        close(go[1]);
        rec_record_calls(child_only, 1000); /* records nothing: not its session */
        char c;
        if (read(go[0], &c, 1) != 1)
            _exit(3);
        int rc = sp_finalize(false, NULL); /* after the parent's */
        _exit(rc == SP_ESTATE ? 0 : 1);
    }
    close(go[0]);
    rec_record_calls(parent_only, 7);
    ASSERT_MSG(sp_finalize(false, NULL) == 0, "%s", sp_last_error());
    long size_after_parent = h5t_file_size(path);
    ASSERT(write(go[1], "x", 1) == 1);
    close(go[1]);
    int status = 0;
    ASSERT(waitpid(pid, &status, 0) == pid);
    ASSERT_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);

    /* The parent's file is the parent's: untouched by the child. */
    ASSERT_EQ_I(h5t_file_size(path), size_after_parent);
    sp_run *back = sp_read_h5(path);
    ASSERT_MSG(back != NULL, "%s", sp_last_error());
    if (back) {
        ASSERT_EQ_U(rec_count(back, "before_fork"), 10);
        ASSERT_EQ_U(rec_count(back, "parent_after_fork"), 7);
        ASSERT_EQ_U(rec_count(back, "child_after_fork"), 0);
        sp_run_free(back);
    }
    /* Nothing else was written next to it (no part, no temporary). */
    ASSERT_EQ_I(h5t_count_entries(dir, "parent.h5"), 1);
}

/* ---------------------------------------------------------------- links */

static void test_planted_links(void)
{
    rec_clear_env();
    const char *dir = rec_tmpdir();
    char path[4200], victim[4200], part[4300], old_tmp[4300], victim2[4200];
    snprintf(path, sizeof path, "%s/linked.h5", dir);
    snprintf(victim, sizeof victim, "%s/victim.txt", dir);
    snprintf(victim2, sizeof victim2, "%s/victim2.txt", dir);
    snprintf(part, sizeof part, "%s.rank0.part", path);
    snprintf(old_tmp, sizeof old_tmp, "%s.tmp.%ld", path, (long)getpid());
    ASSERT_EQ_I(h5t_write_text(victim, "precious"), 0);
    ASSERT_EQ_I(h5t_write_text(victim2, "also precious"), 0);
    ASSERT_EQ_I(symlink(victim, part), 0);
    ASSERT_EQ_I(symlink(victim, old_tmp), 0);
    ASSERT_EQ_I(symlink(victim2, path), 0); /* the target itself is a link */

    sp_options o = rec_file_options(path);
    ASSERT_EQ_I(sp_setup(&o), 0);
    sp_region *r = sp_region_get("linked_region");
    rec_record_calls(r, 5);
    ASSERT_MSG(sp_finalize(false, NULL) == 0, "%s", sp_last_error());

    ASSERT_EQ_I(h5t_file_size(victim), 8);
    ASSERT_EQ_I(h5t_file_size(victim2), 13);
    struct stat st;
    ASSERT(lstat(path, &st) == 0 && S_ISREG(st.st_mode)); /* the link was replaced */
    sp_run *back = sp_read_h5(path);
    ASSERT_MSG(back != NULL, "%s", sp_last_error());
    if (back) {
        ASSERT_EQ_U(rec_count(back, "linked_region"), 5);
        sp_run_free(back);
    }
}

/* ---------------------------------------------------------------- disk full */

/* Disk sizes swept (KiB): from nothing but headers fitting to room for a
 * good part of the run (issue 22: a full 64 KiB disk crashed the program
 * at exit in HDF5's shutdown, 3 of 3 times). */
static const long disk_sizes_k[] = {16, 32, 64, 128, 256, 1024, 4096, 8192};

typedef enum { DISK_RLIMIT, DISK_TMPFS } disk_kind;

/* In a child: `size_k` KiB of disk, as a file-size limit (binds root too)
 * or as a real tmpfs of that size in a private mount namespace (root only:
 * exit 77 where the kernel or a container refuses). Records 1.2 million
 * calls, uncompressed (19 MB of events: more than the largest disk), with
 * pauses so that the writer flushes between them, finalizes, reads the
 * file back, and leaves through exit() so that HDF5's exit handler runs
 * (it crashed on a handle left half-closed). Exit 0: SP_EIO naming the
 * reason on one line, no temporary left. */
static void full_disk_child(const char *dir, long size_k, disk_kind kind)
{
    const char *reason = "File too large";
    if (kind == DISK_TMPFS) {
        char opts[64];
        snprintf(opts, sizeof opts, "size=%ldk", size_k);
        if (unshare(CLONE_NEWNS) != 0 || mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
            mount("tmpfs", dir, "tmpfs", 0, opts) != 0) {
            printf("  tmpfs: cannot mount here (%s): skipped\n", strerror(errno));
            exit(77);
        }
        reason = "No space left on device";
    } else {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit lim = {(rlim_t)size_k * 1024, (rlim_t)size_k * 1024};
        setrlimit(RLIMIT_FSIZE, &lim);
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/full.h5", dir);
    setenv("SCOPE_PROFILER_COMPRESSION", "none", 1);
    sp_options o = rec_file_options(path);
    o.flush_interval = 0.05;
    if (sp_setup(&o) != 0)
        exit(10);
    sp_region *outer = sp_region_get("full_outer"), *inner = sp_region_get("full_inner");
    const struct timespec pause = {0, 40 * 1000 * 1000};
    for (int i = 0; i < 600000; i++) {
        sp_region_begin(outer);
        sp_region_begin(inner);
        sp_region_end(inner);
        sp_region_end(outer);
        if (i % 60000 == 59999)
            nanosleep(&pause, NULL);
    }
    sp_run *run = NULL;
    int rc = sp_finalize(false, &run);
    const char *msg = sp_last_error();
    int ok = rc == SP_EIO && strstr(msg, path) && strstr(msg, reason) && !strchr(msg, '\n');
    if (!ok)
        fprintf(stderr, "child (%ld KiB, %s): rc %d, message '%s'\n", size_k,
                kind == DISK_TMPFS ? "tmpfs" : "file size limit", rc, msg);
    sp_run_free(run);
    /* What is at the path is the streamed file: it reads with the calls
     * written before the disk filled up, or (nothing fitted) is refused as
     * damaged; never a crash. */
    sp_run *back = rec_exists(path) ? sp_read_h5(path) : NULL;
    int tmps = h5t_count_entries(dir, ".tmp.");
    printf("  %5ld KiB %-16s: SP_EIO, %7zu of 1200000 calls kept%s, %d temporary file(s) "
           "left\n",
           size_k, kind == DISK_TMPFS ? "(tmpfs)" : "(file size limit)",
           back ? back->ranks[0].ncalls : 0, back ? "" : " (file refused as damaged)", tmps);
    sp_run_free(back);
    fflush(stdout);
    exit(ok && tmps == 0 ? 0 : 1); /* through HDF5's exit handler */
}

/* Every size, both ways: the program exits normally every time. How many
 * calls survive depends on where the failing write lands, that is on the
 * writer's timing (fewer under the sanitizers): printed, not required; the
 * reading of torn parts itself is tested on crafted files
 * (hostile_v2_torn_*). */
static void test_full_disks(void)
{
    for (int kind = DISK_RLIMIT; kind <= DISK_TMPFS; kind++) {
        for (size_t l = 0; l < sizeof disk_sizes_k / sizeof *disk_sizes_k; l++) {
            rec_clear_env();
            const char *dir = rec_tmpdir();
            fflush(NULL);
            pid_t pid = fork();
            ASSERT(pid >= 0);
            if (pid == 0)
                full_disk_child(dir, disk_sizes_k[l], (disk_kind)kind);
            int status = 0;
            ASSERT(waitpid(pid, &status, 0) == pid);
            if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
                break; /* no tmpfs here: said so */
            ASSERT_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                       "%ld KiB (%s): child status %d (signal %d)", disk_sizes_k[l],
                       kind == DISK_TMPFS ? "tmpfs" : "file size limit", status,
                       WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        }
    }
}

int main(void)
{
    rec_clear_env();
    RUN(test_names_that_are_not_utf8);
    RUN(test_fork_child_finalizing_last);
    RUN(test_planted_links);
    RUN(test_full_disks);
    return sp_test_summary();
}
