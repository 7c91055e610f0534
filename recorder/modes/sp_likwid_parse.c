/* SPDX-License-Identifier: MIT */
/*
 * sp_likwid_parse.c - LIKWID's marker file and performance group files, and
 * the arithmetic of group metrics (see sp_likwid.h for the formats).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_likwid.h"
#include "sp_modes.h"

static void set_err(char *err, size_t size, const char *fmt, const char *a, long b)
{
    if (err && size)
        snprintf(err, size, fmt, a, b);
}

/* ---- marker file ---- */

static char *rstrip(char *s)
{
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

static int marker_region_line(sp__lk_marker *m, char *line, const char *path, long lineno,
                              char *err, size_t errsize)
{
    char *colon = strchr(line, ':');
    char *dash = strrchr(line, '-');
    char *end;
    long id = strtol(line, &end, 10);
    if (end != colon || id < 0 || id >= m->nregions || !dash || dash < colon) {
        set_err(err, errsize, "%s:%ld: expected '<region id>:<tag>-<group>'", path, lineno);
        return SP_EFORMAT;
    }
    long group = strtol(dash + 1, &end, 10);
    if (*end || end == dash + 1) {
        set_err(err, errsize, "%s:%ld: region tag without '-<group id>'", path, lineno);
        return SP_EFORMAT;
    }
    *dash = '\0';
    free(m->tag[id]);
    if (!(m->tag[id] = strdup(colon + 1)))
        return SP_ENOMEM;
    m->tag_group[id] = (int)group;
    return 0;
}

static int marker_value_line(sp__lk_marker *m, char *line, const char *path, long lineno, char *err,
                             size_t errsize)
{
    sp__lk_row r;
    memset(&r, 0, sizeof r);
    char *p = line, *end;
    long v[4];
    for (int i = 0; i < 4; i++) { /* region, group, cpu, count */
        v[i] = strtol(p, &end, 10);
        if (end == p)
            goto bad;
        p = end;
    }
    r.time_s = strtod(p, &end);
    if (end == p)
        goto bad;
    p = end;
    long nev = strtol(p, &end, 10);
    if (end == p || nev < 0 || nev > 4096)
        goto bad;
    p = end;
    r.region = (int)v[0];
    r.group = (int)v[1];
    r.cpu = (int)v[2];
    r.count = v[3] < 0 ? 0 : (uint64_t)v[3];
    if (r.region < 0 || r.region >= m->nregions)
        goto bad;
    r.nevents = (int)nev;
    r.events = calloc(nev ? (size_t)nev : 1, sizeof *r.events);
    if (!r.events)
        return SP_ENOMEM;
    for (long i = 0; i < nev; i++) {
        r.events[i] = strtod(p, &end);
        if (end == p) {
            free(r.events);
            goto bad;
        }
        p = end;
    }
    sp__lk_row *rows = realloc(m->rows, (m->nrows + 1) * sizeof *rows);
    if (!rows) {
        free(r.events);
        return SP_ENOMEM;
    }
    m->rows = rows;
    m->rows[m->nrows++] = r;
    return 0;
bad:
    set_err(err, errsize,
            "%s:%ld: expected '<region> <group> <cpu> <count> <time> <nevents> <events>...'", path,
            lineno);
    return SP_EFORMAT;
}

int sp__lk_marker_read(const char *path, sp__lk_marker *m, char *err, size_t errsize)
{
    memset(m, 0, sizeof *m);
    FILE *f = fopen(path, "r");
    if (!f) {
        set_err(err, errsize, "cannot open LIKWID marker file %s (errno %ld)", path, errno);
        return SP_ENOENT;
    }
    char line[8192];
    long lineno = 1;
    int rc = SP_EFORMAT;
    if (!fgets(line, sizeof line, f) ||
        sscanf(line, "%d %d %d", &m->nthreads, &m->nregions, &m->ngroups) != 3 || m->nregions < 0 ||
        m->nregions > 1000000) {
        set_err(err, errsize, "%s:%ld: expected '<threads> <regions> <groups>'", path, lineno);
        goto done;
    }
    rc = SP_ENOMEM;
    m->tag = calloc(m->nregions ? (size_t)m->nregions : 1, sizeof *m->tag);
    m->tag_group = calloc(m->nregions ? (size_t)m->nregions : 1, sizeof *m->tag_group);
    if (!m->tag || !m->tag_group)
        goto done;
    rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        rstrip(line);
        if (!*line)
            continue;
        /* A value line never holds a ':'; a region line always does. */
        rc = strchr(line, ':') ? marker_region_line(m, line, path, lineno, err, errsize)
                               : marker_value_line(m, line, path, lineno, err, errsize);
    }
done:
    fclose(f);
    if (rc)
        sp__lk_marker_free(m);
    return rc;
}

void sp__lk_marker_free(sp__lk_marker *m)
{
    for (int i = 0; m->tag && i < m->nregions; i++)
        free(m->tag[i]);
    free(m->tag);
    free(m->tag_group);
    for (size_t i = 0; i < m->nrows; i++)
        free(m->rows[i].events);
    free(m->rows);
    memset(m, 0, sizeof *m);
}

/* ---- performance groups ---- */

static int push(char ***arr, int n, const char *s, size_t len)
{
    char **a = realloc(*arr, (size_t)(n + 1) * sizeof *a);
    if (!a)
        return SP_ENOMEM;
    *arr = a;
    if (!(a[n] = strndup(s, len)))
        return SP_ENOMEM;
    return 0;
}

static char *skip_ws(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return s;
}

int sp__lk_group_read(const char *path, sp__lk_group *g, char *err, size_t errsize)
{
    memset(g, 0, sizeof *g);
    FILE *f = fopen(path, "r");
    if (!f) {
        set_err(err, errsize, "cannot open LIKWID group file %s (errno %ld)", path, errno);
        return SP_ENOENT;
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t blen = strcspn(base, ".");
    int rc = (g->name = strndup(base, blen)) ? 0 : SP_ENOMEM;
    enum { NONE, EVENTSET, METRICS, OTHER } sec = NONE;
    char line[4096];
    long lineno = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        char *s = skip_ws(rstrip(line));
        if (!*s && (sec == EVENTSET || sec == METRICS)) {
            sec = NONE; /* as LIKWID's perfgroup.c: a blank line ends the section */
            continue;
        }
        if (!*s || *s == '#')
            continue;
        if (strcmp(s, "EVENTSET") == 0) {
            sec = EVENTSET;
        } else if (strcmp(s, "METRICS") == 0) {
            sec = METRICS;
        } else if (strcmp(s, "LONG") == 0 || strncmp(s, "SHORT", 5) == 0 ||
                   strncmp(s, "REQUIRE", 7) == 0) {
            sec = OTHER;
        } else if (sec == EVENTSET) {
            size_t c = strcspn(s, " \t");
            char *ev = skip_ws(s + c);
            if (!*ev) {
                set_err(err, errsize, "%s:%ld: EVENTSET line without an event", path, lineno);
                rc = SP_EFORMAT;
                break;
            }
            if ((rc = push(&g->counter, g->nevents, s, c)) == 0 &&
                (rc = push(&g->event, g->nevents, ev, strcspn(ev, " \t"))) == 0)
                g->nevents++;
        } else if (sec == METRICS) {
            /* "<name with spaces> <formula>": the formula is the last field. */
            char *last = s + strlen(s);
            while (last > s && !isspace((unsigned char)last[-1]))
                last--;
            char *name_end = last;
            while (name_end > s && isspace((unsigned char)name_end[-1]))
                name_end--;
            if (name_end == s) {
                set_err(err, errsize, "%s:%ld: METRICS line without a formula", path, lineno);
                rc = SP_EFORMAT;
                break;
            }
            if ((rc = push(&g->metric, g->nmetrics, s, (size_t)(name_end - s))) == 0 &&
                (rc = push(&g->formula, g->nmetrics, last, strlen(last))) == 0)
                g->nmetrics++;
        }
    }
    fclose(f);
    if (rc == 0 && g->nevents == 0) {
        set_err(err, errsize, "%s:%ld: no EVENTSET section", path, lineno);
        rc = SP_EFORMAT;
    }
    if (rc)
        sp__lk_group_free(g);
    return rc;
}

int sp__lk_group_from_list(const char *list, sp__lk_group *g)
{
    memset(g, 0, sizeof *g);
    char *copy = strdup(list);
    int rc = copy && (g->name = strdup("custom")) ? 0 : SP_ENOMEM;
    char *save = NULL;
    for (char *tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && rc == 0;
         tok = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(tok, ':');
        if (!colon || colon == tok || !colon[1]) {
            rc = SP_EFORMAT;
            break;
        }
        if ((rc = push(&g->event, g->nevents, tok, (size_t)(colon - tok))) == 0 &&
            (rc = push(&g->counter, g->nevents, colon + 1, strlen(colon + 1))) == 0)
            g->nevents++;
    }
    free(copy);
    if (rc == 0 && g->nevents == 0)
        rc = SP_EFORMAT;
    if (rc)
        sp__lk_group_free(g);
    return rc;
}

void sp__lk_group_free(sp__lk_group *g)
{
    for (int i = 0; i < g->nevents; i++) {
        free(g->counter ? g->counter[i] : NULL);
        free(g->event ? g->event[i] : NULL);
    }
    for (int i = 0; i < g->nmetrics; i++) {
        free(g->metric ? g->metric[i] : NULL);
        free(g->formula ? g->formula[i] : NULL);
    }
    free(g->counter);
    free(g->event);
    free(g->metric);
    free(g->formula);
    free(g->name);
    memset(g, 0, sizeof *g);
}

/* ---- formulas: recursive descent over + - * / ( ) numbers names ---- */

typedef struct parser {
    const char *p;
    const sp__lk_group *g;
    const double *ev;
    int nev;
    const sp__lk_env *env;
    int bad;
} parser;

static double expr(parser *ps);

static bool name_is(const char *s, size_t n, const char *word)
{
    return strlen(word) == n && strncmp(s, word, n) == 0;
}

static double variable(parser *ps, const char *s, size_t n)
{
    const sp__lk_env *e = ps->env;
    if (name_is(s, n, "time"))
        return e->time_s;
    if (name_is(s, n, "inverseClock"))
        return e->inverse_clock;
    if (name_is(s, n, "num_sockets"))
        return e->num_sockets;
    if (name_is(s, n, "num_numadomains"))
        return e->num_numadomains;
    if (name_is(s, n, "true"))
        return 1;
    if (name_is(s, n, "false"))
        return 0;
    /* A counter: exactly as in EVENTSET ("PMC3:EDGEDETECT"), else by its
     * register name alone ("PMC3"). */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < ps->g->nevents && i < ps->nev; i++) {
            const char *c = ps->g->counter[i];
            size_t cl = pass ? strcspn(c, ":") : strlen(c);
            if (cl == n && strncmp(c, s, n) == 0)
                return ps->ev[i];
        }
    ps->bad = 1;
    return NAN;
}

static double primary(parser *ps)
{
    while (isspace((unsigned char)*ps->p))
        ps->p++;
    const char *s = ps->p;
    if (*s == '(') {
        ps->p++;
        double v = expr(ps);
        while (isspace((unsigned char)*ps->p))
            ps->p++;
        if (*ps->p != ')')
            ps->bad = 1;
        else
            ps->p++;
        return v;
    }
    if (*s == '-' || *s == '+') {
        ps->p++;
        double v = primary(ps);
        return *s == '-' ? -v : v;
    }
    if (isdigit((unsigned char)*s) || *s == '.') {
        char *end;
        double v = strtod(s, &end);
        if (end == s)
            ps->bad = 1;
        ps->p = end;
        return v;
    }
    if (isalpha((unsigned char)*s) || *s == '_') {
        const char *q = s;
        /* Names may carry counter options: PMC3:EDGEDETECT, CBOX0C1:STATE=0x3F. */
        while (isalnum((unsigned char)*q) || *q == '_' || *q == ':' || *q == '=')
            q++;
        ps->p = q;
        return variable(ps, s, (size_t)(q - s));
    }
    ps->bad = 1;
    return NAN;
}

static double term(parser *ps)
{
    double v = primary(ps);
    for (;;) {
        while (isspace((unsigned char)*ps->p))
            ps->p++;
        char op = *ps->p;
        if (op != '*' && op != '/')
            return v;
        ps->p++;
        double r = primary(ps);
        v = op == '*' ? v * r : v / r;
    }
}

static double expr(parser *ps)
{
    double v = term(ps);
    for (;;) {
        while (isspace((unsigned char)*ps->p))
            ps->p++;
        char op = *ps->p;
        if (op != '+' && op != '-')
            return v;
        ps->p++;
        double r = term(ps);
        v = op == '+' ? v + r : v - r;
    }
}

int sp__lk_eval(const char *formula, const sp__lk_group *g, const double *events, int nevents,
                const sp__lk_env *env, double *out)
{
    parser ps = {formula, g, events, nevents, env, 0};
    double v = expr(&ps);
    while (isspace((unsigned char)*ps.p))
        ps.p++;
    if (ps.bad || *ps.p)
        return SP_EFORMAT;
    *out = v;
    return 0;
}

/* ---- into the run ---- */

int sp__lk_store(sp_run *run, const sp__lk_marker *m, const sp__lk_group *groups, int ngroups,
                 const sp__lk_env *env, size_t *skipped)
{
    sp_rank_data *rk = &run->ranks[0];
    *skipped = 0;
    for (size_t i = 0; i < m->nrows; i++) {
        const sp__lk_row *r = &m->rows[i];
        const char *tag = r->region < m->nregions ? m->tag[r->region] : NULL;
        int32_t region = tag ? sp_run_region_id(run, tag) : -1;
        if (region < 0) {
            (*skipped)++;
            continue;
        }
        if (r->count == 0)
            continue; /* LIKWID lists every thread for every region: no data here */
        const sp__lk_group *g = r->group >= 0 && r->group < ngroups ? &groups[r->group] : NULL;
        char name[256];
        for (int e = 0; e < r->nevents; e++) {
            if (g && e < g->nevents)
                snprintf(name, sizeof name, "%s:%s", g->event[e], g->counter[e]);
            else
                snprintf(name, sizeof name, "event%d", e);
            if (sp__rank_add_counter(rk, region, -1, r->cpu, SP_COUNTER_LIKWID_EVENT, name,
                                     r->events[e], r->count))
                return SP_ENOMEM;
        }
        sp__lk_env ev = *env;
        ev.time_s = r->time_s;
        if (!g || g->nmetrics == 0) {
            if (sp__rank_add_counter(rk, region, -1, r->cpu, SP_COUNTER_LIKWID_METRIC,
                                     "Runtime (RDTSC) [s]", r->time_s, r->count))
                return SP_ENOMEM;
            continue;
        }
        for (int k = 0; k < g->nmetrics; k++) {
            double v;
            if (sp__lk_eval(g->formula[k], g, r->events, r->nevents, &ev, &v) != 0)
                v = NAN; /* kept: the row says the metric exists */
            if (sp__rank_add_counter(rk, region, -1, r->cpu, SP_COUNTER_LIKWID_METRIC, g->metric[k],
                                     v, r->count))
                return SP_ENOMEM;
        }
    }
    return 0;
}
