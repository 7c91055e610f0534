/* SPDX-License-Identifier: MIT */
/*
 * test_one_run_per_path.c - one run per path (issue 22, P4): a second
 * sp_setup on a file_path that a live run records to (another process, a
 * fork child of that run) deleted the first run's part while it wrote.
 * Now the second run takes its own name (<stem>.pid<pid>.h5, metadata
 * path_in_use) and neither loses a call:
 *   - two processes record to one path at once, each an exact number of
 *     calls: the first keeps the path, the second gets its own file;
 *   - a fork child of a recording process calls sp_setup on the parent's
 *     path: the parent's file has every call of the parent;
 *   - the next run of a path removes the parts dead runs left (an
 *     MPI_Abort leaves PATH.rank1.part, issue 21), never a live one (a part
 *     whose lock another process holds), never through a link.
 */
#include <signal.h>
#include <sys/wait.h>

#include "h5schema/h5test_util.h"
#include "rec_util.h"
#include "sp_h5_v2.h"
#include "sp_test.h"

static void record_calls(const char *name, int n) { rec_record_calls(sp_region_get(name), n); }

/* Wait for one byte on fd (the other side's go). */
static void wait_byte(int fd)
{
    char c;
    if (read(fd, &c, 1) != 1)
        _exit(90);
}

/* A child's finalize: its results' file path and metadata go to the pipe
 * "path\npath_in_use\n". Exit 0 when finalize succeeded. */
static void finalize_and_report(int out)
{
    sp_run *run = NULL;
    int rc = sp_finalize(false, &run);
    char buf[8192];
    const char *note = run ? sp_kvlist_get(&run->meta, "path_in_use") : NULL;
    int n = snprintf(buf, sizeof buf, "%s\n%s\n", run && run->source_path ? run->source_path : "",
                     note ? note : "");
    if (write(out, buf, (size_t)n) != n)
        _exit(91);
    sp_run_free(run);
    _exit(rc == 0 ? 0 : 92);
}

/* "path\nnote\n" from a child. */
static void read_report(int fd, char *path, size_t psize, char *note, size_t nsize)
{
    char buf[8192];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = '\0';
    char *nl = strchr(buf, '\n');
    path[0] = note[0] = '\0';
    if (!nl)
        return;
    *nl = '\0';
    char *nl2 = strchr(nl + 1, '\n');
    if (nl2)
        *nl2 = '\0';
    if (strlen(buf) < psize)
        memcpy(path, buf, strlen(buf) + 1);
    if (strlen(nl + 1) < nsize)
        memcpy(note, nl + 1, strlen(nl + 1) + 1);
}

static void expect_exit0(pid_t pid, const char *who)
{
    int st = 0;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "%s: status %d\n", who, st);
        sp_test_current_failed = 1;
    }
}

/* ---------------------------------------------------------------- two processes */

static void test_two_processes_one_path(void)
{
    const char *dir = rec_tmpdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/shared.h5", dir);
    int a_ready[2], a_go[2], a_out[2], b_out[2];
    ASSERT(pipe(a_ready) == 0 && pipe(a_go) == 0 && pipe(a_out) == 0 && pipe(b_out) == 0);
    fflush(NULL);
    pid_t a = fork();
    if (a == 0) { /* the first run: records, waits while B runs, records more */
        sp_options o = rec_file_options(path);
        if (sp_setup(&o) != 0)
            _exit(80);
        record_calls("first_run", 300);
        if (write(a_ready[1], "r", 1) != 1)
            _exit(81);
        wait_byte(a_go[0]);
        record_calls("first_run", 200);
        finalize_and_report(a_out[1]);
    }
    close(a_ready[1]);
    wait_byte(a_ready[0]);
    pid_t b = fork();
    if (b == 0) { /* the second run, on the same path, while A records */
        sp_options o = rec_file_options(path);
        if (sp_setup(&o) != 0)
            _exit(82);
        record_calls("second_run", 123);
        finalize_and_report(b_out[1]);
    }
    close(b_out[1]); /* a child that dies gives an end of file, never a hang */
    close(a_out[1]);
    char bpath[4200], bnote[4200], apath[4200], anote[4200];
    read_report(b_out[0], bpath, sizeof bpath, bnote, sizeof bnote);
    expect_exit0(b, "second run");
    ASSERT(write(a_go[1], "g", 1) == 1);
    read_report(a_out[0], apath, sizeof apath, anote, sizeof anote);
    expect_exit0(a, "first run");

    printf("  first run wrote %s\n  second run wrote %s (%s)\n", apath, bpath, bnote);
    ASSERT_MSG(strcmp(apath, path) == 0, "the first run's file is %s, not %s", apath, path);
    ASSERT_MSG(strcmp(bpath, path) != 0 && strstr(bpath, ".pid"), "the second run wrote %s",
               bpath);
    ASSERT_MSG(strstr(bnote, "shared.h5") && strstr(bnote, bpath + strlen(dir) + 1),
               "path_in_use: '%s'", bnote);
    ASSERT_EQ_I(anote[0], '\0');
    sp_run *ra = sp_read_h5(path), *rb = sp_read_h5(bpath);
    ASSERT_MSG(ra && rb, "%s", sp_last_error());
    if (ra && rb) {
        ASSERT_EQ_U(rec_count(ra, "first_run"), 500);
        ASSERT_EQ_U(rec_count(ra, "second_run"), 0);
        ASSERT_EQ_U(rec_count(rb, "second_run"), 123);
        ASSERT_EQ_U(rec_count(rb, "first_run"), 0);
    }
    sp_run_free(ra);
    sp_run_free(rb);
    ASSERT_EQ_I(h5t_count_entries(dir, ".part"), 0); /* both finalized: no part left */
}

/* ---------------------------------------------------------------- fork */

static void test_fork_child_sets_up_on_parents_path(void)
{
#if defined(__SANITIZE_THREAD__)
    /* ThreadSanitizer kills a child forked from a process with threads (the
     * recording parent's writer) once it starts threads itself: covered by
     * the normal and ASan builds. */
    printf("  skipped under ThreadSanitizer (fork of a threaded process)\n");
    return;
#endif
    const char *dir = rec_tmpdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/parent.h5", dir);
    int out[2], child_out[2];
    ASSERT(pipe(out) == 0 && pipe(child_out) == 0);
    fflush(NULL);
    pid_t parent = fork(); /* the test's own process never sets up */
    if (parent == 0) {
        sp_options o = rec_file_options(path);
        if (sp_setup(&o) != 0)
            _exit(70);
        record_calls("parent_calls", 40);
        fflush(NULL);
        pid_t child = fork();
        if (child == 0) { /* its own session on the parent's path */
            sp_options oc = rec_file_options(path);
            if (sp_setup(&oc) != 0)
                _exit(71);
            record_calls("child_calls", 25);
            finalize_and_report(child_out[1]);
        }
        record_calls("parent_calls", 2);
        int st = 0;
        waitpid(child, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            _exit(72);
        record_calls("parent_calls", 18); /* after the child's whole run */
        finalize_and_report(out[1]);
    }
    close(out[1]); /* a child that dies gives an end of file, never a hang */
    close(child_out[1]);
    char ppath[4200], pnote[4200], cpath[4200], cnote[4200];
    read_report(child_out[0], cpath, sizeof cpath, cnote, sizeof cnote);
    read_report(out[0], ppath, sizeof ppath, pnote, sizeof pnote);
    expect_exit0(parent, "the recording parent");
    printf("  parent wrote %s\n  fork child wrote %s\n", ppath, cpath);
    ASSERT_MSG(strcmp(ppath, path) == 0, "the parent's file is %s", ppath);
    ASSERT_MSG(strcmp(cpath, path) != 0 && strstr(cpath, ".pid"), "the child wrote %s", cpath);
    ASSERT_MSG(strstr(cnote, "parent.h5") != NULL, "path_in_use: '%s'", cnote);
    sp_run *rp = sp_read_h5(path), *rc = sp_read_h5(cpath);
    ASSERT_MSG(rp && rc, "%s", sp_last_error());
    if (rp && rc) {
        ASSERT_EQ_U(rec_count(rp, "parent_calls"), 60); /* nothing of the parent's lost */
        ASSERT_EQ_U(rec_count(rp, "child_calls"), 0);
        ASSERT_EQ_U(rec_count(rc, "child_calls"), 25);
    }
    sp_run_free(rp);
    sp_run_free(rc);
}

/* ---------------------------------------------------------------- stale parts */

static void test_stale_parts_cleaned_live_kept(void)
{
    const char *dir = rec_tmpdir();
    char path[4200], stale1[4300], stale7[4300], live[4300], linked[4300], victim[4300],
        other[4300];
    snprintf(path, sizeof path, "%s/run.h5", dir);
    snprintf(stale1, sizeof stale1, "%s.rank1.part", path); /* an MPI_Abort's */
    snprintf(stale7, sizeof stale7, "%s.rank7.part", path);
    snprintf(live, sizeof live, "%s.rank3.part", path);  /* another live run's */
    snprintf(linked, sizeof linked, "%s.rank4.part", path);
    snprintf(victim, sizeof victim, "%s/victim.txt", dir);
    snprintf(other, sizeof other, "%s/other.h5.rank1.part", dir);
    ASSERT_EQ_I(h5t_write_text(stale1, "stale"), 0);
    ASSERT_EQ_I(h5t_write_text(stale7, "stale"), 0);
    ASSERT_EQ_I(h5t_write_text(live, "live"), 0);
    ASSERT_EQ_I(h5t_write_text(victim, "precious"), 0);
    ASSERT_EQ_I(h5t_write_text(other, "another path's"), 0);
    ASSERT_EQ_I(symlink(victim, linked), 0);
    /* A process that holds the run's lock on rank 3's part. */
    int ready[2], done[2];
    ASSERT(pipe(ready) == 0 && pipe(done) == 0);
    fflush(NULL);
    pid_t holder = fork();
    if (holder == 0) {
        int fd = open(live, O_RDONLY);
        if (fd < 0 || sp_v2_claim_lock(fd) != 0)
            _exit(60);
        if (write(ready[1], "r", 1) != 1)
            _exit(61);
        wait_byte(done[0]);
        _exit(0);
    }
    close(ready[1]);
    wait_byte(ready[0]);
    ASSERT_EQ_I(sp_v2_part_live(live), 1);
    ASSERT_EQ_I(sp_v2_part_live(stale1), 0);

    sp_options o = rec_file_options(path);
    ASSERT_EQ_I(sp_setup(&o), 0);
    record_calls("next_run", 5);
    /* The next run of the path removed what dead runs left, at setup. */
    ASSERT_MSG(!rec_exists(stale1), "%s is still there", stale1);
    ASSERT_MSG(!rec_exists(stale7), "%s is still there", stale7);
    ASSERT_MSG(rec_exists(live), "the live part %s was removed", live);
    ASSERT_MSG(!rec_exists(linked), "the link %s is still there", linked);
    ASSERT_EQ_I(h5t_file_size(victim), 8); /* never through the link */
    ASSERT(rec_exists(other));              /* another path's part */
    sp_run *run = NULL;
    ASSERT_MSG(sp_finalize(false, &run) == 0, "%s", sp_last_error());
    if (run)
        ASSERT_EQ_U(rec_count(run, "next_run"), 5);
    sp_run_free(run);
    ASSERT(rec_exists(live));
    ASSERT(write(done[1], "d", 1) == 1);
    expect_exit0(holder, "the lock holder");
    /* Its process gone, the part is stale: the next run removes it. */
    ASSERT_EQ_I(sp_v2_part_live(live), 0);
    ASSERT_EQ_I(sp_setup(&o), 0);
    ASSERT_MSG(!rec_exists(live), "%s is still there", live);
    ASSERT_MSG(sp_finalize(false, NULL) == 0, "%s", sp_last_error());
}

int main(void)
{
    rec_clear_env();
    setvbuf(stdout, NULL, _IOLBF, 0);
    RUN(test_two_processes_one_path);
    RUN(test_fork_child_sets_up_on_parents_path);
    RUN(test_stale_parts_cleaned_live_kept);
    return sp_test_summary();
}
