/* SPDX-License-Identifier: MIT */
/* plot_fixture.c - hand-built runs and pixel probes for the plots tests. */
#include "plot_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sp_analysis.h"

/* ---- call builder: append calls with parents, sort at the end ---- */

typedef struct builder {
    sp_run *run;
    size_t n, cap;
    int64_t *s, *e, *par;
    int32_t *reg, *thr;
    uint64_t rng;
    bool oom;
} builder;

static size_t push(builder *b, const char *region, int32_t thread, int64_t s, int64_t e,
                   int64_t parent)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        int64_t *ns = realloc(b->s, cap * sizeof *ns);
        if (ns)
            b->s = ns;
        int64_t *ne = realloc(b->e, cap * sizeof *ne);
        if (ne)
            b->e = ne;
        int64_t *np = realloc(b->par, cap * sizeof *np);
        if (np)
            b->par = np;
        int32_t *nr = realloc(b->reg, cap * sizeof *nr);
        if (nr)
            b->reg = nr;
        int32_t *nt = realloc(b->thr, cap * sizeof *nt);
        if (nt)
            b->thr = nt;
        if (!ns || !ne || !np || !nr || !nt) {
            b->oom = true;
            return 0;
        }
        b->cap = cap;
    }
    size_t i = b->n++;
    b->s[i] = s;
    b->e[i] = e;
    b->par[i] = parent;
    b->reg[i] = sp_run_intern_region(b->run, region);
    b->thr[i] = thread;
    return i;
}

static double jitter(builder *b, double amp)
{
    b->rng = b->rng * 6364136223846793005ull + 1442695040888963407ull;
    double u = (double)(b->rng >> 11) / 9007199254740992.0;
    return 1.0 + amp * (2 * u - 1);
}

static int finish_rank(builder *b, sp_rank_data *rk, int nthreads, const char *const *names)
{
    if (b->oom || sp_rank_alloc_calls(rk, b->n))
        return -1;
    memcpy(rk->start_ns, b->s, b->n * sizeof *b->s);
    memcpy(rk->end_ns, b->e, b->n * sizeof *b->e);
    memcpy(rk->parent, b->par, b->n * sizeof *b->par);
    memcpy(rk->region, b->reg, b->n * sizeof *b->reg);
    memcpy(rk->thread, b->thr, b->n * sizeof *b->thr);
    rk->nthreads = (size_t)nthreads;
    rk->threads = calloc((size_t)nthreads, sizeof *rk->threads);
    if (!rk->threads)
        return -1;
    for (int t = 0; t < nthreads; t++) {
        rk->threads[t].os_tid = 4000 + 100 * rk->rank + t;
        rk->threads[t].name = names && names[t] ? strdup(names[t]) : NULL;
    }
    b->n = 0;
    return sp_rank_sort_calls(rk);
}

static void builder_free(builder *b)
{
    free(b->s);
    free(b->e);
    free(b->par);
    free(b->reg);
    free(b->thr);
}

#define MS 1000000LL
#define US 1000LL

/* refine_mesh(level): 1 ms of work then the next level. Returns its end. */
static int64_t refine(builder *b, int level, int64_t t, int64_t parent)
{
    size_t i = push(b, "refine_mesh", 0, t, 0, parent);
    int64_t end = t + (int64_t)(1 * MS * jitter(b, 0.05));
    if (level > 1)
        end = refine(b, level - 1, end, (int64_t)i);
    b->e[i] = end + 20 * US;
    return b->e[i];
}

sp_run *fixture_mock_run(int nranks, int kernels_per_solve, double imbalance, bool analyze)
{
    sp_run *run = sp_run_new();
    if (!run || sp_run_set_ranks(run, (size_t)nranks))
        goto fail;
    sp_kvlist_set(&run->meta, "program", "mock_solver");
    builder b = {.run = run, .rng = 12345};
    static const char *const tnames[] = {"main", "worker"};
    const int64_t base = 1700000000LL * 1000000000LL; /* an epoch-like clock */
    /* Slowest rank's assemble time per solve sets when everyone leaves the
     * halo exchange (ranks wait for the slowest). */
    double slowest = 3.0 * (1 + imbalance);
    for (int r = 0; r < nranks; r++) {
        sp_rank_data *rk = &run->ranks[r];
        rk->clock_offset_ns = -(int64_t)r * 1500; /* this rank's clock runs 1.5 us ahead per rank */
        int64_t t = base + (int64_t)r * 1500 + (int64_t)(r * 40 * US);
        size_t m = push(&b, "main", 0, t, 0, -1);
        t += 100 * US;
        size_t su = push(&b, "setup", 0, t, 0, (int64_t)m);
        t += (int64_t)(2 * MS * jitter(&b, 0.05));
        t = refine(&b, 4, t, (int64_t)su) + 30 * US;
        b.e[su] = t;
        t += 50 * US;
        double frac = nranks > 1 ? (double)r / (nranks - 1) : 0;
        for (int step = 0; step < 3; step++) {
            size_t so = push(&b, "solve", 0, t, 0, (int64_t)m);
            t += 10 * US;
            double am = 3.0 * (1 + imbalance * frac) * jitter(&b, 0.03);
            size_t as = push(&b, "assemble_matrix", 0, t, t + (int64_t)(am * MS), (int64_t)so);
            /* The worker computes kernels while the matrix is assembled. */
            int64_t wt = t + 80 * US;
            size_t wl = push(&b, "worker_loop", 1, wt, 0, -1);
            int64_t slot = (int64_t)(am * MS - 200 * US) / (kernels_per_solve > 0 ? kernels_per_solve : 1);
            for (int k = 0; k < kernels_per_solve; k++) {
                int64_t d = (int64_t)(slot * 0.7 * jitter(&b, 0.2));
                push(&b, "compute_kernel", 1, wt + 20 * US + k * slot,
                     wt + 20 * US + k * slot + d, (int64_t)wl);
            }
            b.e[wl] = wt + 40 * US + kernels_per_solve * slot;
            t = b.e[as] + 15 * US;
            int64_t ab = (int64_t)(1 * MS * jitter(&b, 0.05));
            push(&b, "apply_bc", 0, t, t + ab, (int64_t)so);
            t += ab + 15 * US;
            int64_t wait = (int64_t)((slowest - am) * MS) + 250 * US;
            push(&b, "halo_exchange", 0, t, t + wait, (int64_t)so);
            t += wait + 10 * US;
            b.e[so] = t;
            t += 20 * US;
        }
        b.e[m] = t + 100 * US;
        if (finish_rank(&b, rk, 2, tnames))
            goto fail_b;
        if (sp_kvlist_set(&rk->meta, "hostname", "node01"))
            goto fail_b;
    }
    builder_free(&b);
    if (analyze && sp_run_analyze(run) != 0)
        goto fail;
    return run;
fail_b:
    builder_free(&b);
fail:
    sp_run_free(run);
    return NULL;
}

sp_run *fixture_flat_run(size_t n, int64_t dur_ns, int64_t gap_ns)
{
    sp_run *run = sp_run_new();
    if (!run || sp_run_set_ranks(run, 1))
        goto fail;
    sp_rank_data *rk = &run->ranks[0];
    int32_t outer = sp_run_intern_region(run, "outer");
    int32_t tiny = sp_run_intern_region(run, "tiny");
    if (sp_rank_alloc_calls(rk, n + 1))
        goto fail;
    rk->nthreads = 1;
    rk->threads = calloc(1, sizeof *rk->threads);
    if (!rk->threads)
        goto fail;
    rk->threads[0].os_tid = 1;
    int64_t t = 1000;
    rk->start_ns[0] = t;
    rk->region[0] = outer;
    rk->thread[0] = 0;
    rk->parent[0] = -1;
    for (size_t i = 1; i <= n; i++) {
        rk->start_ns[i] = t;
        rk->end_ns[i] = t + dur_ns;
        rk->region[i] = tiny;
        rk->thread[i] = 0;
        rk->parent[i] = 0;
        t += dur_ns + gap_ns;
    }
    rk->end_ns[0] = t;
    return run;
fail:
    sp_run_free(run);
    return NULL;
}

sp_run *fixture_empty_run(int nranks, bool analyze)
{
    sp_run *run = sp_run_new();
    if (!run || sp_run_set_ranks(run, (size_t)nranks))
        goto fail;
    sp_run_intern_region(run, "solve");
    for (int r = 0; r < nranks; r++)
        if (sp_rank_alloc_calls(&run->ranks[r], 0))
            goto fail;
    if (analyze && sp_run_analyze(run) != 0)
        goto fail;
    return run;
fail:
    sp_run_free(run);
    return NULL;
}

/* ---- images ---- */

void fx_image_new(fx_image *im, int w, int h)
{
    im->w = w;
    im->h = h;
    im->surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    im->cr = cairo_create(im->surf);
}

void fx_image_free(fx_image *im)
{
    cairo_destroy(im->cr);
    cairo_surface_destroy(im->surf);
    memset(im, 0, sizeof *im);
}

const char *fx_look_dir(void)
{
    static char dir[4096];
    const char *env = getenv("SP_PLOTS_LOOK_DIR");
    snprintf(dir, sizeof dir, "%s", env && *env ? env : SP_TEST_BINARY_DIR "/plots-look");
    mkdir(dir, 0755);
    return dir;
}

const char *fx_image_save(fx_image *im, const char *name)
{
    static char path[4200];
    snprintf(path, sizeof path, "%s/%s", fx_look_dir(), name);
    cairo_surface_flush(im->surf);
    cairo_surface_write_to_png(im->surf, path);
    return path;
}

static void pixel(fx_image *im, int x, int y, int *r, int *g, int *b)
{
    const unsigned char *data = cairo_image_surface_get_data(im->surf);
    int stride = cairo_image_surface_get_stride(im->surf);
    uint32_t p = *(const uint32_t *)(data + (size_t)y * stride + 4 * (size_t)x);
    int a = (int)(p >> 24);
    *r = (int)(p >> 16 & 0xff);
    *g = (int)(p >> 8 & 0xff);
    *b = (int)(p & 0xff);
    if (a > 0 && a < 255) { /* un-premultiply */
        *r = *r * 255 / a;
        *g = *g * 255 / a;
        *b = *b * 255 / a;
    }
}

static void clamp_rect(fx_image *im, int *x0, int *y0, int *x1, int *y1)
{
    cairo_surface_flush(im->surf); /* callers read pixels right after */
    if (*x0 < 0)
        *x0 = 0;
    if (*y0 < 0)
        *y0 = 0;
    if (*x1 > im->w)
        *x1 = im->w;
    if (*y1 > im->h)
        *y1 = im->h;
}

size_t fx_count_color(fx_image *im, int x0, int y0, int x1, int y1, sp_rgba c, int tol)
{
    clamp_rect(im, &x0, &y0, &x1, &y1);
    int cr = (int)lround(c.r * 255), cg = (int)lround(c.g * 255), cb = (int)lround(c.b * 255);
    size_t n = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            int r, g, b;
            pixel(im, x, y, &r, &g, &b);
            n += abs(r - cr) <= tol && abs(g - cg) <= tol && abs(b - cb) <= tol;
        }
    return n;
}

size_t fx_count_dark(fx_image *im, int x0, int y0, int x1, int y1, int lum)
{
    clamp_rect(im, &x0, &y0, &x1, &y1);
    size_t n = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            int r, g, b;
            pixel(im, x, y, &r, &g, &b);
            n += (r * 299 + g * 587 + b * 114) / 1000 < lum;
        }
    return n;
}

size_t fx_count_non_bg(fx_image *im, int x0, int y0, int x1, int y1)
{
    clamp_rect(im, &x0, &y0, &x1, &y1);
    int br, bg, bb;
    cairo_surface_flush(im->surf);
    pixel(im, 0, 0, &br, &bg, &bb);
    size_t n = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            int r, g, b;
            pixel(im, x, y, &r, &g, &b);
            n += r != br || g != bg || b != bb;
        }
    return n;
}

sp_rgba fx_region_color(const sp_run *run, const char *name, bool dark)
{
    sp_color_map *m = sp_color_map_for_run(run);
    sp_rgba c = sp_plot_color_in(m, name, dark);
    sp_color_map_free(m);
    return c;
}
