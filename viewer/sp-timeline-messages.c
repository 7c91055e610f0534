/* SPDX-License-Identifier: MIT */
/* sp-timeline-messages.c - matched MPI messages as the timeline's lines. */
#include "sp-timeline-messages.h"

#include <stdlib.h>

#include "sp_mpi_data.h"
#include "sp_waits.h"

/* The thread of row `row` of rank r's point-to-point table, or 0 (the main
 * thread) when the table does not say. */
static int32_t p2p_thread(const sp_mpi_data *mpi, int32_t r, size_t row)
{
    if (!mpi || r < 0 || (size_t)r >= mpi->nranks)
        return 0;
    const sp_mpi_p2p *t = &mpi->ranks[r].p2p;
    return row < t->n && t->thread ? t->thread[row] : 0;
}

size_t sp_timeline_message_lines(SpRunDocument *doc, const sp_timeline *tl, gint64 t0_ns,
                                 gint64 t1_ns, sp_timeline_arrow **out, size_t *n_in_window)
{
    *out = NULL;
    if (n_in_window)
        *n_in_window = 0;
    const sp_waits *w = doc ? sp_run_document_get_waits(doc) : NULL;
    if (!w || !w->nmessages || !tl)
        return 0;
    /* Messages are on rank 0's clock; the timeline counts from its origin. */
    int64_t origin = sp_timeline_origin_ns(tl);
    sp_message *m = NULL;
    long n = sp_waits_messages_in(w, t0_ns + origin, t1_ns + origin, &m);
    if (n <= 0) {
        free(m);
        return 0;
    }
    if (n_in_window)
        *n_in_window = (size_t)n;
    size_t step = ((size_t)n + SP_TIMELINE_MAX_MESSAGE_LINES - 1) / SP_TIMELINE_MAX_MESSAGE_LINES;
    const sp_mpi_data *mpi = sp_run_document_get_run(doc)->mpi;
    sp_timeline_arrow *a = g_new0(sp_timeline_arrow, (size_t)n / step + 1);
    size_t k = 0;
    for (size_t i = 0; i < (size_t)n; i += step) {
        const sp_message *x = &m[i];
        sp_timeline_arrow l = {.from_rank = x->src,
                               .from_thread = p2p_thread(mpi, x->src, x->send_row),
                               .from_ns = x->send_ns - origin,
                               .to_rank = x->dst,
                               .to_thread = p2p_thread(mpi, x->dst, x->recv_row),
                               .to_ns = x->recv_ns - origin};
        /* A thread without calls has no lane: the main thread's stands in. */
        if (sp_timeline_find_lane(tl, l.from_rank, l.from_thread) < 0)
            l.from_thread = 0;
        if (sp_timeline_find_lane(tl, l.to_rank, l.to_thread) < 0)
            l.to_thread = 0;
        if (sp_timeline_find_lane(tl, l.from_rank, l.from_thread) < 0 ||
            sp_timeline_find_lane(tl, l.to_rank, l.to_thread) < 0)
            continue;
        a[k++] = l;
    }
    free(m);
    if (!k)
        g_clear_pointer(&a, g_free);
    *out = a;
    return k;
}
