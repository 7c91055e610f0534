/* SPDX-License-Identifier: MIT */
/* sp-run-source.c - a run file open for windows and following (see
 * sp-run-source.h). */
#include "sp-run-source.h"

#include "sp_error.h"
#include "sp_h5.h"
#include "sp_h5_stream.h"
#include "sp_run_read.h"

struct SpRunSource {
    gint refs;
    GMutex read_lock;   /* one read of events at a time */
    GRWLock table_lock; /* block tables and index: written by refresh only */
    sp_event_source *src;
    sp_block_index *ix;
    sp_agg_follow *follow;
    sp_run *calls;      /* what a memory source reads, or NULL */
};

SpRunSource *sp_run_source_new_for(sp_event_source *src)
{
    sp_block_index *ix = sp_block_index_new(src);
    if (!ix) {
        sp_event_source_free(src);
        return NULL;
    }
    SpRunSource *self = g_new0(SpRunSource, 1);
    self->refs = 1;
    g_mutex_init(&self->read_lock);
    g_rw_lock_init(&self->table_lock);
    self->src = src;
    self->ix = ix;
    return self;
}

SpRunSource *sp_run_source_new(const char *path, int *status)
{
    int rc = 0;
    sp_event_source *src = sp_run_source_open(path, &rc);
    if (!src) {
        *status = rc ? rc : SP_EIO;
        return NULL;
    }
    SpRunSource *self = sp_run_source_new_for(src);
    *status = self ? 0 : SP_ENOMEM;
    return self;
}

void sp_run_source_keep_run(SpRunSource *self, sp_run *calls)
{
    self->calls = calls;
}

SpRunSource *sp_run_source_ref(SpRunSource *self)
{
    g_atomic_int_inc(&self->refs);
    return self;
}

void sp_run_source_unref(SpRunSource *self)
{
    if (!self || !g_atomic_int_dec_and_test(&self->refs))
        return;
    sp_agg_follow_free(self->follow);
    sp_block_index_free(self->ix);
    sp_event_source_free(self->src);
    sp_run_free(self->calls);
    g_mutex_clear(&self->read_lock);
    g_rw_lock_clear(&self->table_lock);
    g_free(self);
}

gboolean sp_run_source_matches(SpRunSource *self, const sp_agg *agg)
{
    gboolean ok = agg && agg->nranks == self->src->nranks && (agg->flags & SP_AGG_LANES);
    g_rw_lock_reader_lock(&self->table_lock);
    for (size_t r = 0; ok && r < agg->nranks; r++)
        ok = agg->ranks[r].blocks_read <= self->src->nblocks[r];
    g_rw_lock_reader_unlock(&self->table_lock);
    return ok;
}

int sp_run_source_load_window(SpRunSource *self, const sp_agg *agg, size_t rank, int32_t thread,
                              gint64 t0_ns, gint64 t1_ns, size_t max_calls, sp_window **out)
{
    g_mutex_lock(&self->read_lock);
    g_rw_lock_reader_lock(&self->table_lock);
    int rc = sp_window_load_ix(self->src, self->ix, agg, rank, thread, t0_ns, t1_ns, max_calls,
                               out);
    g_rw_lock_reader_unlock(&self->table_lock);
    g_mutex_unlock(&self->read_lock);
    return rc;
}

guint64 sp_run_source_estimate(SpRunSource *self, size_t rank, int32_t thread, gint64 t0_ns,
                               gint64 t1_ns)
{
    g_rw_lock_reader_lock(&self->table_lock);
    guint64 n = sp_window_estimate_ix(self->src, self->ix, rank, thread, t0_ns, t1_ns);
    g_rw_lock_reader_unlock(&self->table_lock);
    return n;
}

gboolean sp_run_source_complete(SpRunSource *self)
{
    g_rw_lock_reader_lock(&self->table_lock);
    gboolean c = self->src->complete;
    g_rw_lock_reader_unlock(&self->table_lock);
    return c;
}

/* file_state of an unfinished run with what the pass found (as
 * sp_run_aggregate notes it). */
static int note_state(sp_run *run, const sp_agg *a, const sp_event_source *src)
{
    if (!sp_kvlist_get(&run->meta, "file_state"))
        return 0;
    uint64_t open = 0, torn = 0;
    for (size_t r = 0; r < a->nranks; r++) {
        open += a->ranks[r].open_calls;
        torn += a->ranks[r].torn_blocks + sp_h5_stream_torn_blocks(src, r);
    }
    char v[512];
    sp_h5_file_state_text(open, torn, v, sizeof v);
    return sp_kvlist_set(&run->meta, "file_state", v);
}

sp_run *sp_run_source_follow(SpRunSource *self, unsigned flags, int *status)
{
    int rc = 0;
    sp_agg *agg = NULL;
    sp_run *run = NULL;
    g_mutex_lock(&self->read_lock);
    if (!self->follow) {
        sp_agg_opts o = {.flags = flags};
        rc = sp_agg_follow_new(self->src, &o, &self->follow);
    } else {
        bool grew = false;
        g_rw_lock_writer_lock(&self->table_lock);
        rc = sp_event_source_refresh(self->src, &grew);
        if (rc == 0 && grew)
            rc = sp_block_index_update(self->ix, self->src);
        g_rw_lock_writer_unlock(&self->table_lock);
    }
    if (rc == 0)
        rc = sp_agg_follow_update(self->follow, &agg);
    /* The header as it is now (new regions and threads came with the
     * refresh), for a run of its own. */
    if (rc == 0 && !(run = sp_run_copy_header(self->src->run)))
        rc = SP_ENOMEM;
    if (rc == 0 && (rc = sp_agg_attach(run, agg)) == 0)
        agg = NULL; /* the run's now */
    if (rc == 0 && note_state(run, run->agg, self->src) != 0)
        rc = sp__error(SP_ENOMEM, "out of memory");
    g_mutex_unlock(&self->read_lock);
    sp_agg_free(agg);
    if (rc) {
        sp_run_free(run);
        *status = rc;
        return NULL;
    }
    *status = 0;
    return run;
}
