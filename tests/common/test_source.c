/* SPDX-License-Identifier: MIT */
/*
 * test_source.c - the source-file policy (sp_source.h) on a real tree:
 * wd/ (the run's working directory) with a source, a FIFO, a directory, a
 * sparse 1 GiB file, a hidden directory, a link out of the tree; secret/
 * outside it; the run file inside wd/ (trusted) or elsewhere (not).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sp_source.h"
#include "sp_test.h"

static char root[256], wd[300], secret[300], elsewhere[300];

static void put(const char *dir, const char *name, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    fputs(text, f);
    fclose(f);
}

static void setup(void)
{
    snprintf(root, sizeof root, "%s/source-XXXXXX", SP_TEST_BINARY_DIR);
    if (!mkdtemp(root))
        abort();
    snprintf(wd, sizeof wd, "%s/wd", root);
    snprintf(secret, sizeof secret, "%s/secret", root);
    snprintf(elsewhere, sizeof elsewhere, "%s/elsewhere", root);
    mkdir(wd, 0755);
    mkdir(secret, 0755);
    mkdir(elsewhere, 0755);
    put(wd, "ok.c", "int a;\nint b;\n");
    put(wd, "run.h5", "not read here");
    put(elsewhere, "run.h5", "not read here");
    put(secret, "key.txt", "SECRET\n");
    char p[512], q[512];
    snprintf(p, sizeof p, "%s/fifo.c", wd);
    mkfifo(p, 0644);
    snprintf(p, sizeof p, "%s/dir.c", wd);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/huge.c", wd);
    int fd = open(p, O_CREAT | O_WRONLY, 0644);
    if (fd < 0 || ftruncate(fd, (off_t)1 << 30) != 0)
        abort();
    close(fd);
    snprintf(p, sizeof p, "%s/.git", wd);
    mkdir(p, 0755);
    put(p, "config", "[core]\n");
    snprintf(p, sizeof p, "%s/link.c", wd);
    snprintf(q, sizeof q, "%s/key.txt", secret);
    if (symlink(q, p) != 0)
        abort();
    snprintf(p, sizeof p, "%s/in.c", wd); /* a link that stays inside: fine */
    if (symlink("ok.c", p) != 0)
        abort();
}

/* Read `name` under the policy; returns the reason ("" when read). */
static const char *try(const sp_source_policy *p, const char *name, char **text)
{
    size_t len;
    const char *why = NULL;
    *text = NULL;
    int rc = sp_source_read(p, name, text, &len, &why);
    return rc == 0 ? "" : why;
}

static void test_run_saved_in_its_working_directory(void)
{
    char run[512];
    snprintf(run, sizeof run, "%s/run.h5", wd);
    sp_source_policy p;
    ASSERT_EQ_I(sp_source_policy_init(&p, run, wd, NULL, 0), 0);
    ASSERT(p.wd_trusted);
    char *t;
    ASSERT_STREQ(try(&p, "ok.c", &t), "");
    ASSERT_STREQ(t, "int a;\nint b;\n");
    free(t);
    ASSERT_STREQ(try(&p, "in.c", &t), "");
    free(t);
    char abs[512];
    snprintf(abs, sizeof abs, "%s/ok.c", wd);
    ASSERT_STREQ(try(&p, abs, &t), "");
    free(t);
    ASSERT_CONTAINS(try(&p, "link.c", &t), "outside the run's working directory");
    ASSERT_CONTAINS(try(&p, "../secret/key.txt", &t), "outside");
    ASSERT_CONTAINS(try(&p, "/etc/passwd", &t), "outside");
    ASSERT_CONTAINS(try(&p, "/dev/zero", &t), "outside");
    ASSERT_CONTAINS(try(&p, ".git/config", &t), "hidden");
    ASSERT_CONTAINS(try(&p, "dir.c", &t), "a directory");
    ASSERT_CONTAINS(try(&p, "huge.c", &t), "larger than 16 MiB");
    ASSERT_CONTAINS(try(&p, "nope.c", &t), "not found");
    ASSERT_CONTAINS(try(&p, "", &t), "no file name");
    /* A FIFO with no writer: refused at once (O_NONBLOCK, then fstat). */
    time_t t0 = time(NULL);
    ASSERT_CONTAINS(try(&p, "fifo.c", &t), "not a regular file");
    ASSERT(time(NULL) - t0 < 5);
    sp_source_policy_free(&p);
}

static void test_run_from_elsewhere_needs_source_dir(void)
{
    char run[512];
    snprintf(run, sizeof run, "%s/run.h5", elsewhere);
    sp_source_policy p;
    ASSERT_EQ_I(sp_source_policy_init(&p, run, wd, NULL, 0), 0);
    ASSERT(!p.wd_trusted);
    char *t;
    ASSERT_CONTAINS(try(&p, "ok.c", &t), "outside");
    sp_source_policy_free(&p);
    const char *dirs[] = {wd};
    ASSERT_EQ_I(sp_source_policy_init(&p, run, wd, dirs, 1), 0);
    ASSERT_STREQ(try(&p, "ok.c", &t), "");
    free(t);
    ASSERT_CONTAINS(try(&p, "link.c", &t), "outside");
    sp_source_policy_free(&p);
    /* A file that claims "/" as its working directory vouches for nothing. */
    snprintf(run, sizeof run, "%s/run.h5", wd);
    ASSERT_EQ_I(sp_source_policy_init(&p, run, "/", NULL, 0), 0);
    ASSERT(!p.wd_trusted);
    ASSERT_CONTAINS(try(&p, "/etc/passwd", &t), "outside");
    sp_source_policy_free(&p);
}

static void test_source_dir_from_environment(void)
{
    char run[512];
    snprintf(run, sizeof run, "%s/run.h5", elsewhere);
    setenv(SP_SOURCE_DIR_ENV, wd, 1);
    sp_source_policy p;
    ASSERT_EQ_I(sp_source_policy_init(&p, run, NULL, NULL, 0), 0);
    unsetenv(SP_SOURCE_DIR_ENV);
    char *t;
    ASSERT_STREQ(try(&p, "ok.c", &t), ""); /* relative: looked up below the root */
    free(t);
    sp_source_policy_free(&p);
}

int main(void)
{
    setup();
    RUN(test_run_saved_in_its_working_directory);
    RUN(test_run_from_elsewhere_needs_source_dir);
    RUN(test_source_dir_from_environment);
    int failed = sp_test_summary();
    if (!failed) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
        if (system(cmd) != 0)
            return 1;
    }
    return failed;
}
