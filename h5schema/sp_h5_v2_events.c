/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_v2_events.c - the event stream of schema v2 in memory: appending
 * events into blocks, calls turned into events, the tick <-> ns map, and
 * names kept as raw bytes turned into text.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sp_error.h"
#include "sp_h5_v2.h"

/* ---------------------------------------------------------------- blocks */

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 1024;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * elem);
    if (!q)
        return SP_ENOMEM;
    *p = q;
    *cap = c;
    return 0;
}

static int reserve_events(sp_v2_events *e, size_t n)
{
    size_t cap = e->cap, cap2 = e->cap;
    if (grow((void **)&e->dt, &cap, n, sizeof *e->dt) ||
        grow((void **)&e->region, &cap2, n, sizeof *e->region))
        return SP_ENOMEM;
    e->cap = cap < cap2 ? cap : cap2;
    return 0;
}

static int reserve_blocks(sp_v2_events *e, size_t n)
{
    size_t c[4] = {e->bcap, e->bcap, e->bcap, e->bcap};
    if (grow((void **)&e->bthread, &c[0], n, sizeof *e->bthread) ||
        grow((void **)&e->bevents, &c[1], n, sizeof *e->bevents) ||
        grow((void **)&e->bbegins, &c[2], n, sizeof *e->bbegins) ||
        grow((void **)&e->bt0, &c[3], n, sizeof *e->bt0))
        return SP_ENOMEM;
    size_t m = c[0];
    for (int i = 1; i < 4; i++)
        m = c[i] < m ? c[i] : m;
    e->bcap = m;
    return 0;
}

int sp_v2_events_add(sp_v2_events *e, int32_t thread, int64_t t, int32_t region)
{
    size_t b = e->nblocks;
    bool fresh = !e->open || b == 0 || e->bthread[b - 1] != thread || t < e->last ||
                 (uint64_t)t - (uint64_t)e->last > UINT32_MAX ||
                 e->bevents[b - 1] >= SP_V2_BLOCK_MAX;
    if (reserve_events(e, e->n + 1) != 0 || (fresh && reserve_blocks(e, b + 1) != 0))
        return SP_ENOMEM;
    uint32_t dt = 0;
    if (fresh) {
        e->bthread[b] = thread;
        e->bevents[b] = 0;
        e->bbegins[b] = 0;
        e->bt0[b] = t;
        e->nblocks = ++b;
        e->open = true;
    } else {
        dt = (uint32_t)((uint64_t)t - (uint64_t)e->last);
    }
    e->dt[e->n] = dt;
    e->region[e->n++] = region;
    e->bevents[b - 1]++;
    e->bbegins[b - 1] += region >= 0;
    e->last = t;
    return 0;
}

int sp_v2_events_reserve(sp_v2_events *e, size_t more)
{
    return reserve_events(e, e->n + more);
}

void sp_v2_events_close_block(sp_v2_events *e) { e->open = false; }

void sp_v2_events_clear(sp_v2_events *e)
{
    e->n = e->nblocks = 0;
    e->open = false;
}

void sp_v2_events_free(sp_v2_events *e)
{
    if (!e)
        return;
    free(e->dt);
    free(e->region);
    free(e->bthread);
    free(e->bevents);
    free(e->bbegins);
    free(e->bt0);
    memset(e, 0, sizeof *e);
}

/* ---------------------------------------------------------------- clock */

int sp_v2_clock_map_make(const int64_t *ticks, const int64_t *ns, size_t np,
                         sp_v2_clock_map *out)
{
    if (np == 0)
        return SP_EFORMAT;
    out->t0 = ticks[0];
    out->ns0 = ns[0];
    out->ratio = 1.0;
    double dt = (double)ticks[np - 1] - (double)ticks[0];
    double dns = (double)ns[np - 1] - (double)ns[0];
    if (np == 1 || dt == 0.0)
        return ticks[0] == ns[0] ? 0 : SP_EFORMAT; /* one point: the identity only */
    if (dt < 0.0 || dns <= 0.0 || !isfinite(dns / dt))
        return SP_EFORMAT;
    out->ratio = dns / dt;
    return 0;
}

/* Round to nearest, ties to even (np.rint, llrint), saturated. */
static int64_t saturate(double v)
{
    if (!(v < 9.2e18))
        return INT64_MAX;
    if (!(v > -9.2e18))
        return INT64_MIN;
    return sp_v2_round(v);
}

int64_t sp_v2_clock_to_ns(const sp_v2_clock_map *m, int64_t ticks)
{
    if (m->ratio == 1.0) { /* the identity (monotonic clock), exact; saturated */
        int64_t d, r;
        if (__builtin_sub_overflow(ticks, m->t0, &d))
            return ticks < m->t0 ? INT64_MIN : INT64_MAX;
        if (__builtin_add_overflow(d, m->ns0, &r))
            return d < 0 ? INT64_MIN : INT64_MAX;
        return r;
    }
    /* Round the scaled difference, then add: the same as SCHEMA.md's h5py
     * code (np.rint rounds half to even, as llrint does). */
    int64_t d = saturate(((double)ticks - (double)m->t0) * m->ratio);
    if ((d > 0 && m->ns0 > INT64_MAX - d) || (d < 0 && m->ns0 < INT64_MIN - d))
        return d > 0 ? INT64_MAX : INT64_MIN;
    return m->ns0 + d;
}

int64_t sp_v2_clock_to_ticks(const sp_v2_clock_map *m, int64_t ns)
{
    if (m->ratio == 1.0) {
        int64_t d, r;
        if (__builtin_sub_overflow(ns, m->ns0, &d))
            return ns < m->ns0 ? INT64_MIN : INT64_MAX;
        if (__builtin_add_overflow(d, m->t0, &r))
            return d < 0 ? INT64_MIN : INT64_MAX;
        return r;
    }
    return saturate((double)m->t0 + ((double)ns - (double)m->ns0) / m->ratio);
}

/* ---------------------------------------------------------------- calls -> events */

typedef struct stack {
    size_t n, cap;
    size_t *call;
} stack;

static int push(stack *s, size_t i)
{
    if (s->n == s->cap) {
        size_t c = s->cap ? 2 * s->cap : 64;
        size_t *p = realloc(s->call, c * sizeof *p);
        if (!p)
            return SP_ENOMEM;
        s->call = p;
        s->cap = c;
    }
    s->call[s->n++] = i;
    return 0;
}

/* Emit the end of the innermost open call. */
static int pop_end(const sp_rank_data *rk, stack *s, int32_t th, const sp_v2_clock_map *m,
                   sp_v2_events *out, int64_t *last)
{
    size_t c = s->call[--s->n];
    int64_t t = sp_v2_clock_to_ticks(m, rk->end_ns[c]);
    if (t < *last)
        return sp__error(SP_EINVAL, "call %zu ends before a call nested in it or after it", c);
    *last = t;
    return sp_v2_events_add(out, th, t, -1) ? SP_ENOMEM : 0;
}

int sp_v2_events_from_calls(const sp_rank_data *rk, size_t first, const sp_v2_clock_map *m,
                            sp_v2_events *out)
{
    stack s = {0, 0, NULL};
    int rc = 0;
    int32_t th = -1;
    int64_t last = INT64_MIN;
    for (size_t i = first; i < rk->ncalls && rc == 0; i++) {
        if (rk->thread[i] != th) {
            while (s.n && rc == 0)
                rc = pop_end(rk, &s, th, m, out, &last);
            th = rk->thread[i];
            last = INT64_MIN;
            sp_v2_events_close_block(out);
        }
        int64_t p = rk->parent[i];
        while (rc == 0 && s.n && (p < 0 || s.call[s.n - 1] != (size_t)p))
            rc = pop_end(rk, &s, th, m, out, &last);
        if (rc)
            break;
        if (p >= 0 && s.n == 0) {
            rc = sp__error(SP_EINVAL, "call %zu: its parent %lld is not an open call of its "
                           "thread", i, (long long)p);
            break;
        }
        int64_t t = sp_v2_clock_to_ticks(m, rk->start_ns[i]);
        if (t < last) {
            rc = sp__error(SP_EINVAL, "call %zu starts before the previous call of its thread "
                           "ended (calls must nest)", i);
            break;
        }
        last = t;
        if (sp_v2_events_add(out, th, t, rk->region[i]) != 0 || push(&s, i) != 0)
            rc = SP_ENOMEM;
    }
    while (rc == 0 && s.n)
        rc = pop_end(rk, &s, th, m, out, &last);
    sp_v2_events_close_block(out);
    free(s.call);
    if (rc == SP_ENOMEM)
        sp__error(rc, "out of memory turning calls into events");
    return rc;
}

void sp_v2_hint_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (!p || bytes < 2 * huge)
        return;
    uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    uintptr_t e = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (e > a)
        madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

/* ---------------------------------------------------------------- names */

/* Length of the valid UTF-8 sequence at s (at most n bytes left), 0 if
 * none (overlong, surrogate, > U+10FFFF, truncated, stray byte, NUL). */
static size_t utf8_len(const uint8_t *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    uint32_t cp;
    if (c == 0)
        return 0;
    if (c < 0x80)
        return 1;
    if ((c & 0xE0) == 0xC0)
        len = 2, cp = c & 0x1F;
    else if ((c & 0xF0) == 0xE0)
        len = 3, cp = c & 0x0F;
    else if ((c & 0xF8) == 0xF0)
        len = 4, cp = c & 0x07;
    else
        return 0;
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    static const uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_cp[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

char *sp_v2_bytes_to_text(const uint8_t *b, size_t n)
{
    if (n > (SIZE_MAX - 1) / 4)
        return NULL;
    char *out = malloc(4 * n + 1), *o = out;
    if (!out)
        return NULL;
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n;) {
        size_t len = utf8_len(b + i, n - i);
        if (len) {
            memcpy(o, b + i, len);
            o += len;
            i += len;
        } else {
            *o++ = '\\';
            *o++ = 'x';
            *o++ = hex[b[i] >> 4];
            *o++ = hex[b[i] & 15];
            i++;
        }
    }
    *o = '\0';
    return out;
}

char *sp_v2_text_escape(const char *s)
{
    return sp_v2_bytes_to_text((const uint8_t *)(s ? s : ""), s ? strlen(s) : 0);
}
