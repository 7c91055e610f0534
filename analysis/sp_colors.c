/* SPDX-License-Identifier: MIT */
/* sp_colors.c - the region palette and colour maps (see sp_colors.h). */
#include "sp_colors.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_analysis.h"
#include "sp_analysis_internal.h"
#include "sp_error.h"
#include "sp_strpool.h"

/*
 * Chosen from Tableau 10/20, D3's category20 and Kelly's colours of maximum
 * contrast, keeping lightness L* 38..88 (neither glaring nor muddy; text on
 * them stays readable) and no greys (grey means "merged" or "no change"),
 * then ordered greedily: each next colour is the candidate farthest (CIE76,
 * worst of the light and the 18 %-darkened dark-theme variant) from all
 * before it. Minimum distance to the earlier ones, in order:
 *   -, 101, 83, 55, 47, 44, 40, 38, 35, 35, 33, 32 | 28, 25, 24, 24, 24, 23,
 *   23, 22, 22, 19
 * tests/analysis/test_colors.c checks the first 12 are >= 10 apart.
 */
static const uint32_t palette[SP_PALETTE_SIZE] = {
    0x4E79A7, 0xDCD300, 0xD62728, 0x008856, 0xE377C2, 0xFFBE7D, 0x8C564B, 0x6A5ACD,
    0xFF7F0E, 0x9EDAE5, 0xFABFD2, 0x98DF8A, 0x2CA02C, 0x875692, 0xB6992D, 0xB3446C,
    0x499894, 0xDBDB8D, 0x8DB600, 0xF6A600, 0xFF9896, 0xE15759,
};

#define NEUTRAL_RGB 0xB4B9C0u

uint32_t sp_palette_rgb(int slot)
{
    return slot >= 0 && slot < SP_PALETTE_SIZE ? palette[slot] : NEUTRAL_RGB;
}

/* FNV-1a: simple and stable across platforms and releases. */
static uint32_t fnv1a(const char *s)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        h ^= *p;
        h *= 16777619u;
    }
    return h;
}

int sp_palette_hash_slot(const char *name)
{
    if (!name)
        return -1;
    /* FNV-1a's low bits mix poorly for short names: finish with murmur3's
     * fmix32, then multiply-shift into the palette (no modulo bias). */
    uint32_t h = fnv1a(name);
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return (int)(((uint64_t)h * SP_PALETTE_SIZE) >> 32);
}

/* ---- the map: names ranked by time, an open-addressing index by name ---- */

typedef struct entry {
    char *name;     /* in the map's name blocks */
    double key;     /* largest per-rank mean total over the runs */
    uint32_t hash;  /* fnv1a(name): probes compare it before the name */
    int32_t region; /* id in the first run that has it */
} entry;

struct sp_color_map {
    size_t n;
    entry *by_rank; /* most time first */
    int32_t *index; /* hash slot -> position in by_rank, -1 empty */
    size_t cap;     /* power of two, > 2 n */
    sp_strpool names; /* 10^6 names were as many mallocs and frees */
};

static int find(const sp_color_map *m, const char *name, uint32_t h)
{
    for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        int32_t k = m->index[i];
        if (k < 0 || (m->by_rank[k].hash == h && strcmp(m->by_rank[k].name, name) == 0))
            return (int)i;
    }
}

static int cmp_entry(const void *pa, const void *pb)
{
    const entry *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key > b->key ? -1 : 1;
    return strcmp(a->name, b->name);
}

static int map_grow(sp_color_map *m, size_t want)
{
    size_t cap = 16;
    while (cap < 2 * want + 2)
        cap *= 2;
    int32_t *index = malloc(cap * sizeof *index);
    if (!index)
        return SP_ENOMEM;
    for (size_t i = 0; i < cap; i++)
        index[i] = -1;
    free(m->index);
    m->index = index;
    m->cap = cap;
    for (size_t k = 0; k < m->n; k++)
        m->index[find(m, m->by_rank[k].name, m->by_rank[k].hash)] = (int32_t)k;
    return 0;
}

void sp_color_map_free(sp_color_map *m)
{
    if (!m)
        return;
    sp_strpool_free(&m->names);
    free(m->by_rank);
    free(m->index);
    free(m);
}

/* Each region's summed duration (s) over every call of run, from the
 * analysis when there is one, else from the calls (a map must not analyze a
 * run that other threads may be reading). NULL on ENOMEM; *calls per region. */
static double *region_totals(const sp_run *run, uint64_t **calls)
{
    double *t = calloc(run->nregions ? run->nregions : 1, sizeof *t);
    *calls = calloc(run->nregions ? run->nregions : 1, sizeof **calls);
    if (!t || !*calls) {
        free(t);
        free(*calls);
        return NULL;
    }
    if (run->analyzed) {
        for (size_t g = 0; g < run->nregions; g++) {
            t[g] = run->regions[g].all.total_s;
            (*calls)[g] = run->regions[g].all.calls;
        }
        return t;
    }
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        for (size_t i = 0; i < rk->ncalls; i++) {
            int32_t g = rk->region[i];
            if (g < 0 || (size_t)g >= run->nregions)
                continue;
            t[g] += (double)(rk->end_ns[i] - rk->start_ns[i]) * 1e-9;
            (*calls)[g]++;
        }
    }
    return t;
}

/* Add the regions with calls of run, keeping the larger key per name.
 * `unique`: m holds nothing yet and run's names are distinct (a model's
 * always are), so no name is looked up: the index is built once at the end
 * (one run's map costs one pass, not a probe and a rehash per region). */
static int add_run(sp_color_map *m, const sp_run *run, size_t *cap_entries, bool unique)
{
    uint64_t *calls;
    double *totals = region_totals(run, &calls);
    if (!totals)
        return SP_ENOMEM;
    int rc = 0;
    size_t nranks = 0;
    for (size_t r = 0; r < run->nranks; r++)
        nranks += !run->ranks[r].excluded;
    for (size_t g = 0; g < run->nregions && !rc; g++) {
        if (!calls[g])
            continue;
        double key = totals[g] / (double)(nranks ? nranks : 1);
        const char *name = run->region_names[g];
        uint32_t h = fnv1a(name);
        int slot = unique ? -1 : find(m, name, h);
        int32_t k = unique ? -1 : m->index[slot];
        if (k >= 0) {
            if (key > m->by_rank[k].key)
                m->by_rank[k].key = key;
            continue;
        }
        if (m->n == *cap_entries) {
            size_t cap = *cap_entries ? 2 * *cap_entries : 64;
            entry *e = realloc(m->by_rank, cap * sizeof *e);
            if (!e) {
                rc = SP_ENOMEM;
                break;
            }
            m->by_rank = e;
            *cap_entries = cap;
        }
        char *copy = sp_strpool_copy(&m->names, name);
        if (!copy) {
            rc = SP_ENOMEM;
            break;
        }
        m->by_rank[m->n] = (entry){copy, key, h, (int32_t)g};
        if (unique) {
            m->n++;
            continue;
        }
        m->index[slot] = (int32_t)m->n++;
        if (2 * m->n + 2 > m->cap && map_grow(m, m->n))
            rc = SP_ENOMEM;
    }
    free(totals);
    free(calls);
    return rc;
}

sp_color_map *sp_color_map_new(const sp_run *const *runs, size_t nruns)
{
    sp_color_map *m = calloc(1, sizeof *m);
    size_t cap_entries = 0;
    /* Several runs look their names up as they are added: an index with
     * room for all of them at once (no rehash while adding). */
    size_t most = 0;
    for (size_t i = 0; nruns > 1 && i < nruns; i++)
        most += runs && runs[i] ? runs[i]->nregions : 0;
    int rc = (!m || map_grow(m, most)) ? SP_ENOMEM : 0;
    for (size_t i = 0; !rc && i < nruns; i++)
        if (runs && runs[i])
            rc = add_run(m, runs[i], &cap_entries, nruns == 1);
    if (!rc && m->n) {
        qsort(m->by_rank, m->n, sizeof *m->by_rank, cmp_entry);
        rc = map_grow(m, m->n); /* positions changed: index again */
    }
    if (rc) {
        sp_color_map_free(m);
        return sp__error_null(SP_ENOMEM, "out of memory building the colour map");
    }
    return m;
}

sp_color_map *sp_color_map_for_run(const sp_run *run)
{
    return sp_color_map_new(&run, 1);
}

int sp_color_map_slot(const sp_color_map *m, const char *name)
{
    if (!name)
        return -1;
    if (m && m->n) {
        int32_t k = m->index[find(m, name, fnv1a(name))];
        if (k >= 0 && k < SP_PALETTE_SIZE)
            return k;
    }
    return sp_palette_hash_slot(name);
}

uint32_t sp_color_map_rgb(const sp_color_map *m, const char *name)
{
    return sp_palette_rgb(sp_color_map_slot(m, name));
}

long sp_color_map_rank(const sp_color_map *m, const char *name)
{
    if (!m || !m->n || !name)
        return -1;
    int32_t k = m->index[find(m, name, fnv1a(name))];
    return k;
}

size_t sp_color_map_count(const sp_color_map *m)
{
    return m ? m->n : 0;
}

const char *sp_color_map_name(const sp_color_map *m, size_t i)
{
    return m && i < m->n ? m->by_rank[i].name : NULL;
}

int32_t sp_color_map_region_at(const sp_color_map *m, size_t i)
{
    return m && i < m->n ? m->by_rank[i].region : -1;
}

uint32_t sp_color_map_rgb_at(const sp_color_map *m, size_t i)
{
    if (!m || i >= m->n)
        return NEUTRAL_RGB;
    /* A map's names are distinct: the i-th is found at rank i. */
    return sp_palette_rgb(i < SP_PALETTE_SIZE ? (int)i : sp_palette_hash_slot(m->by_rank[i].name));
}

char *sp_color_hex(uint32_t rgb, char buf[8])
{
    snprintf(buf, 8, "#%06x", (unsigned)(rgb & 0xFFFFFFu));
    return buf;
}

static double srgb_lin(double v)
{
    return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
}

static double lab_f(double t)
{
    return t > 216.0 / 24389.0 ? cbrt(t) : (24389.0 / 27.0 * t + 16.0) / 116.0;
}

static void to_lab(uint32_t rgb, double lab[3])
{
    double r = srgb_lin((rgb >> 16 & 0xFF) / 255.0), g = srgb_lin((rgb >> 8 & 0xFF) / 255.0),
           b = srgb_lin((rgb & 0xFF) / 255.0);
    double x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
    double y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    double z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    double fx = lab_f(x), fy = lab_f(y), fz = lab_f(z);
    lab[0] = 116.0 * fy - 16.0;
    lab[1] = 500.0 * (fx - fy);
    lab[2] = 200.0 * (fy - fz);
}

double sp_color_cie76(uint32_t a, uint32_t b)
{
    double la[3], lb[3];
    to_lab(a, la);
    to_lab(b, lb);
    return sqrt((la[0] - lb[0]) * (la[0] - lb[0]) + (la[1] - lb[1]) * (la[1] - lb[1]) +
                (la[2] - lb[2]) * (la[2] - lb[2]));
}
