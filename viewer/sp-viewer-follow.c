/* SPDX-License-Identifier: MIT */
/*
 * sp-viewer-follow.c - showing a run while it records (--follow, File >
 * Follow).
 *
 * A timer ticks every interval; a tick starts a read of the whole file in a
 * worker thread (sp_run_document_load_async: the isolated reader, analysis
 * and the timeline index, never on the main thread) unless one is still in
 * flight, so a slow read delays refreshes instead of piling them up or
 * freezing the window. An in-progress file is a valid run (SCHEMA.md v2,
 * `complete` = 0; the reader notes "file_state" in the metadata), so a plain
 * re-read is all it takes. A new state is shown only when something changed
 * (more calls, or completion); the session keeps the selected region by name
 * and the window keeps its page. Once the file says complete the reads stop
 * and the tick only stats the file: when it is replaced (another run written
 * to the same path), following resumes.
 */
#include "sp-viewer-window-private.h"

#include <sys/stat.h>

#include "sp-viewer-format.h"

/* No new calls for this long: say so (the program may be waiting, or dead). */
#define STALL_US (30 * G_USEC_PER_SEC)

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
 * (short: the header's subtitle holds 48 characters). */
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
        "Following %s while it records\nRe-read every %.1f s (the last read and analysis took "
        "%.2f s)%s%s%s",
        path, self->follow_interval, self->follow_read_s,
        self->follow_changed_us && idle > STALL_US
            ? "\nNo new calls for a while: the program may be waiting, or was killed"
            : "",
        self->follow_problem ? "\nThe last read failed: " : "",
        self->follow_problem ? self->follow_problem : "");
    gtk_widget_set_tooltip_text(self->run_title_box, tip);
}

typedef struct {
    SpViewerWindow *self; /* strong ref while reading */
    GCancellable *reading;
} FollowRead;

static void on_follow_read(GObject *source, GAsyncResult *result, gpointer data)
{
    FollowRead *fr = data;
    SpViewerWindow *self = fr->self;
    g_autoptr(GError) error = NULL;
    g_autoptr(SpRunDocument) doc = sp_run_document_load_finish(result, &error);
    gboolean current = self->follow_reading == fr->reading &&
                       !g_cancellable_is_cancelled(fr->reading);
    if (current)
        g_clear_object(&self->follow_reading);
    g_object_unref(fr->reading);
    g_free(fr);
    if (!current) { /* stopped, or replaced by another follow */
        g_object_unref(self);
        return;
    }
    SpRunDocument *shown = sp_session_get_base(self->session);
    if (!doc) {
        g_free(self->follow_problem);
        self->follow_problem = g_strdup(error->message);
        if (!shown) {
            g_autofree char *msg = g_strdup_printf(
                "Waiting for %s to become readable…\n%s", self->follow_path, error->message);
            sp_viewer_window_show_waiting(self, msg);
        } else {
            update_live_status(self);
        }
        g_object_unref(self);
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
    if (changed) {
        self->follow_calls = calls;
        self->follow_complete = complete;
        SpRunDocument *docs[1] = {doc};
        if (complete) {
            stamp_file(self->follow_path, self->follow_stamp);
            g_autofree char *n = sp_format_count(calls);
            g_autofree char *span = sp_format_duration(
                (double)(sp_run_document_get_t1_ns(doc) - sp_run_document_get_t0_ns(doc)) * 1e-9);
            set_status(self, g_strdup_printf("run complete · %s calls · wall clock %s", n, span));
            sp_viewer_window_show_documents(self, docs, 1, !shown);
            g_autofree char *banner = g_strdup_printf(
                "The run is complete (%s calls): no longer refreshing.", n);
            sp_viewer_window_show_banner(self, banner);
        } else {
            sp_viewer_window_show_documents(self, docs, 1, !shown);
            update_live_status(self);
        }
        g_signal_emit_by_name(self, "follow-updated", calls, complete);
    } else {
        update_live_status(self);
    }
    g_object_unref(self);
}

static void start_read(SpViewerWindow *self)
{
    FollowRead *fr = g_new0(FollowRead, 1);
    fr->self = g_object_ref(self);
    self->follow_reading = g_cancellable_new();
    fr->reading = g_object_ref(self->follow_reading);
    g_autoptr(GFile) file = g_file_new_for_path(self->follow_path);
    sp_run_document_load_async(file, self->follow_reading, on_follow_read, fr);
}

static gboolean follow_tick(gpointer data)
{
    SpViewerWindow *self = data;
    if (self->follow_reading)
        return G_SOURCE_CONTINUE; /* the last read is still going: skip a beat */
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
    start_read(self);
    return G_SOURCE_CONTINUE;
}

void sp_viewer_window_stop_follow(SpViewerWindow *self)
{
    if (!self->follow_path)
        return;
    g_clear_handle_id(&self->follow_source, g_source_remove);
    if (self->follow_reading)
        g_cancellable_cancel(self->follow_reading); /* kills the reading helper */
    g_clear_object(&self->follow_reading);
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
