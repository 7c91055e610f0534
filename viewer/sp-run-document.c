/* SPDX-License-Identifier: MIT */
/* sp-run-document.c - loading a run aggregate-first off the main thread and
 * deriving the viewer's per-run data once. */
#include "sp-run-document.h"

#include <stdio.h>

#include "scope_profiler.h"
#include "sp-viewer-error.h"
#include "sp-viewer-text.h"
#include "sp_h5.h"
#include "sp_plots.h"
#include "sp_run_read.h"
#include "sp_source_mem.h"
#include "sp_waits.h"

struct _SpRunDocument {
    GObject parent_instance;

    sp_run *run;          /* header + aggregates (no calls) */
    SpRunSource *source;  /* for windows; NULL: none (or not opened yet) */
    GMutex source_lock;   /* opening the source on first use */
    gboolean source_pending; /* the file is opened for windows on first use */
    char *path;
    char *display_name;
    double load_seconds, pass_s, open_s, prepare_s;
    guint64 total_calls;
    gint64 t0_ns, t1_ns;
    double *imbalance; /* per region */
    int top_region;
    sp_figures *figures; /* the rank rule's figures (sp_figures.h) */
    char **region_labels; /* per region: the escaped name, NULL when the name is safe */
    sp_waits *waits;      /* why ranks wait (runs with MPI messages), or NULL */
};

G_DEFINE_FINAL_TYPE(SpRunDocument, sp_run_document, G_TYPE_OBJECT)

static void sp_run_document_finalize(GObject *object)
{
    SpRunDocument *self = SP_RUN_DOCUMENT(object);
    sp_plot_cache_forget(self->run); /* the charts' cached series of this run */
    sp_figures_free(self->figures);
    sp_waits_free(self->waits);
    if (self->region_labels)
        for (size_t r = 0; r < self->run->nregions; r++)
            g_free(self->region_labels[r]);
    g_free(self->region_labels);
    sp_run_free(self->run);
    sp_run_source_unref(self->source);
    g_mutex_clear(&self->source_lock);
    g_free(self->path);
    g_free(self->display_name);
    g_free(self->imbalance);
    G_OBJECT_CLASS(sp_run_document_parent_class)->finalize(object);
}

static void sp_run_document_class_init(SpRunDocumentClass *klass)
{
    G_OBJECT_CLASS(klass)->finalize = sp_run_document_finalize;
}

static void sp_run_document_init(SpRunDocument *self)
{
    self->top_region = -1;
    g_mutex_init(&self->source_lock);
}

/* max / mean of the per-rank totals; mean over every rank, so a region that
 * runs on one rank of four scores 4. */
static void compute_imbalance(SpRunDocument *self)
{
    const sp_run *run = self->run;
    self->imbalance = g_new0(double, run->nregions ? run->nregions : 1);
    for (size_t r = 0; r < run->nregions; r++) {
        const sp_run_region *reg = &run->regions[r];
        double sum = 0, max = 0;
        for (size_t k = 0; k < run->nranks; k++) {
            double t = reg->per_rank ? reg->per_rank[k].total_s : 0;
            sum += t;
            max = MAX(max, t);
        }
        double mean = run->nranks ? sum / (double)run->nranks : 0;
        self->imbalance[r] = mean > 0 ? max / mean : (reg->all.calls ? 1.0 : 0.0);
    }
}

/* Everything derived from the aggregates: span, imbalance, names, figures.
 * Runs in the loader thread. */
static gboolean prepare(SpRunDocument *self, GError **error)
{
    gint64 begin = g_get_monotonic_time();
    self->total_calls = sp_run_total_calls(self->run);
    if (sp_run_time_span(self->run, &self->t0_ns, &self->t1_ns) != 0)
        self->t0_ns = self->t1_ns = 0;
    compute_imbalance(self);
    /* Names as shown (sp-viewer-text.h), escaped once here; most runs have
     * none to escape and keep an array of NULLs. */
    self->region_labels = g_new0(char *, self->run->nregions ? self->run->nregions : 1);
    for (size_t r = 0; r < self->run->nregions; r++)
        sp_viewer_text(self->run->region_names[r], &self->region_labels[r]);
    self->figures = sp_figures_new(self->run);
    if (!self->figures) {
        sp_viewer_set_error(error, SP_ENOMEM, sp_last_error());
        return FALSE;
    }
    /* Why ranks wait: matched messages and collectives (sp_waits.h). A run
     * whose tables cannot be analysed still opens, without them. */
    if (self->run->mpi && sp_waits_compute_for(self->run, self->path, &self->waits) != 0)
        self->waits = NULL;
    /* Own time, not total: the outermost region always has the most total
     * time and says little; the hot spot is where the time is spent. */
    double best = -1;
    for (size_t r = 0; r < self->run->nregions; r++) {
        const sp_stats *st = &self->run->regions[r].all;
        if (st->calls > 0 && st->own_s > best) {
            best = st->own_s;
            self->top_region = (int)r;
        }
    }
    self->prepare_s = (double)(g_get_monotonic_time() - begin) / G_USEC_PER_SEC;
    return TRUE;
}

/* A document of run (taken) read from path (NULL: in memory) with source
 * (taken; NULL: no windows). */
static SpRunDocument *document_new(sp_run *run, SpRunSource *source, const char *path,
                                   const char *display_name, GError **error)
{
    SpRunDocument *self = g_object_new(SP_TYPE_RUN_DOCUMENT, NULL);
    self->run = run;
    self->source = source;
    self->path = g_strdup(path);
    self->display_name = sp_viewer_text_dup(display_name); /* a file name may hold any byte */
    if (!prepare(self, error)) {
        g_object_unref(self);
        return NULL;
    }
    return self;
}

/* The pass over a run in memory: the run's calls become a memory source
 * (kept for windows), the document's run a copy of its header with the
 * aggregates attached. */
SpRunDocument *sp_run_document_new_for_run(sp_run *run, const char *display_name,
                                           GError **error)
{
    g_return_val_if_fail(run != NULL, NULL);
    gint64 begin = g_get_monotonic_time();
    sp_run *hdr = sp_run_copy_header(run), *shown = sp_run_copy_header(run);
    sp_event_source *src = hdr ? sp_source_mem_new(run, hdr) : NULL;
    sp_agg *agg = NULL;
    int rc = !hdr || !shown || !src ? SP_ENOMEM : 0;
    if (!src)
        sp_run_free(hdr);
    sp_agg_opts o = {.flags = SP_VIEWER_AGG_FLAGS};
    if (rc == 0)
        rc = sp_agg_run(src, &o, &agg);
    if (rc == 0 && (rc = sp_agg_attach(shown, agg)) != 0)
        sp_agg_free(agg);
    if (rc) {
        sp_viewer_set_error(error, rc, sp_last_error());
        sp_event_source_free(src);
        sp_run_free(shown);
        sp_run_free(run);
        return NULL;
    }
    /* The calls stay alive as long as their source: the source frees them
     * when its header goes (see below). */
    SpRunSource *source = sp_run_source_new_for(src);
    if (!source) {
        sp_viewer_set_error(error, SP_ENOMEM, "out of memory");
        sp_run_free(shown);
        sp_run_free(run);
        return NULL;
    }
    sp_run_source_keep_run(source, run);
    double pass_s = (double)(g_get_monotonic_time() - begin) / G_USEC_PER_SEC;
    const char *path = run->source_path;
    SpRunDocument *self = document_new(shown, source, path, display_name ? display_name
                                                            : path ? path
                                                                   : "run", error);
    if (self) {
        self->pass_s = pass_s;
        self->load_seconds = (double)(g_get_monotonic_time() - begin) / G_USEC_PER_SEC;
    }
    return self;
}

SpRunDocument *sp_run_document_new_followed(sp_run *run, SpRunSource *src, const char *path,
                                            double read_s, GError **error)
{
    g_autofree char *base = g_path_get_basename(path);
    SpRunDocument *self = document_new(run, src ? sp_run_source_ref(src) : NULL, path, base, error);
    if (self) {
        self->pass_s = read_s;
        self->load_seconds = read_s + self->prepare_s;
    }
    return self;
}

static char *read_helper; /* set once at startup, before any thread */

void sp_run_document_set_read_helper(const char *program)
{
    g_free(read_helper);
    read_helper = g_strdup(program);
}

static SpRunDocument *load(const char *path, GCancellable *cancellable, GError **error);

SpRunDocument *sp_run_document_load(const char *path, GError **error)
{
    return load(path, NULL, error);
}

/* sp_run_read() with flags, in the helper process when one is set. */
static sp_run *read_aggregates(const char *path, unsigned flags, GCancellable *cancellable,
                               int *status)
{
    sp_agg_opts opts = {.flags = flags};
    if (!read_helper || !sp_h5_isolation_enabled())
        return sp_run_read(path, &opts, NULL, false, status);
    /* posix_spawn, not fork: this runs in a worker thread of a GTK process. */
    char flag_arg[16];
    snprintf(flag_arg, sizeof flag_arg, "%u", opts.flags);
    const char *const argv[] = {read_helper, SP_VIEWER_READ_HELPER_OPTION, flag_arg, NULL};
    /* Cancelling the load (a new file, the window closed) kills the helper. */
    int cancel_fd = cancellable ? g_cancellable_get_fd(cancellable) : -1;
    sp_h5_isolation how = {argv, 0, cancel_fd};
    sp_run *run = sp_run_read(path, &opts, &how, true, status);
    if (cancel_fd >= 0)
        g_cancellable_release_fd(cancellable);
    return run;
}

static SpRunDocument *load(const char *path, GCancellable *cancellable, GError **error)
{
    g_return_val_if_fail(path != NULL, NULL);
    gint64 begin = g_get_monotonic_time();
    int status = 0;
    sp_run *run = read_aggregates(path, SP_VIEWER_AGG_FLAGS, cancellable, &status);
    if (!run) {
        sp_viewer_set_error(error, status ? status : SP_EIO, sp_last_error());
        return NULL;
    }
    gint64 passed = g_get_monotonic_time();
    g_autofree char *base = g_path_get_basename(path);
    SpRunDocument *self = document_new(run, NULL, path, base, error);
    if (!self)
        return NULL;
    /* The file is opened again in this process for windows of calls when
     * a timeline first needs one (sp_run_document_get_source): reading its
     * header again took 0.4-0.7 s of every load on 10^6 region names, and
     * a timeline drawn whole from its index never needs it. */
    self->source_pending = TRUE;
    self->pass_s = (double)(passed - begin) / G_USEC_PER_SEC;
    self->load_seconds = (double)(g_get_monotonic_time() - begin) / G_USEC_PER_SEC;
    return self;
}

sp_run *sp_run_document_read_aggregates(SpRunDocument *self, unsigned flags, GError **error)
{
    if (!self->path) {
        g_set_error(error, SP_VIEWER_ERROR, SP_VIEWER_ERROR_NOTSUP, "the run has no file");
        return NULL;
    }
    int status = 0;
    sp_run *run = read_aggregates(self->path, flags, NULL, &status);
    if (!run)
        sp_viewer_set_error(error, status ? status : SP_EIO, sp_last_error());
    return run;
}

static void load_thread(GTask *task, gpointer source, gpointer task_data,
                        GCancellable *cancellable)
{
    GFile *file = task_data;
    g_autofree char *path = g_file_get_path(file);
    GError *error = NULL;
    if (!path) {
        g_autofree char *uri = g_file_get_uri(file);
        g_task_return_new_error(task, SP_VIEWER_ERROR, SP_VIEWER_ERROR_NOTSUP,
                                "%s: only local files can be opened", uri);
        return;
    }
    SpRunDocument *doc = load(path, cancellable, &error);
    if (!doc) {
        g_task_return_error(task, error);
        return;
    }
    g_task_return_pointer(task, doc, g_object_unref);
}

void sp_run_document_load_async(GFile *file, GCancellable *cancellable,
                                GAsyncReadyCallback callback, gpointer user_data)
{
    g_autoptr(GTask) task = g_task_new(NULL, cancellable, callback, user_data);
    g_task_set_source_tag(task, sp_run_document_load_async);
    g_task_set_task_data(task, g_object_ref(file), g_object_unref);
    g_task_run_in_thread(task, load_thread);
}

SpRunDocument *sp_run_document_load_finish(GAsyncResult *result, GError **error)
{
    g_return_val_if_fail(g_task_is_valid(result, NULL), NULL);
    return g_task_propagate_pointer(G_TASK(result), error);
}

const sp_run *sp_run_document_get_run(SpRunDocument *self) { return self->run; }
const char *sp_run_document_get_path(SpRunDocument *self) { return self->path; }
const char *sp_run_document_get_display_name(SpRunDocument *self) { return self->display_name; }
double sp_run_document_get_load_seconds(SpRunDocument *self) { return self->load_seconds; }
guint64 sp_run_document_get_total_calls(SpRunDocument *self) { return self->total_calls; }
const sp_agg *sp_run_document_get_agg(SpRunDocument *self) { return self->run->agg; }
SpRunSource *sp_run_document_get_source(SpRunDocument *self)
{
    g_mutex_lock(&self->source_lock);
    if (self->source_pending) {
        /* The file again, in this process: the pass validated it. Without
         * it (or if it changed since) the timeline draws from the index. */
        self->source_pending = FALSE;
        gint64 begin = g_get_monotonic_time();
        int st = 0;
        SpRunSource *source = sp_run_source_new(self->path, &st);
        if (source && !sp_run_source_matches(source, self->run->agg)) {
            sp_run_source_unref(source);
            source = NULL;
        }
        self->source = source;
        self->open_s = (double)(g_get_monotonic_time() - begin) / G_USEC_PER_SEC;
    }
    SpRunSource *source = self->source;
    g_mutex_unlock(&self->source_lock);
    return source;
}

gboolean sp_run_document_may_have_source(SpRunDocument *self)
{
    g_mutex_lock(&self->source_lock);
    gboolean may = self->source || self->source_pending;
    g_mutex_unlock(&self->source_lock);
    return may;
}

void sp_run_document_get_load_breakdown(SpRunDocument *self, double *pass_s, double *open_s,
                                        double *prepare_s)
{
    *pass_s = self->pass_s;
    g_mutex_lock(&self->source_lock); /* set when the source is opened */
    *open_s = self->open_s;
    g_mutex_unlock(&self->source_lock);
    *prepare_s = self->prepare_s;
}
gint64 sp_run_document_get_t0_ns(SpRunDocument *self) { return self->t0_ns; }
gint64 sp_run_document_get_t1_ns(SpRunDocument *self) { return self->t1_ns; }

int sp_run_document_get_top_region(SpRunDocument *self) { return self->top_region; }

int sp_run_document_find_region(SpRunDocument *self, const char *name)
{
    return name ? sp_run_region_id(self->run, name) : -1;
}

double sp_run_document_get_imbalance(SpRunDocument *self, int region)
{
    if (region < 0 || (size_t)region >= self->run->nregions)
        return 0;
    return self->imbalance[region];
}

char *sp_run_document_tree_path(SpRunDocument *self, int node)
{
    const sp_tree *tree = &self->run->tree;
    GPtrArray *names = g_ptr_array_new();
    for (int n = node; n > 0 && (size_t)n < tree->nnodes; n = tree->nodes[n].parent) {
        int r = tree->nodes[n].region;
        if (r >= 0)
            g_ptr_array_add(names, (char *)sp_run_document_get_region_label(self, r));
    }
    GString *s = g_string_new(NULL);
    for (guint i = names->len; i > 0; i--) {
        if (s->len)
            g_string_append(s, " › ");
        g_string_append(s, g_ptr_array_index(names, i - 1));
    }
    g_ptr_array_unref(names);
    return g_string_free(s, FALSE);
}

const sp_waits *sp_run_document_get_waits(SpRunDocument *self)
{
    g_return_val_if_fail(SP_IS_RUN_DOCUMENT(self), NULL);
    return self->waits;
}

const sp_figures *sp_run_document_get_figures(SpRunDocument *self)
{
    return self->figures;
}

const char *sp_run_document_get_region_label(SpRunDocument *self, int region)
{
    if (region < 0 || (size_t)region >= self->run->nregions)
        return NULL;
    return self->region_labels[region] ? self->region_labels[region]
                                       : self->run->region_names[region];
}
