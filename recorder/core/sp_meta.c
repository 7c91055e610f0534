/* SPDX-License-Identifier: MIT */
/*
 * sp_meta.c - the facts recorded automatically about a run (plain
 * lower_snake keys in run->meta; the writer stores each as a string
 * attribute of /metadata), and the user's own keys.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <gnu/libc-version.h>
#endif

#include "sp_error.h"
#include "sp_mpi.h"
#include "sp_recorder.h"

extern char **environ;

sp_kvlist sp__user_meta;

/* Keys the recorder owns; sp_metadata_set() refuses them (and the prefixes
 * below) so a user key never silently hides a fact about the run. */
/*
 * omp_num_threads: what OpenMP would use for a parallel region, when the
 * program links an OpenMP runtime (omp_get_max_threads found with dlsym:
 * the library itself never links one); else $OMP_NUM_THREADS as set; else
 * "" (no OpenMP here).
 */
static void omp_threads(char *buf, size_t n)
{
    typedef int (*max_threads_fn)(void);
    max_threads_fn fn = (max_threads_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "omp_get_max_threads");
    const char *env = getenv("OMP_NUM_THREADS");
    if (fn)
        snprintf(buf, n, "%d", fn());
    else
        snprintf(buf, n, "%s", env ? env : "");
}

static const char *const reserved[] = {
    "timestamp", "hostname", "user", "command_line", "working_directory",
    "scope_profiler_version", "compiler", "cpu_model", "total_cores", "clock_source",
    "num_threads", "omp_num_threads", "mpi_size", "pid", "platform",
    "mpi_writer", /* set under MPI (sp_mpi_session.c) */
    "mpi_misuse", /* the serial library under mpirun (sp_mpi_launcher.c) */
    "path_in_use", /* file_path was another live run's (sp_stream_files.c) */
};
static const char *const reserved_prefix[] = {"slurm_", "clock_"};

bool sp__meta_reserved(const char *key)
{
    for (size_t i = 0; i < sizeof reserved / sizeof *reserved; i++)
        if (strcmp(key, reserved[i]) == 0)
            return true;
    for (size_t i = 0; i < sizeof reserved_prefix / sizeof *reserved_prefix; i++)
        if (strncmp(key, reserved_prefix[i], strlen(reserved_prefix[i])) == 0)
            return true;
    return false;
}

#if defined(__clang__)
#define SP__COMPILER __VERSION__ /* "Clang x.y.z ..." already names it */
#elif defined(__GNUC__)
#define SP__COMPILER "GCC " __VERSION__
#else
#define SP__COMPILER "unknown"
#endif

/* Arguments joined by spaces; an argument with spaces or quotes is
 * single-quoted so the line can be pasted back into a shell. */
static void command_line(char *out, size_t size)
{
    out[0] = '\0';
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (!f)
        return;
    char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    size_t len = 0;
    for (size_t i = 0; i < n; i += strlen(buf + i) + 1) {
        const char *arg = buf + i;
        bool quote = *arg == '\0' || strpbrk(arg, " \t\"'\\$`") != NULL;
        int w = snprintf(out + len, size - len, "%s%s%s%s", len ? " " : "", quote ? "'" : "",
                         arg, quote ? "'" : "");
        if (w < 0 || (size_t)w >= size - len)
            break;
        len += (size_t)w;
    }
}

static void cpu_model(char *out, size_t size)
{
    out[0] = '\0';
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[1024];
    /* x86 says "model name"; other architectures "Processor" or "cpu model". */
    static const char *const keys[] = {"model name", "cpu model", "Processor", "cpu"};
    int best = 4;
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        for (int k = 0; k < best; k++) {
            size_t kl = strlen(keys[k]);
            if (strncmp(line, keys[k], kl) != 0 || line + kl + strspn(line + kl, " \t") != colon)
                continue; /* "cpu" must not match "cpu family" */
            const char *v = colon + 1;
            while (isspace((unsigned char)*v))
                v++;
            snprintf(out, size, "%s", v);
            out[strcspn(out, "\n")] = '\0';
            best = k;
            break;
        }
    }
    fclose(f);
}

/* Like Python's platform.platform(): "Linux-6.1.0-x86_64-with-glibc2.36". */
static void platform(char *out, size_t size)
{
    struct utsname u;
    if (uname(&u) != 0) {
        snprintf(out, size, "unknown");
        return;
    }
#if defined(__GLIBC__)
    snprintf(out, size, "%s-%s-%s-with-glibc%s", u.sysname, u.release, u.machine,
             gnu_get_libc_version());
#else
    snprintf(out, size, "%s-%s-%s", u.sysname, u.release, u.machine);
#endif
}

static const char *user_name(void)
{
    const char *u = getenv("USER");
    if (u && *u)
        return u;
    struct passwd *pw = getpwuid(geteuid());
    return pw && pw->pw_name ? pw->pw_name : "";
}

#define SET(list, k, v)                                                        \
    do {                                                                       \
        if (sp_kvlist_set((list), (k), (v)) != 0)                              \
            return SP_ENOMEM;                                                  \
    } while (0)

static int fill_slurm(sp_kvlist *meta)
{
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "SLURM_", 6) != 0 || !strchr(*e, '='))
            continue;
        char key[256];
        size_t n = (size_t)(strchr(*e, '=') - *e);
        if (n >= sizeof key)
            continue;
        for (size_t i = 0; i < n; i++)
            key[i] = (char)tolower((unsigned char)(*e)[i]);
        key[n] = '\0';
        SET(meta, key, *e + n + 1);
    }
    return 0;
}

static int fill_clock(sp_kvlist *meta, bool at_setup)
{
    const sp__clock_calib *c = &sp__sess.calib;
    char v[64];
    SET(meta, "clock_source", sp__clock_name(c->source));
    if (c->source != SP__CLOCK_TSC || at_setup) /* the file's clock table has the points */
        return 0;
    snprintf(v, sizeof v, "%.0f", sp__clock_hz(c));
    SET(meta, "clock_tsc_hz", v);
    snprintf(v, sizeof v, "%lld", (long long)c->p0.ticks);
    SET(meta, "clock_calibration_start_ticks", v);
    snprintf(v, sizeof v, "%lld", (long long)c->p0.ns);
    SET(meta, "clock_calibration_start_ns", v);
    snprintf(v, sizeof v, "%lld", (long long)c->p1.ticks);
    SET(meta, "clock_calibration_end_ticks", v);
    snprintf(v, sizeof v, "%lld", (long long)c->p1.ns);
    SET(meta, "clock_calibration_end_ns", v);
    return 0;
}

static int fill(sp_run *run, size_t num_threads, bool at_setup)
{
    sp_kvlist *m = &run->meta;
    char buf[8192];

    SET(m, "timestamp", sp__sess.timestamp);
    if (gethostname(buf, sizeof buf) != 0)
        buf[0] = '\0';
    buf[sizeof buf - 1] = '\0';
    SET(m, "hostname", buf);
    SET(&run->ranks[0].meta, "hostname", buf);
    SET(m, "user", user_name());
    command_line(buf, sizeof buf);
    SET(m, "command_line", buf);
    SET(m, "working_directory", getcwd(buf, sizeof buf) ? buf : "");
    SET(m, "scope_profiler_version", sp_version());
    SET(m, "compiler", SP__COMPILER);
    cpu_model(buf, sizeof buf);
    SET(m, "cpu_model", buf);
    snprintf(buf, sizeof buf, "%ld", sysconf(_SC_NPROCESSORS_ONLN));
    SET(m, "total_cores", buf);
    if (fill_clock(m, at_setup) != 0)
        return SP_ENOMEM;
    snprintf(buf, sizeof buf, "%zu", num_threads);
    if (!at_setup)
        SET(m, "num_threads", buf);
    omp_threads(buf, sizeof buf);
    SET(m, "omp_num_threads", buf);
    if (fill_slurm(m) != 0)
        return SP_ENOMEM;
    SET(m, "mpi_size", "1");
    const char *misuse = sp__mpi_misuse_note(NULL);
    if (misuse)
        SET(m, "mpi_misuse", misuse);
    if (sp__sess.path_note[0])
        SET(m, "path_in_use", sp__sess.path_note);
    snprintf(buf, sizeof buf, "%ld", (long)getpid());
    SET(m, "pid", buf);
    SET(&run->ranks[0].meta, "pid", buf);
    platform(buf, sizeof buf);
    SET(m, "platform", buf);

    for (size_t i = 0; i < sp__user_meta.n; i++)
        SET(m, sp__user_meta.items[i].key, sp__user_meta.items[i].value);
    return 0;
}

int sp__meta_fill(sp_run *run, size_t num_threads, bool at_setup)
{
    if (fill(run, num_threads, at_setup) != 0)
        return sp__error(SP_ENOMEM, "sp_finalize: out of memory recording the run metadata");
    return 0;
}

int sp_metadata_set(const char *key, const char *value)
{
    if (!key || !*key)
        return sp__error(SP_EINVAL, "sp_metadata_set: the key is %s", key ? "empty" : "NULL");
    if (!value)
        return sp__error(SP_EINVAL, "sp_metadata_set: the value of '%s' is NULL", key);
    if (sp__meta_reserved(key))
        return sp__error(SP_EINVAL,
                         "sp_metadata_set: '%s' is reserved (the recorder sets it itself)", key);
    pthread_mutex_lock(&sp__lock);
    int rc = sp_kvlist_set(&sp__user_meta, key, value);
    pthread_mutex_unlock(&sp__lock);
    return rc;
}
