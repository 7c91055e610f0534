/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_read_isolated.c - reading a file in another process.
 *
 * libhdf5 (1.10) crashes or loops on some corruptions of its own structures
 * (global heap, metadata cache); nothing in our reader can prevent that, as
 * it happens inside H5Dread or H5Fopen. So the file is read by a child
 * process: it runs sp_h5_read() and sends the run (or the error) back through
 * a pipe (sp_h5_wire.c); the parent decodes it under its own read budget and
 * re-checks it. A child that dies by a signal or outlasts the timeout (it is
 * killed) becomes one error message, and the caller - the CLI, the viewer
 * with its other open runs - carries on.
 *
 * Two ways to start the child: fork() without exec, for single-threaded
 * callers (the CLI), and posix_spawn() of a helper program, for callers with
 * threads (the viewer spawns itself with --read-helper), since after fork()
 * in a threaded process only async-signal-safe calls are allowed.
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sp_error.h"
#include "sp_h5_internal.h"
#include "sp_h5_wire.h"

extern char **environ;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SP_UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SP_UNDER_SANITIZER 1
#endif
#endif

bool sp_h5_isolation_enabled(void)
{
    const char *e = getenv(SP_READ_ISOLATION_ENV);
    return !(e && strcmp(e, "0") == 0);
}

double sp_h5_read_timeout(void)
{
    const char *e = getenv(SP_READ_TIMEOUT_ENV);
    char *end;
    double v = e ? strtod(e, &end) : 0;
    if (e && end != e && *end == '\0' && v > 0 && v < 1e7)
        return v;
    return SP_READ_TIMEOUT_DEFAULT;
}

/*
 * The memory the reading process may use: the read limit (what our reader
 * charges before it allocates), a quarter more for what it does not charge
 * (sorting, HDF5's caches and per-chunk state), and 256 MiB for the
 * libraries (the reader needs under 64 MiB of address space for a small
 * run). libhdf5 allocates on its own, uncounted by the read budget: a file
 * that slipped past every check (sp__h5_chunks_check) then ends in a failed
 * allocation and an error naming this cap, not in gigabytes of swapping.
 * 0: no cap (read limit "unlimited"; sanitizer builds, whose shadow memory
 * is terabytes of address space: RLIMIT_DATA counts it too).
 */
static uint64_t memory_cap(void)
{
#ifdef SP_UNDER_SANITIZER
    return 0;
#else
    uint64_t lim = sp_h5_read_limit();
    if (lim >= UINT64_MAX / 4)
        return 0;
    return lim + lim / 4 + ((uint64_t)256 << 20);
#endif
}

static void limit_memory(void)
{
    uint64_t cap = memory_cap();
    if (!cap)
        return;
    struct rlimit rl = {(rlim_t)cap, (rlim_t)cap};
    setrlimit(RLIMIT_AS, &rl);
}

/* "(the reading process may use at most 5.2 GiB ...)" for a read that ran
 * out of memory under the cap. */
static void cap_note(uint64_t cap, char *buf, size_t n)
{
    char cap_s[32], lim_s[32];
    sp__h5_size_str(cap, cap_s, sizeof cap_s);
    sp__h5_size_str(sp_h5_read_limit(), lim_s, sizeof lim_s);
    snprintf(buf, n,
             " (the reading process may use at most %s of memory: the read limit of %s, a "
             "quarter more and 256 MiB for the libraries; raise it with %s=SIZE, or "
             "scope-profiler --read-limit SIZE)",
             cap_s, lim_s, SP_READ_LIMIT_ENV);
}

/* Whether a failed read's message says memory ran out (ours: SP_ENOMEM;
 * libhdf5's: "Resource unavailable", "memory allocation failed"). */
static bool out_of_memory(int status, const char *msg)
{
    return status == SP_ENOMEM || strstr(msg, "Resource unavailable") ||
           strstr(msg, "alloc") || strstr(msg, "out of memory");
}

void sp_h5_isolated_explain_oom(int status)
{
    uint64_t cap = memory_cap();
    const char *err = sp_last_error();
    if (!cap || !out_of_memory(status, err) || strstr(err, SP_READ_LIMIT_ENV))
        return;
    char msg[1024], note[320];
    snprintf(msg, sizeof msg, "%s", err);
    cap_note(cap, note, sizeof note);
    sp__error(status ? status : SP_ENOMEM, "%s%s", msg, note);
}

static int child_read(const char *path, int fd)
{
    int status = 0;
    sp_run *run = sp_h5_read(path, &status);
    if (!run)
        sp_h5_isolated_explain_oom(status);
    int rc = sp__h5_wire_write(fd, run, run ? 0 : (status ? status : SP_EIO),
                               run ? NULL : sp_last_error());
    sp_run_free(run);
    return rc == 0 ? 0 : 1;
}

int sp_h5_read_helper_main(const char *path)
{
    limit_memory();
    return child_read(path, 1);
}

void sp_h5_isolated_child_limits(void)
{
    limit_memory();
}

static const char *signal_text(int sig)
{
    switch (sig) {
    case SIGSEGV: return "a segmentation fault";
    case SIGBUS: return "a bus error";
    case SIGABRT: return "an abort";
    case SIGFPE: return "an arithmetic fault";
    case SIGILL: return "an illegal instruction";
    default: return "a signal";
    }
}

int sp_h5_isolated_call(const char *path, const sp_h5_isolation *how, sp_h5_child_fn child,
                        void *child_arg, sp_h5_parent_fn parent, void *parent_arg)
{
    int rc = 0, pfd[2] = {-1, -1};
    pid_t pid = -1;
    double timeout = how && how->timeout_s > 0 ? how->timeout_s : sp_h5_read_timeout();
    if (!path || !*path)
        return sp__error(SP_EINVAL, "sp_h5_read: no file name given");
    if (pipe2(pfd, O_CLOEXEC) != 0)
        return sp__error(SP_EIO, "cannot read '%s': pipe: %s", path, strerror(errno));
    /* A large pipe: what the child sends crosses in fewer, larger steps
     * (not fatal if refused: the default 64 KiB works too). */
    (void)fcntl(pfd[0], F_SETPIPE_SZ, 1 << 20);
    if (how && how->helper_argv) {
        size_t n = 0;
        while (how->helper_argv[n])
            n++;
        char **argv = calloc(n + 2, sizeof *argv);
        posix_spawn_file_actions_t fa;
        if (!argv || posix_spawn_file_actions_init(&fa) != 0) {
            free(argv);
            rc = sp__error(SP_ENOMEM, "out of memory");
            goto out;
        }
        memcpy(argv, how->helper_argv, n * sizeof *argv);
        argv[n] = (char *)path;
        posix_spawn_file_actions_adddup2(&fa, pfd[1], 1); /* dup2 clears CLOEXEC */
        int e = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        free(argv);
        if (e != 0) {
            pid = -1;
            rc = sp__error(SP_EIO, "cannot read '%s': cannot start %s: %s", path,
                           how->helper_argv[0], strerror(e));
            goto out;
        }
    } else {
        fflush(NULL); /* nothing buffered is written twice */
        pid = fork();
        if (pid < 0) {
            rc = sp__error(SP_EIO, "cannot read '%s': fork: %s", path, strerror(errno));
            goto out;
        }
        if (pid == 0) {
            close(pfd[0]);
            limit_memory();
            _exit(child(path, pfd[1], child_arg));
        }
    }
    close(pfd[1]);
    pfd[1] = -1;

    sp__read_budget budget;
    bool timed_out = false;
    if ((rc = sp__read_budget_begin(&budget, path, -1)) == 0) {
        rc = parent(pfd[0], how ? how->cancel_fd : -1, path, timeout, &timed_out, parent_arg);
        sp__read_budget_end(&budget);
    }
    if (timed_out)
        kill(pid, SIGKILL);
    /* Closed before waiting: a child still writing (the parent refused the
     * run early, over the budget) gets EPIPE instead of blocking forever. */
    close(pfd[0]);
    pfd[0] = -1;
    int ws = 0;
    struct rusage ru = {0};
    while (wait4(pid, &ws, 0, &ru) < 0 && errno == EINTR)
        ;
    int sig = WIFSIGNALED(ws) ? WTERMSIG(ws) : 0;
    /* A child that died near its memory cap (libhdf5 does not always check
     * a failed allocation) ran out of memory more likely than it crashed. */
    uint64_t cap = memory_cap();
    char note[320] = "";
    if (cap && (uint64_t)ru.ru_maxrss * 1024 >= cap / 2)
        cap_note(cap, note, sizeof note);
    if (timed_out && strstr(sp_last_error(), "was cancelled")) {
        /* the message stands */
    } else if (timed_out) {
        rc = sp__error(SP_EIO,
                       "'%s': reading took longer than %.0f s and was stopped: the file is "
                       "damaged or very large (%s=SECONDS allows longer)",
                       path, timeout, SP_READ_TIMEOUT_ENV);
    } else if (rc != 0 && sig == SIGKILL) {
        rc = sp__error(SP_ENOMEM, "'%s': the reading process was killed (out of memory?)%s",
                       path, note);
    } else if (rc != 0 && sig != 0 && sig != SIGPIPE) {
        /* Died before it could send the run or its error: HDF5 itself. */
        rc = sp__error(SP_EFORMAT,
                       "'%s' is a damaged HDF5 file: reading it crashed the HDF5 library (%s)%s",
                       path, signal_text(sig), note);
    }
out:
    if (pfd[0] >= 0)
        close(pfd[0]);
    if (pfd[1] >= 0)
        close(pfd[1]);
    return rc;
}

static int child_read_whole(const char *path, int fd, void *arg)
{
    (void)arg;
    return child_read(path, fd);
}

static int parent_read_whole(int fd, int cancel_fd, const char *path, double timeout,
                             bool *timed_out, void *arg)
{
    return sp__h5_wire_read(fd, cancel_fd, path, timeout, (sp_run **)arg, timed_out);
}

sp_run *sp_h5_read_isolated(const char *path, const sp_h5_isolation *how, int *status)
{
    sp_run *run = NULL;
    int rc = sp_h5_isolated_call(path, how, child_read_whole, NULL, parent_read_whole, &run);
    if (rc == 0 && !(run->source_path = strdup(path)))
        rc = sp__error(SP_ENOMEM, "out of memory");
    if (rc != 0) {
        sp_run_free(run);
        run = NULL;
    }
    if (status)
        *status = rc;
    return run;
}
