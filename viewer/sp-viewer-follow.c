/* SPDX-License-Identifier: MIT */
/*
 * sp-viewer-follow.c - showing a run while it records (--follow, File >
 * Follow).
 *
 * The file is opened once in this process (sp-run-source.h) and a pass
 * stays open on it (sp_agg_follow): a timer ticks every interval, and a
 * tick takes in the blocks the recorder appended since the last one
 * (sp_event_source_refresh) and replays only those
 * (sp_agg_follow_update), in a worker thread, unless a refresh is still in
 * flight, so a slow refresh delays the next one instead of piling up or
 * freezing the window. Each refresh makes a new document from the
 * aggregates so far on the same source (the timeline reads its windows
 * from it); its cost grows with what was appended, not with the run. A new
 * state is shown only when something changed (more calls, or completion);
 * the session keeps the selected region by name and the window keeps its
 * page. When the recorder finishes it renames the finished file over the
 * path: a new inode, so the file is read once more from scratch (isolated,
 * with the timeline's index) and the reads stop; the tick then only stats
 * the file, and when it is replaced again (another run written to the same
 * path), following resumes.
 */
#include "sp-viewer-window-private.h"

#include <sys/stat.h>

#include "sp-viewer-error.h"
#include "sp-viewer-format.h"

/* No new calls for this long: say so (the program may be waiting, or dead). */
#define STALL_US (30 * G_USEC_PER_SEC)
/* What a refresh asks of the pass (the follower builds no index: windows
 * serve the timeline of a recording run). */
#define FOLLOW_FLAGS (SP_AGG_LANES | SP_AGG_SERIES)

static void set_status(SpViewerWindow *self, char *status /* owned */)
{
    g_free(self->follow_status);
    self->follow_status = status;
    sp_viewer_window_update_titles(self);
}

static char *clock_now(void)
{
    g_autoptr(GDateTime) now = g_date_time_new_now_local();
    return g_date_time_format(now, "%H:%M:%S");
}

static gboolean stamp_file(const char *path, gint64 stamp[3])
{
    struct stat st;
    if (stat(path, &st) != 0)
        return FALSE;
    stamp[0] = (gint64)st.st_ino;
    stamp[1] = (gint64)st.st_mtim.tv_sec * G_USEC_PER_SEC + st.st_mtim.tv_nsec / 1000;
    stamp[2] = (gint64)st.st_size;
    return TRUE;
}

/* The status of a run still recording: live, stalled, or a failed read
 * (short: the header's subtitle holds 64 characters). */
static void update_live_status(SpViewerWindow *self)
{
    g_autofree char *when = clock_now();
    g_autofree char *calls = sp_format_count(self->follow_calls);
    gint64 idle = g_get_monotonic_time() - self->follow_changed_us;
    if (self->follow_problem)
        set_status(self, g_strdup_printf("in progress · %s calls · read failed, retrying", calls));
    else if (self->follow_changed_us && idle > STALL_US)
        set_status(self, g_strdup_printf("in progress · %s calls · none new for %d s", calls,
                                         (int)(idle / G_USEC_PER_SEC)));
    else
        set_status(self, g_strdup_printf("in progress · %s calls · updated %s", calls, when));
    const char *path = self->follow_path;
    g_autofree char *tip = g_strdup_printf(
        "Following %s while it records\nRefreshed every %.1f s with the calls appended since "
        "the last refresh (the last took %.3f s)%s%s%s",
        path, self->follow_interval, self->follow_read_s,
        self->follow_changed_us && idle > STALL_US
            ? "\nNo new calls for a while: the program may be waiting, or was killed"
            : "",
        self->follow_problem ? "\nThe last read failed: " : "",
        self->follow_problem ? self->follow_problem : "");
    gtk_widget_set_tooltip_text(self->run_title_box, tip);
}

/* ---- one refresh, in a worker thread ---- */

typedef struct {
    char *path;
    SpRunSource *src;    /* in: the open source (or NULL); out: the one to keep */
    gint64 inode;        /* out: of the file when src was opened */
    SpRunDocument *doc;  /* out */
    GError *error;       /* out */
} FollowJob;

static void follow_job_free(gpointer p)
{
    FollowJob *job = p;
    g_free(job->path);
    sp_run_source_unref(job->src);
    g_clear_object(&job->doc);
    g_clear_error(&job->error);
    g_free(job);
}

/* The next state: new blocks of the open source; or, first, the source
 * opened; or, when the file is finished, the whole document read the way
 * any file is (and no source kept: nothing more will come). */
static void follow_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
    FollowJob *job = data;
    gint64 begin = g_get_monotonic_time();
    if (!job->src) {
        struct stat st;
        job->inode = stat(job->path, &st) == 0 ? (gint64)st.st_ino : -1;
        int status = 0;
        job->src = sp_run_source_new(job->path, &status);
        if (!job->src) {
            sp_viewer_set_error(&job->error, status, sp_last_error());
            return;
        }
        if (sp_run_source_complete(job->src)) {
            g_clear_pointer(&job->src, sp_run_source_unref);
            job->doc = sp_run_document_load(job->path, &job->error);
            return;
        }
    }
    int status = 0;
    sp_run *run = sp_run_source_follow(job->src, FOLLOW_FLAGS, &status);
    if (!run) {
        sp_viewer_set_error(&job->error, status, sp_last_error());
        return;
    }
    double read_s = (double)(g_get_monotonic_time() - begin) / G_USEC_PER_SEC;
    job->doc = sp_run_document_new_followed(run, job->src, job->path, read_s, &job->error);
}

static void on_follow_read(GObject *source, GAsyncResult *result, gpointer data)
{
    SpViewerWindow *self = SP_VIEWER_WINDOW(source);
    FollowJob *job = g_task_get_task_data(G_TASK(result));
    GCancellable *reading = g_task_get_cancellable(G_TASK(result));
    gboolean current = self->follow_reading == reading && !g_cancellable_is_cancelled(reading);
    if (!current) /* stopped, or replaced by another follow */
        return;
    g_clear_object(&self->follow_reading);
    if (job->src != self->follow_src) {
        sp_run_source_unref(self->follow_src);
        self->follow_src = job->src ? sp_run_source_ref(job->src) : NULL;
        self->follow_inode = job->inode;
    }
    SpRunDocument *shown = sp_session_get_base(self->session);
    SpRunDocument *doc = job->doc;
    if (!doc) {
        g_free(self->follow_problem);
        self->follow_problem = g_strdup(job->error ? job->error->message : "read failed");
        /* A source that failed is opened anew next time. */
        g_clear_pointer(&self->follow_src, sp_run_source_unref);
        if (!shown) {
            g_autofree char *msg = g_strdup_printf("Waiting for %s to become readable…\n%s",
                                                   self->follow_path, self->follow_problem);
            sp_viewer_window_show_waiting(self, msg);
        } else {
            update_live_status(self);
        }
        return;
    }
    g_clear_pointer(&self->follow_problem, g_free);
    const sp_run *run = sp_run_document_get_run(doc);
    gboolean complete = sp_kvlist_get(&run->meta, "file_state") == NULL;
    guint64 calls = sp_run_document_get_total_calls(doc);
    self->follow_read_s = sp_run_document_get_load_seconds(doc);
    gboolean changed = !shown || calls != self->follow_calls || complete;
    if (calls != self->follow_calls || !self->follow_changed_us)
        self->follow_changed_us = g_get_monotonic_time();
    if (!changed) {
        update_live_status(self);
        return;
    }
    self->follow_calls = calls;
    self->follow_complete = complete;
    SpRunDocument *docs[1] = {doc};
    if (complete) {
        g_clear_pointer(&self->follow_src, sp_run_source_unref);
        stamp_file(self->follow_path, self->follow_stamp);
        g_autofree char *n = sp_format_count(calls);
        g_autofree char *span = sp_format_duration(
            (double)(sp_run_document_get_t1_ns(doc) - sp_run_document_get_t0_ns(doc)) * 1e-9);
        set_status(self, g_strdup_printf("run complete · %s calls · wall clock %s", n, span));
        sp_viewer_window_show_documents(self, docs, 1, !shown);
        g_autofree char *banner =
            g_strdup_printf("The run is complete (%s calls): no longer refreshing.", n);
        sp_viewer_window_show_banner(self, banner);
    } else {
        sp_viewer_window_show_documents(self, docs, 1, !shown);
        update_live_status(self);
    }
    g_signal_emit_by_name(self, "follow-updated", calls, complete);
}

static void start_read(SpViewerWindow *self)
{
    FollowJob *job = g_new0(FollowJob, 1);
    job->path = g_strdup(self->follow_path);
    job->src = self->follow_src ? sp_run_source_ref(self->follow_src) : NULL;
    job->inode = self->follow_inode;
    self->follow_reading = g_cancellable_new();
    GTask *task = g_task_new(self, self->follow_reading, on_follow_read, NULL);
    g_task_set_task_data(task, job, follow_job_free);
    g_task_run_in_thread(task, follow_thread);
    g_object_unref(task);
}

static gboolean follow_tick(gpointer data)
{
    SpViewerWindow *self = data;
    if (self->follow_reading)
        return G_SOURCE_CONTINUE; /* the last refresh is still going: skip a beat */
    gint64 stamp[3];
    gboolean exists = stamp_file(self->follow_path, stamp);
    if (self->follow_complete) {
        /* Done: only notice a new run written to the same path. */
        if (!exists || memcmp(stamp, self->follow_stamp, sizeof stamp) == 0)
            return G_SOURCE_CONTINUE;
        self->follow_complete = FALSE;
        sp_viewer_window_show_banner(self, "The file was replaced: following the new run.");
    }
    if (!exists) {
        if (!sp_session_get_base(self->session)) {
            g_autofree char *msg = g_strdup_printf(
                "Waiting for %s to appear…\nStart the program that records it; "
                "press Escape to stop waiting.", self->follow_path);
            sp_viewer_window_show_waiting(self, msg);
        } else {
            g_autofree char *when = clock_now();
            set_status(self, g_strdup_printf("file gone at %s · waiting for it", when));
        }
        return G_SOURCE_CONTINUE;
    }
    /* Another file at the path (the recorder renamed the finished run over
     * it, or a new run began): open it from scratch. */
    if (self->follow_src && stamp[0] != self->follow_inode)
        g_clear_pointer(&self->follow_src, sp_run_source_unref);
    start_read(self);
    return G_SOURCE_CONTINUE;
}

void sp_viewer_window_stop_follow(SpViewerWindow *self)
{
    if (!self->follow_path)
        return;
    g_clear_handle_id(&self->follow_source, g_source_remove);
    if (self->follow_reading)
        g_cancellable_cancel(self->follow_reading); /* its result is dropped */
    g_clear_object(&self->follow_reading);
    g_clear_pointer(&self->follow_src, sp_run_source_unref);
    g_clear_pointer(&self->follow_path, g_free);
    g_clear_pointer(&self->follow_status, g_free);
    g_clear_pointer(&self->follow_problem, g_free);
    self->follow_complete = FALSE;
    self->follow_calls = 0;
    self->follow_changed_us = 0;
}

void sp_viewer_window_follow(SpViewerWindow *self, GFile *file, double interval_s)
{
    g_return_if_fail(SP_IS_VIEWER_WINDOW(self));
    g_autofree char *path = g_file_get_path(file);
    if (!path) {
        sp_viewer_window_show_banner(self, "Only local files can be followed.");
        return;
    }
    /* Stop a load or a follow in progress: this window now shows this run. */
    if (self->cancellable)
        g_cancellable_cancel(self->cancellable);
    g_clear_object(&self->cancellable);
    sp_viewer_window_stop_follow(self);
    self->follow_path = g_steal_pointer(&path);
    self->follow_interval = interval_s > 0 ? interval_s : 1.0;
    g_autofree char *base = g_path_get_basename(self->follow_path);
    g_autofree char *msg = g_strdup_printf("Following %s…", base);
    sp_viewer_window_show_waiting(self, msg);
    self->follow_source = g_timeout_add((guint)(self->follow_interval * 1000), follow_tick, self);
    follow_tick(self); /* the first read now, not in a second */
}

gboolean sp_viewer_window_is_following(SpViewerWindow *self)
{
    return self->follow_path != NULL;
}

const char *sp_viewer_window_get_follow_status(SpViewerWindow *self)
{
    return self->follow_status;
}
