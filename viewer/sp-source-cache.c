/* SPDX-License-Identifier: MIT */
/* sp-source-cache.c - source files read once, off the main thread. */
#include "sp-source-cache.h"

#include <string.h>

#include "sp-viewer-screenshot.h"
#include "sp_source.h"

struct _SpSourceCache {
    GObject parent_instance;
    /* Which files may be shown (sp_source.h); read-only once made, so the
     * worker threads share it. */
    sp_source_policy policy;
    /* file as recorded -> SourceFile. Files being read are in pending only. */
    GHashTable *files;
    GHashTable *pending;
    GCancellable *cancellable;
};

enum { SIGNAL_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE(SpSourceCache, sp_source_cache, G_TYPE_OBJECT)

/* A file's lines, or why it is not shown. */
typedef struct {
    char **lines; /* NULL when not shown */
    const char *why; /* static (sp_source.h) when not shown */
} SourceFile;

static void source_file_free(gpointer p)
{
    SourceFile *f = p;
    if (f)
        g_strfreev(f->lines);
    g_free(f);
}

/* What a worker reads: its own copies, the cache is not touched there
 * except for its immutable policy. */
typedef struct {
    SpSourceCache *cache; /* kept alive by the task */
    GPtrArray *names;  /* char* */
    GPtrArray *lines;  /* SourceFile*, parallel to names */
} ReadJob;

static void read_job_free(gpointer p)
{
    ReadJob *job = p;
    g_ptr_array_unref(job->names);
    if (job->lines)
        g_ptr_array_unref(job->lines);
    g_free(job);
}

static SourceFile *read_lines(const sp_source_policy *policy, const char *file)
{
    SourceFile *sf = g_new0(SourceFile, 1);
    char *data = NULL;
    size_t len = 0;
    if (sp_source_read(policy, file, &data, &len, &sf->why) != 0)
        return sf; /* not shown: the reason stays in sf->why */
    if (!g_utf8_validate(data, (gssize)len, NULL)) {
        char *valid = g_utf8_make_valid(data, (gssize)len);
        free(data);
        data = valid; /* g_free-able and free-able alike under glib's allocator */
    }
    char **lines = g_strsplit(data, "\n", -1);
    g_free(data);
    for (char **l = lines; *l; l++) {
        size_t n = strlen(*l);
        if (n && (*l)[n - 1] == '\r')
            (*l)[n - 1] = '\0';
        for (char *c = *l; *c; c++) /* a tab would be drawn as a tiny gap */
            if (*c == '\t')
                *c = ' ';
    }
    sf->lines = lines;
    return sf;
}

static void read_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
    ReadJob *job = data;
    job->lines = g_ptr_array_new_with_free_func(source_file_free);
    for (guint i = 0; i < job->names->len; i++)
        g_ptr_array_add(job->lines, g_cancellable_is_cancelled(cancellable)
                                        ? NULL
                                        : read_lines(&job->cache->policy, job->names->pdata[i]));
    g_task_return_boolean(task, TRUE);
}

static void on_read_done(GObject *source, GAsyncResult *result, gpointer data)
{
    SpSourceCache *self = SP_SOURCE_CACHE(source);
    ReadJob *job = g_task_get_task_data(G_TASK(result));
    sp_viewer_work_end();
    if (!g_task_propagate_boolean(G_TASK(result), NULL) || !job->lines)
        return;
    for (guint i = 0; i < job->names->len; i++) {
        const char *name = job->names->pdata[i];
        g_hash_table_remove(self->pending, name);
        /* The table takes the lines: clear them from the job. */
        g_hash_table_replace(self->files, g_strdup(name), job->lines->pdata[i]);
        job->lines->pdata[i] = NULL;
    }
    g_signal_emit(self, signals[SIGNAL_CHANGED], 0);
}

void sp_source_cache_request(SpSourceCache *self, const char *const *files)
{
    g_return_if_fail(SP_IS_SOURCE_CACHE(self));
    ReadJob *job = g_new0(ReadJob, 1);
    job->names = g_ptr_array_new_with_free_func(g_free);
    for (const char *const *f = files; f && *f; f++) {
        if (!**f || g_hash_table_contains(self->files, *f) ||
            g_hash_table_contains(self->pending, *f))
            continue;
        g_hash_table_add(self->pending, g_strdup(*f));
        g_ptr_array_add(job->names, g_strdup(*f));
    }
    if (job->names->len == 0) {
        read_job_free(job);
        return;
    }
    job->cache = self;
    GTask *task = g_task_new(self, self->cancellable, on_read_done, NULL);
    g_task_set_task_data(task, job, read_job_free);
    g_task_set_return_on_cancel(task, FALSE);
    sp_viewer_work_begin(); /* screenshots wait for the source text */
    g_task_run_in_thread(task, read_thread);
    g_object_unref(task);
}

gboolean sp_source_cache_lookup(SpSourceCache *self, const char *file, int lineno,
                                const char **text, const char **why)
{
    SourceFile *sf = NULL;
    *text = NULL;
    *why = NULL;
    if (!file || !*file || lineno <= 0)
        return TRUE; /* nothing to read: known missing */
    if (!g_hash_table_lookup_extended(self->files, file, NULL, (gpointer *)&sf))
        return FALSE;
    if (!sf || !sf->lines) {
        *why = sf ? sf->why : NULL;
        return TRUE;
    }
    /* A file ending in "\n" splits into one more, empty, string: not a line. */
    guint n = g_strv_length(sf->lines);
    if (n && !*sf->lines[n - 1])
        n--;
    if ((guint)lineno <= n)
        *text = sf->lines[lineno - 1];
    else
        *why = "no such line in the file";
    return TRUE;
}

static void sp_source_cache_dispose(GObject *object)
{
    SpSourceCache *self = SP_SOURCE_CACHE(object);
    g_cancellable_cancel(self->cancellable);
    G_OBJECT_CLASS(sp_source_cache_parent_class)->dispose(object);
}

static void sp_source_cache_finalize(GObject *object)
{
    SpSourceCache *self = SP_SOURCE_CACHE(object);
    sp_source_policy_free(&self->policy);
    g_hash_table_unref(self->files);
    g_hash_table_unref(self->pending);
    g_object_unref(self->cancellable);
    G_OBJECT_CLASS(sp_source_cache_parent_class)->finalize(object);
}

static void sp_source_cache_class_init(SpSourceCacheClass *klass)
{
    GObjectClass *oc = G_OBJECT_CLASS(klass);
    oc->dispose = sp_source_cache_dispose;
    oc->finalize = sp_source_cache_finalize;
    signals[SIGNAL_CHANGED] = g_signal_new("changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST,
                                           0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void sp_source_cache_init(SpSourceCache *self)
{
    self->files = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, source_file_free);
    self->pending = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    self->cancellable = g_cancellable_new();
}

SpSourceCache *sp_source_cache_new(const char *run_path, const char *working_dir,
                                   const char *const *source_dirs)
{
    SpSourceCache *self = g_object_new(SP_TYPE_SOURCE_CACHE, NULL);
    size_t ndirs = source_dirs ? g_strv_length((char **)source_dirs) : 0;
    /* Out of memory: an empty policy, every file "not found". */
    if (sp_source_policy_init(&self->policy, run_path, working_dir, source_dirs, ndirs) != 0)
        memset(&self->policy, 0, sizeof self->policy);
    return self;
}
