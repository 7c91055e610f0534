/* SPDX-License-Identifier: MIT */
/*
 * heat_solver.c - a small 2-D heat-equation mini-app (explicit Jacobi
 * iteration on an N x N grid), instrumented the way a real code would be.
 * The README's rate table measures `check` on it beside the LULESH-shaped
 * examples/lulesh_proxy.c (which tests/compare/ and compare_rates.sh run).
 *
 * Regions, from microseconds to tens of milliseconds (N = 512, 640 steps):
 *   setup          once      allocate, initial condition (sin x sin)   ~tens of ms
 *   timestep       per step  everything below
 *   apply_bc       per step  Dirichlet boundary on the four edges      ~microseconds
 *   pack_halo      per step  copy the edge rows to exchange buffers    ~microseconds
 *   jacobi_sweep   per step  the 5-point stencil: the main region      ~ms, ~80 % of the run
 *   residual       every 10  L2 norm of the update                     ~0.1-1 ms
 *   log_progress   every 10  format a progress line (not printed)      ~microseconds
 *   checkpoint     every 160 copy the grid and checksum it             ~ms
 *   finalize       once      checksum and free                         ~ms
 *
 * The knob --slow-sweep F makes jacobi_sweep do F more of its work (real
 * arithmetic: the stencil is computed again for the first F of the rows,
 * same memory traffic, same result), so F = 0.25 makes it ~25 % slower and
 * nothing else.
 *
 *   heat_solver [-o OUT.h5] [--n N] [--steps S] [--slow-sweep F]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scope_profiler.h>

typedef struct grid {
    int n;            /* points per side, boundary included */
    double *u, *next; /* n x n, row major */
    double *halo[4];  /* packed edges: north, south, west, east */
    double *scratch;  /* one row of scratch space */
    double *saved;    /* checkpoint copy */
} grid;

static volatile double sink; /* keeps the optimiser from dropping results */

static int setup(grid *g, int n)
{
    SP_SCOPE("setup")
    {
        g->n = n;
        size_t cells = (size_t)n * (size_t)n;
        g->u = malloc(cells * sizeof *g->u);
        g->next = malloc(cells * sizeof *g->next);
        g->saved = malloc(cells * sizeof *g->saved);
        g->scratch = malloc((size_t)n * sizeof *g->scratch);
        for (int k = 0; k < 4; k++)
            g->halo[k] = malloc((size_t)n * sizeof *g->halo[k]);
        if (!g->u || !g->next || !g->saved || !g->scratch || !g->halo[0] || !g->halo[1] ||
            !g->halo[2] || !g->halo[3])
            return -1;
        /* A smooth initial temperature with a hot spot. */
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double x = (double)i / (n - 1), y = (double)j / (n - 1);
                double hot = exp(-40 * ((x - 0.3) * (x - 0.3) + (y - 0.6) * (y - 0.6)));
                g->u[(size_t)i * n + j] = sin(M_PI * x) * sin(M_PI * y) + hot;
            }
        /* Every page is touched here (first touch), as a real code's
         * initialisation would, not later inside the timed regions. */
        memcpy(g->next, g->u, cells * sizeof *g->u);
        memset(g->saved, 0, cells * sizeof *g->saved);
    }
    return 0;
}

static void apply_bc(grid *g)
{
    SP_FUNCTION();
    int n = g->n;
    for (int k = 0; k < n; k++) {
        g->u[k] = 0;
        g->u[(size_t)(n - 1) * n + k] = 0;
        g->u[(size_t)k * n] = 0;
        g->u[(size_t)k * n + n - 1] = 0;
    }
}

static void pack_halo(grid *g)
{
    SP_FUNCTION();
    int n = g->n;
    memcpy(g->halo[0], g->u + n, (size_t)n * sizeof *g->u);
    memcpy(g->halo[1], g->u + (size_t)(n - 2) * n, (size_t)n * sizeof *g->u);
    for (int k = 0; k < n; k++) {
        g->halo[2][k] = g->u[(size_t)k * n + 1];
        g->halo[3][k] = g->u[(size_t)k * n + n - 2];
    }
}

/* One row of the stencil: out[j] for interior j of row i. */
static void stencil_row(const double *u, double *out, int n, int i, double r)
{
    const double *up = u + (size_t)(i - 1) * n, *mid = u + (size_t)i * n,
                 *down = u + (size_t)(i + 1) * n;
    for (int j = 1; j < n - 1; j++)
        out[j] = mid[j] + r * (up[j] + down[j] + mid[j - 1] + mid[j + 1] - 4 * mid[j]);
}

static void jacobi_sweep(grid *g, double r, double slow)
{
    SP_FUNCTION();
    int n = g->n;
    for (int i = 1; i < n - 1; i++)
        stencil_row(g->u, g->next + (size_t)i * n, n, i, r);
    /* The knob: the same rows computed again (same memory traffic, same
     * result) for the first `slow` of them. */
    int extra = (int)(slow * (n - 2) + 0.5);
    for (int i = 1; i <= extra && i < n - 1; i++)
        stencil_row(g->u, g->next + (size_t)i * n, n, i, r);
    double *t = g->u;
    g->u = g->next;
    g->next = t;
}

static double residual(const grid *g)
{
    SP_FUNCTION();
    size_t cells = (size_t)g->n * (size_t)g->n;
    double s = 0;
    for (size_t k = 0; k < cells; k++) {
        double d = g->u[k] - g->next[k];
        s += d * d;
    }
    return sqrt(s / (double)cells);
}

static void log_progress(int step, double res, char *line, size_t n)
{
    SP_FUNCTION();
    snprintf(line, n, "step %5d  residual %.6e", step, res);
}

static void checkpoint(grid *g)
{
    SP_FUNCTION();
    size_t cells = (size_t)g->n * (size_t)g->n;
    memcpy(g->saved, g->u, cells * sizeof *g->u);
    /* A Fletcher-style checksum over 32-bit words, as a restart file would have. */
    const uint32_t *w = (const uint32_t *)g->saved;
    uint64_t s1 = 0, s2 = 0;
    for (size_t k = 0; k < 2 * cells; k++) {
        s1 += w[k];
        s2 += s1;
    }
    sink += (double)(s1 ^ s2);
}

static double finalize(grid *g)
{
    SP_FUNCTION();
    double sum = 0;
    for (size_t k = 0; k < (size_t)g->n * (size_t)g->n; k++)
        sum += g->u[k];
    free(g->u);
    free(g->next);
    free(g->saved);
    free(g->scratch);
    for (int k = 0; k < 4; k++)
        free(g->halo[k]);
    return sum;
}

int main(int argc, char **argv)
{
    const char *out = "heat.h5";
    int n = 512, steps = 640;
    double slow = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (strcmp(argv[i], "--n") == 0 && i + 1 < argc)
            n = atoi(argv[++i]);
        else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc)
            steps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--slow-sweep") == 0 && i + 1 < argc)
            slow = atof(argv[++i]);
        else {
            fprintf(stderr,
                    "usage: heat_solver [-o OUT.h5] [--n N] [--steps S] [--slow-sweep F]\n");
            return 2;
        }
    }
    if (n < 8 || steps < 1 || slow < 0 || slow > 1) {
        fprintf(stderr, "heat_solver: need N >= 8, S >= 1, 0 <= F <= 1\n");
        return 2;
    }
    sp_options opts;
    sp_options_init(&opts);
    opts.file_path = out;
    if (sp_setup(&opts) != 0) {
        fprintf(stderr, "heat_solver: %s\n", sp_last_error());
        return 1;
    }
    char val[32];
    snprintf(val, sizeof val, "%d", n);
    sp_metadata_set("grid", val);
    snprintf(val, sizeof val, "%g", slow);
    sp_metadata_set("slow_sweep", val);

    grid g;
    memset(&g, 0, sizeof g);
    if (setup(&g, n)) {
        fprintf(stderr, "heat_solver: out of memory\n");
        return 1;
    }
    const double r = 0.2; /* alpha dt / dx^2, stable below 0.25 */
    char line[96];
    double res = 0;
    for (int step = 1; step <= steps; step++) {
        SP_SCOPE("timestep")
        {
            apply_bc(&g);
            pack_halo(&g);
            jacobi_sweep(&g, r, slow);
            if (step % 10 == 0) {
                res = residual(&g);
                log_progress(step, res, line, sizeof line);
            }
            if (step % 160 == 0)
                checkpoint(&g);
        }
    }
    double sum = finalize(&g);
    if (sp_finalize(false, NULL) != 0) {
        fprintf(stderr, "heat_solver: %s\n", sp_last_error());
        return 1;
    }
    printf("heat_solver: %d x %d, %d steps, residual %.3e, sum %.6f -> %s\n", n, n, steps, res,
           sum, out);
    return 0;
}
