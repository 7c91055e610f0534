/* SPDX-License-Identifier: MIT */
/*
 * kill_load.c - the writer keeps its flush promise under load (issue 22,
 * P1): a program whose thread records flat out is SIGKILLed at random
 * times, mid-run and during sp_finalize; every file must open with our
 * reader and hold every call that had ended more than flush_interval +
 * margin before the kill.
 *
 *     kill_load DIR [--kills N] [--finalize-kills N] [--seed S]
 *                   [--interval SEC] [--margin SEC] [--max-run SEC]
 *
 * The driver starts itself as the recording program (an exec, so the
 * library starts fresh in it) with a page shared through a file in DIR.
 * The recording program runs two threads: "flat" records empty calls as
 * fast as it can, "slow" records calls that mostly sleep (tens of us: its
 * chunks fill slowly, the flushes must take them half full); after every
 * call each bumps its counter in the shared page. The
 * driver samples the counters every millisecond, with its own clock: a
 * sample (T, C) says at least C calls had ended by T. After the kill at K
 * the file must hold at least the C of the last sample at or before
 * K - interval - margin, for each thread. The finalize variant records
 * for a random time, then calls sp_finalize (the page says when), and is
 * killed at a random instant of it (the driver learns how long finalize
 * takes from the runs that finish before their kill).
 *
 * Everything random comes from --seed (printed; default: the time), so a
 * failure can be replayed. Prints per kill the lag measured (how long
 * before the kill the last call the file holds had ended, at most) and
 * "kill load: ok" on success.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scope_profiler.h"
#include "busy.h"
#include "sp_h5.h"
#include "sp_model.h"

enum { PHASE_START, PHASE_RECORDING, PHASE_FINALIZING, PHASE_DONE };

typedef struct shared {
    uint64_t ended[2]; /* calls ended: flat, slow (atomic) */
    int phase;         /* atomic */
    int finalize_rc;
} shared;


static shared *map_shared(const char *path, bool create)
{
    int fd = open(path, O_RDWR | O_CLOEXEC | (create ? O_CREAT | O_TRUNC : 0), 0600);
    if (fd < 0 || (create && ftruncate(fd, 4096) != 0)) {
        perror(path);
        exit(2);
    }
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(2);
    }
    return p;
}

/* ---------------------------------------------------------------- the recording program */

static shared *sh;

static void *slow_thread(void *arg)
{
    (void)arg;
    const struct timespec pause = {0, 20000};
    for (uint64_t n = 1;; n++) {
        SP_SCOPE("slow")
        {
            spin(800);
            nanosleep(&pause, NULL);
        }
        __atomic_store_n(&sh->ended[1], n, __ATOMIC_RELEASE);
    }
    return NULL;
}

static void *flat_thread(void *arg)
{
    double stop_at = *(const double *)arg;
    sp_region *flat = sp_region_get("flat");
    for (uint64_t n = 1;; n++) {
        sp_region_begin(flat);
        sp_region_end(flat);
        __atomic_store_n(&sh->ended[0], n, __ATOMIC_RELEASE);
        if ((n & 1023) == 0 && stop_at > 0 && now_s() >= stop_at)
            break;
    }
    return NULL;
}

/* kill_load record FILE SHM INTERVAL FINALIZE_AFTER (0: never) */
static int record(char **argv)
{
    sh = map_shared(argv[3], false);
    double interval = atof(argv[4]), finalize_after = atof(argv[5]);
    sp_options o;
    sp_options_init(&o);
    o.file_path = argv[2];
    o.flush_interval = interval;
    if (sp_setup(&o) != 0) {
        fprintf(stderr, "kill_load: sp_setup: %s\n", sp_last_error());
        return 1;
    }
    double stop_at = finalize_after > 0 ? now_s() + finalize_after : 0;
    pthread_t slow, flat;
    pthread_create(&slow, NULL, slow_thread, NULL);
    pthread_create(&flat, NULL, flat_thread, &stop_at);
    __atomic_store_n(&sh->phase, PHASE_RECORDING, __ATOMIC_RELEASE);
    pthread_join(flat, NULL); /* mid-run: never returns, the driver kills */
    /* The slow thread keeps running: finalize races a recording thread. */
    __atomic_store_n(&sh->phase, PHASE_FINALIZING, __ATOMIC_RELEASE);
    sh->finalize_rc = sp_finalize(false, NULL);
    __atomic_store_n(&sh->phase, PHASE_DONE, __ATOMIC_RELEASE);
    for (;;)
        pause(); /* the driver kills it */
}

/* ---------------------------------------------------------------- the driver */

typedef struct sample {
    double t;
    uint64_t ended[2];
} sample;

#define MAX_SAMPLES 200000

static uint64_t rng_state;
static double rnd(void) /* [0, 1), splitmix64 */
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0;
}

typedef struct opts {
    const char *dir;
    int kills, finalize_kills;
    unsigned long long seed;
    double interval, margin, max_run;
} opts;

/* Calls of region `name` in the file, all threads. */
static long long calls_of(const sp_run *run, const char *name)
{
    int32_t id = sp_run_region_id(run, name);
    long long n = 0;
    for (size_t r = 0; r < run->nranks; r++)
        for (size_t i = 0; id >= 0 && i < run->ranks[r].ncalls; i++)
            n += run->ranks[r].region[i] == id;
    return n;
}

static int bad;
static double worst_lag;

/* One run: start, sample, kill at kill_after (s after recording began;
 * finalize variant: after finalize began), check the file. */
static void trial(const opts *o, const char *self, int index, bool fin, double run_for,
                  double kill_after, double *fin_estimate, int *in_finalize)
{
    char file[4096], shm[4096];
    snprintf(file, sizeof file, "%s/run%d.h5", o->dir, index);
    snprintf(shm, sizeof shm, "%s/shm%d", o->dir, index);
    shared *s = map_shared(shm, true);
    static sample samples[MAX_SAMPLES];
    size_t ns = 0;
    char interval[32], after[32];
    snprintf(interval, sizeof interval, "%g", o->interval);
    snprintf(after, sizeof after, "%g", fin ? run_for : 0.0);
    pid_t pid = fork();
    if (pid == 0) {
        execl(self, self, "record", file, shm, interval, after, (char *)NULL);
        _exit(127);
    }
    double t_fork = now_s(), t_rec = 0, t_fin = 0, t_done = 0, kill_at = 0;
    int phase = PHASE_START;
    for (;;) {
        double t = now_s();
        int ph = __atomic_load_n(&s->phase, __ATOMIC_ACQUIRE);
        sample sm = {t, {__atomic_load_n(&s->ended[0], __ATOMIC_ACQUIRE),
                         __atomic_load_n(&s->ended[1], __ATOMIC_ACQUIRE)}};
        if (ns < MAX_SAMPLES)
            samples[ns++] = sm;
        if (ph >= PHASE_RECORDING && !t_rec) {
            t_rec = t;
            if (!fin)
                kill_at = t + kill_after;
        }
        if (ph >= PHASE_FINALIZING && !t_fin) {
            t_fin = t;
            kill_at = t + kill_after;
        }
        /* Calls the slow thread begins once finalize began are not
         * recorded (by design): count only those ended before. */
        if (t_fin && ns > 1)
            samples[ns - 1].ended[1] = samples[ns - 2].ended[1];
        if (ph >= PHASE_DONE && !t_done)
            t_done = t;
        phase = ph;
        if (kill_at && t >= kill_at)
            break;
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) {
            printf("FAIL: trial %d: the recording program ended by itself (status %d)\n",
                   index, st);
            bad = 1;
            munmap(s, 4096);
            return;
        }
        usleep(1000);
    }
    double k = now_s();
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    if (fin && t_done)
        *fin_estimate = t_done - t_fin > *fin_estimate ? t_done - t_fin : *fin_estimate;
    if (fin && phase == PHASE_FINALIZING)
        (*in_finalize)++;

    /* What must be there: the last sample at or before k - interval - margin. */
    double due = k - o->interval - o->margin;
    uint64_t need[2] = {0, 0};
    for (size_t i = 0; i < ns && samples[i].t <= due; i++)
        need[0] = samples[i].ended[0], need[1] = samples[i].ended[1];
    int st = 0;
    double t_read = now_s();
    sp_run *run = sp_h5_read(file, &st);
    t_read = now_s() - t_read;
    const char *what = fin ? (phase == PHASE_DONE       ? "after finalize"
                              : phase == PHASE_FINALIZING ? "during finalize"
                                                          : "before finalize")
                           : "mid-run";
    if (!run) {
        printf("FAIL: trial %d (%s, killed %.3f s after %s): the file does not read: %s\n",
               index, what, k - (fin ? t_fin : t_rec), fin ? "finalize began" : "recording began",
               sp_last_error());
        bad = 1;
        munmap(s, 4096);
        return;
    }
    long long got[2] = {calls_of(run, "flat"), calls_of(run, "slow")};
    /* The lag: the kill minus the time by which the file's calls had all
     * ended (the first sample that counts more than the file holds). */
    double lag = 0;
    for (int th = 0; th < 2; th++) {
        double covered = t_rec;
        for (size_t i = 0; i < ns && samples[i].ended[th] <= (uint64_t)got[th]; i++)
            covered = samples[i].t;
        bool all = ns && samples[ns - 1].ended[th] <= (uint64_t)got[th];
        double l = all ? 0 : k - covered;
        lag = l > lag ? l : lag;
    }
    if (lag > worst_lag)
        worst_lag = lag;
    printf("trial %2d %-15s killed at %.3f s: flat %lld calls (%llu due), slow %lld (%llu "
           "due); lag %.3f s (start %.2f s, read %.2f s)\n",
           index, what, k - t_rec, got[0], (unsigned long long)need[0], got[1],
           (unsigned long long)need[1], lag, t_rec - t_fork, t_read);
    for (int th = 0; th < 2; th++)
        if ((uint64_t)got[th] < need[th]) {
            printf("FAIL: trial %d: %s: %lld calls in the file, %llu had ended %.3f s "
                   "(interval + margin) before the kill\n",
                   index, th ? "slow" : "flat", got[th], (unsigned long long)need[th],
                   o->interval + o->margin);
            bad = 1;
        }
    if (fin && phase == PHASE_DONE && s->finalize_rc != 0 && s->finalize_rc != SP_EUNBALANCED) {
        printf("FAIL: trial %d: sp_finalize returned %d\n", index, s->finalize_rc);
        bad = 1;
    }
    sp_run_free(run);
    munmap(s, 4096);
    if (!bad) { /* keep the files of a failure */
        char part[4200];
        snprintf(part, sizeof part, "%s.rank0.part", file);
        unlink(file);
        unlink(part);
        unlink(shm);
    }
}

static void usage(void)
{
    fprintf(stderr, "usage: kill_load DIR [--kills N] [--finalize-kills N] [--seed S] "
                    "[--interval SEC] [--margin SEC] [--max-run SEC]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    if (argc == 6 && strcmp(argv[1], "record") == 0)
        return record(argv);
    if (argc < 2)
        usage();
    opts o = {argv[1], 10, 10, (unsigned long long)time(NULL), 0.25, 0.5, 1.3};
    for (int i = 2; i < argc; i++) {
        if (i + 1 >= argc)
            usage();
        if (strcmp(argv[i], "--kills") == 0)
            o.kills = atoi(argv[++i]);
        else if (strcmp(argv[i], "--finalize-kills") == 0)
            o.finalize_kills = atoi(argv[++i]);
        else if (strcmp(argv[i], "--seed") == 0)
            o.seed = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--interval") == 0)
            o.interval = atof(argv[++i]);
        else if (strcmp(argv[i], "--margin") == 0)
            o.margin = atof(argv[++i]);
        else if (strcmp(argv[i], "--max-run") == 0)
            o.max_run = atof(argv[++i]);
        else
            usage();
    }
    mkdir(o.dir, 0700);
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return 2;
    self[n] = '\0';
    rng_state = o.seed;
    printf("kill load: seed %llu (replay with --seed %llu), flush interval %g s, margin %g s\n",
           o.seed, o.seed, o.interval, o.margin);
    fflush(stdout);
    int index = 0, in_finalize = 0;
    double fin_estimate = 0.2;
    for (int i = 0; i < o.kills; i++, index++) {
        /* Mostly past interval + margin, so that calls are due. */
        trial(&o, self, index, false, 0, 0.4 + rnd() * (o.max_run - 0.4), &fin_estimate,
              &in_finalize);
        fflush(stdout);
    }
    for (int i = 0; i < o.finalize_kills; i++, index++) {
        double run_for = 0.3 + rnd() * (o.max_run - 0.3);
        trial(&o, self, index, true, run_for, rnd() * fin_estimate, &fin_estimate,
              &in_finalize);
        fflush(stdout);
    }
    printf("kill load: %d kills mid-run, %d in finalize's window (%d during it); worst lag "
           "%.3f s (flush interval %g s + margin %g s allowed)\n",
           o.kills, o.finalize_kills, in_finalize, worst_lag, o.interval, o.margin);
    if (o.finalize_kills > 0 && in_finalize == 0) {
        printf("FAIL: no kill landed during sp_finalize\n");
        bad = 1;
    }
    if (!bad)
        printf("kill load: ok\n");
    return bad;
}
