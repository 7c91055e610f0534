/* SPDX-License-Identifier: MIT */
/*
 * sp_preload.c - libscope_profiler_preload.so: profile a program that was
 * never edited. `scope-profiler run PROGRAM` sets LD_PRELOAD to this library
 * (the whole scope-profiler library plus this file) and SCOPE_PROFILER_RUN=1.
 *
 * At load (constructor) a session starts. If the executable was compiled
 * with -finstrument-functions (it imports __cyg_profile_func_enter), every
 * function call of every thread is traced (sp__trace_all); otherwise every
 * thread's call stack is sampled (sp_stacksample.c; threads are followed by
 * wrapping pthread_create). The session is finalized and written when the
 * program ends: return from main or exit() (atexit), a SIGINT or SIGTERM it
 * does not handle itself (handler: finalize, then re-raise with the default
 * action), or MPI_Finalize (before the real one, so that an MPI build of the
 * library can gather the ranks into one file). _exit(), abort() and SIGKILL
 * write nothing.
 *
 * Environment (set by `scope-profiler run`):
 *   SCOPE_PROFILER_RUN=1            activate (cleared at once: children of the
 *                                   program are not profiled)
 *   SCOPE_PROFILER_FILE=path        output (sp_setup reads it)
 *   SCOPE_PROFILER_RUN_MODE=auto|trace|sample
 *   SCOPE_PROFILER_RUN_ALL=1        keep libc / loader / system library frames
 *   SCOPE_PROFILER_SAMPLE_HZ=n      stack samples per second of CPU time (1000)
 *   SCOPE_PROFILER_RUN_QUIET=1      no summary on stderr
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_analysis.h"
#include "sp_modes.h"

static int started; /* a session of ours is running */
static int quiet;
static pthread_mutex_t finish_lock = PTHREAD_MUTEX_INITIALIZER;

static bool env_true(const char *name)
{
    const char *v = getenv(name);
    return v && (strcmp(v, "1") == 0 || strcmp(v, "true") == 0 || strcmp(v, "yes") == 0);
}

/* ---- is the executable instrumented? ---- */

/* Whether /proc/self/exe's dynamic symbol table names the hook, i.e. the
 * program was compiled (at least partly) with -finstrument-functions. */
static bool exe_is_instrumented(void)
{
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool found = false;
    Elf64_Ehdr eh;
    Elf64_Shdr *sh = NULL;
    char *str = NULL;
    Elf64_Sym *syms = NULL;
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 || eh.e_shnum > 4096)
        goto done;
    size_t shbytes = (size_t)eh.e_shnum * sizeof *sh;
    if (!(sh = malloc(shbytes)) || pread(fd, sh, shbytes, (off_t)eh.e_shoff) != (ssize_t)shbytes)
        goto done;
    for (unsigned i = 0; i < eh.e_shnum && !found; i++) {
        if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh.e_shnum ||
            sh[i].sh_size > (64u << 20))
            continue;
        const Elf64_Shdr *ss = &sh[sh[i].sh_link];
        if (ss->sh_size > (64u << 20))
            continue;
        free(syms);
        free(str);
        syms = malloc(sh[i].sh_size);
        str = malloc(ss->sh_size + 1);
        if (!syms || !str ||
            pread(fd, syms, sh[i].sh_size, (off_t)sh[i].sh_offset) != (ssize_t)sh[i].sh_size ||
            pread(fd, str, ss->sh_size, (off_t)ss->sh_offset) != (ssize_t)ss->sh_size)
            break;
        str[ss->sh_size] = '\0';
        for (size_t k = 0; k < sh[i].sh_size / sizeof *syms; k++)
            if (syms[k].st_name < ss->sh_size &&
                strcmp(str + syms[k].st_name, "__cyg_profile_func_enter") == 0)
                found = true;
    }
done:
    free(sh);
    free(syms);
    free(str);
    close(fd);
    return found;
}

/* ---- finishing ---- */

static void finish(void)
{
    pthread_mutex_lock(&finish_lock);
    if (!started) {
        pthread_mutex_unlock(&finish_lock);
        return;
    }
    started = 0;
    __atomic_store_n(&sp__trace_all, 0, __ATOMIC_RELAXED);
    if (!__atomic_load_n(&sp__sess.active, __ATOMIC_ACQUIRE)) {
        /* Already finalized: by MPI_Finalize (MPI build), or by the program. */
        pthread_mutex_unlock(&finish_lock);
        return;
    }
    sp__stacks_thread_stop();
    sp__trace_close_thread(); /* main() and its callees never return */
    sp_run *run = NULL;
    int rc = sp_finalize(false, &run);
    if (rc != 0 && rc != SP_EUNBALANCED) /* open calls of other threads are normal here */
        fprintf(stderr, "scope-profiler run: %s\n", sp_last_error());
    if (run && !quiet) {
        sp__modes_print_warnings(stderr);
        /* The output path was another live run's: this run's file is
         * another (the summary's header names it). */
        const char *moved = sp_kvlist_get(&run->meta, "path_in_use");
        if (moved)
            fprintf(stderr, "scope-profiler run: warning: %s\n", moved);
        sp_print_summary(run, run->source_path, stderr);
    }
    sp_run_free(run);
    pthread_mutex_unlock(&finish_lock);
}

static void on_exit_handler(void)
{
    finish();
}

__attribute__((destructor)) static void preload_stop(void)
{
    finish();
}

/* SIGINT / SIGTERM the program does not handle: write the file, then die of
 * the signal as the program would have (best effort: finalizing is not
 * async-signal-safe, a signal that lands inside malloc can deadlock). */
static void on_terminate(int sig)
{
    signal(sig, SIG_DFL); /* a second signal kills at once */
    finish();
    raise(sig);
}

static void catch_if_default(int sig)
{
    struct sigaction old;
    if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_DFL)
        signal(sig, on_terminate);
}

/* Keep exec'ed children out: they would start sessions of their own. */
static void forget_environment(void)
{
    unsetenv("SCOPE_PROFILER_RUN");
    const char *pre = getenv("LD_PRELOAD");
    if (!pre)
        return;
    char *copy = strdup(pre), out[4096] = "";
    if (!copy)
        return;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ": ", &save); tok; tok = strtok_r(NULL, ": ", &save)) {
        if (strstr(tok, "libscope_profiler_preload"))
            continue;
        size_t n = strlen(out);
        snprintf(out + n, sizeof out - n, "%s%s", n ? ":" : "", tok);
    }
    free(copy);
    if (*out)
        setenv("LD_PRELOAD", out, 1);
    else
        unsetenv("LD_PRELOAD");
}

/* Under mpirun with the serial library every rank would write the same
 * file: give each its own, "<stem>.rank<N>.h5". */
static void per_rank_file(void)
{
#ifndef SP_PRELOAD_MPI
    static const char *const rank_vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                            "SLURM_PROCID"};
    const char *rank = NULL;
    for (size_t i = 0; i < sizeof rank_vars / sizeof *rank_vars && !rank; i++)
        rank = getenv(rank_vars[i]);
    if (!rank || !*rank || (getenv("SLURM_PROCID") == rank && !getenv("SLURM_NTASKS")))
        return;
    const char *f = getenv("SCOPE_PROFILER_FILE");
    char path[4096];
    snprintf(path, sizeof path, "%s", f && *f ? f : "profiling_data.h5");
    char *dot = strrchr(path, '.');
    char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        dot = path + strlen(path);
    char ext[64];
    snprintf(ext, sizeof ext, "%s", *dot ? dot : ".h5");
    snprintf(dot, sizeof path - (size_t)(dot - path), ".rank%s%s", rank, ext);
    setenv("SCOPE_PROFILER_FILE", path, 1);
#endif
}

__attribute__((constructor)) static void preload_start(void)
{
    if (!env_true("SCOPE_PROFILER_RUN"))
        return;
    forget_environment();
    quiet = env_true("SCOPE_PROFILER_RUN_QUIET");
    const char *mode = getenv("SCOPE_PROFILER_RUN_MODE");
    bool trace = mode && strcmp(mode, "trace") == 0;
    if (!mode || !*mode || strcmp(mode, "auto") == 0)
        trace = exe_is_instrumented();
    unsigned hz = SP__DEFAULT_LINE_HZ;
    const char *h = getenv("SCOPE_PROFILER_SAMPLE_HZ");
    if (h && *h)
        hz = (unsigned)strtoul(h, NULL, 10);

    per_rank_file();
    sp_options o;
    sp_options_init(&o);
    if (sp_setup(&o) != 0) {
        fprintf(stderr, "scope-profiler run: %s\n", sp_last_error());
        return;
    }
    if (trace) {
        __atomic_store_n(&sp__trace_all, 1, __ATOMIC_RELAXED);
    } else if (sp__stacks_start(hz, env_true("SCOPE_PROFILER_RUN_ALL")) == 0) {
        sp__stacks_thread_start();
    } else {
        fprintf(stderr, "scope-profiler run: %s\n", sp_last_error());
        return;
    }
    sp_metadata_set("run_mode", trace ? "traced (-finstrument-functions)" : "sampled call stacks");
    started = 1;
    atexit(on_exit_handler);
    catch_if_default(SIGINT);
    catch_if_default(SIGTERM);
}

/* ---- threads (sampling follows every thread) ---- */

typedef struct start_arg {
    void *(*fn)(void *);
    void *arg;
} start_arg;

static void *thread_start(void *p)
{
    start_arg a = *(start_arg *)p;
    free(p);
    sp__stacks_thread_start();
    void *r = a.fn(a.arg);
    sp__stacks_thread_stop();
    return r;
}

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    static create_fn real;
    if (!real)
        real = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
    if (!real)
        return EAGAIN;
    start_arg *a = sp__stacks_active() ? malloc(sizeof *a) : NULL;
    if (!a)
        return real(t, attr, fn, arg);
    a->fn = fn;
    a->arg = arg;
    int rc = real(t, attr, thread_start, a);
    if (rc != 0)
        free(a);
    return rc;
}

/* ---- MPI ---- */

#ifndef SP_PRELOAD_MPI
/* The serial build writes one file per process (per_rank_file()), before
 * MPI goes away. The MPI build of the library wraps MPI_Finalize itself and
 * finalizes the session there, every rank into one file. */
int MPI_Finalize(void);
int MPI_Finalize(void)
{
    finish();
    int (*real)(void) = (int (*)(void))dlsym(RTLD_NEXT, "MPI_Finalize");
    return real ? real() : 0;
}
#endif
