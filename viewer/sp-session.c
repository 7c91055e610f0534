/* SPDX-License-Identifier: MIT */
/* sp-session.c - the runs and the selection a window's pages share. */
#include "sp-session.h"

struct _SpSession {
    GObject parent_instance;
    SpRunDocument *base, *candidate;
    GPtrArray *runs; /* every open run (SpRunDocument), base first */
    char *selected_region;
    /* Region colours of the runs shown (sp_colors.h: one map for base and
     * candidate). Replaced maps are kept until the session ends: charts
     * drawing in worker threads may still hold the previous one. */
    sp_color_map *colors;
    GPtrArray *old_colors;
};

G_DEFINE_FINAL_TYPE(SpSession, sp_session, G_TYPE_OBJECT)

enum { PROP_0, PROP_BASE, PROP_CANDIDATE, PROP_RUNS, PROP_SELECTED_REGION, N_PROPS };
static GParamSpec *properties[N_PROPS];

static void sp_session_dispose(GObject *object)
{
    SpSession *self = SP_SESSION(object);
    g_clear_object(&self->base);
    g_clear_object(&self->candidate);
    g_clear_pointer(&self->runs, g_ptr_array_unref);
    G_OBJECT_CLASS(sp_session_parent_class)->dispose(object);
}

static void sp_session_finalize(GObject *object)
{
    SpSession *self = SP_SESSION(object);
    sp_color_map_free(self->colors);
    g_ptr_array_unref(self->old_colors);
    g_free(self->selected_region);
    G_OBJECT_CLASS(sp_session_parent_class)->finalize(object);
}

static void sp_session_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
    SpSession *self = SP_SESSION(object);
    switch (id) {
    case PROP_BASE: g_value_set_object(value, self->base); break;
    case PROP_CANDIDATE: g_value_set_object(value, self->candidate); break;
    case PROP_RUNS: g_value_set_uint(value, sp_session_get_n_runs(self)); break;
    case PROP_SELECTED_REGION: g_value_set_string(value, self->selected_region); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

static void sp_session_set_property(GObject *object, guint id, const GValue *value,
                                    GParamSpec *pspec)
{
    SpSession *self = SP_SESSION(object);
    switch (id) {
    case PROP_SELECTED_REGION:
        sp_session_set_selected_region(self, g_value_get_string(value));
        break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

static void sp_session_class_init(SpSessionClass *klass)
{
    GObjectClass *oc = G_OBJECT_CLASS(klass);
    oc->dispose = sp_session_dispose;
    oc->finalize = sp_session_finalize;
    oc->get_property = sp_session_get_property;
    oc->set_property = sp_session_set_property;
    properties[PROP_BASE] = g_param_spec_object("base", NULL, NULL, SP_TYPE_RUN_DOCUMENT,
                                                G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
    properties[PROP_CANDIDATE] = g_param_spec_object("candidate", NULL, NULL,
                                                     SP_TYPE_RUN_DOCUMENT,
                                                     G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
    properties[PROP_RUNS] = g_param_spec_uint("runs", NULL, "number of open runs", 0, G_MAXUINT,
                                              0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
    properties[PROP_SELECTED_REGION] = g_param_spec_string(
        "selected-region", NULL, NULL, NULL,
        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
    g_object_class_install_properties(oc, N_PROPS, properties);
}

static void sp_session_init(SpSession *self)
{
    self->old_colors = g_ptr_array_new_with_free_func((GDestroyNotify)sp_color_map_free);
}

SpSession *sp_session_new(void) { return g_object_new(SP_TYPE_SESSION, NULL); }

SpRunDocument *sp_session_get_base(SpSession *self) { return self->base; }
SpRunDocument *sp_session_get_candidate(SpSession *self) { return self->candidate; }

void sp_session_set_runs(SpSession *self, SpRunDocument *base, SpRunDocument *candidate)
{
    SpRunDocument *docs[2] = {base, candidate};
    sp_session_set_run_list(self, docs, candidate ? 2 : (base ? 1 : 0));
}

guint sp_session_get_n_runs(SpSession *self)
{
    return self->runs ? self->runs->len : 0;
}

SpRunDocument *sp_session_get_run(SpSession *self, guint i)
{
    return self->runs && i < self->runs->len ? g_ptr_array_index(self->runs, i) : NULL;
}

void sp_session_set_run_list(SpSession *self, SpRunDocument *const *docs, guint n)
{
    g_return_if_fail(SP_IS_SESSION(self));
    SpRunDocument *base = n > 0 ? docs[0] : NULL, *candidate = n > 1 ? docs[1] : NULL;
    /* The colours first: pages redraw when notified of the new runs. One
     * map over every open run, so a region has one colour everywhere. */
    const sp_run **runs = g_new0(const sp_run *, n + 1);
    for (guint i = 0; i < n; i++)
        runs[i] = docs[i] ? sp_run_document_get_run(docs[i]) : NULL;
    sp_color_map *colors = sp_color_map_new(runs, n); /* NULL (ENOMEM): hash colours */
    g_free(runs);
    if (self->colors)
        g_ptr_array_add(self->old_colors, self->colors);
    g_atomic_pointer_set(&self->colors, colors);
    g_object_freeze_notify(G_OBJECT(self));
    g_clear_pointer(&self->runs, g_ptr_array_unref);
    self->runs = g_ptr_array_new_with_free_func(g_object_unref);
    for (guint i = 0; i < n; i++)
        g_ptr_array_add(self->runs, g_object_ref(docs[i]));
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_RUNS]);
    if (g_set_object(&self->base, base))
        g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_BASE]);
    if (g_set_object(&self->candidate, candidate))
        g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_CANDIDATE]);
    if (self->selected_region &&
        (!base || sp_run_document_find_region(base, self->selected_region) < 0))
        sp_session_set_selected_region(self, NULL);
    g_object_thaw_notify(G_OBJECT(self));
}

const char *sp_session_get_selected_region(SpSession *self) { return self->selected_region; }

void sp_session_set_selected_region(SpSession *self, const char *name)
{
    g_return_if_fail(SP_IS_SESSION(self));
    if (g_strcmp0(self->selected_region, name) == 0)
        return;
    g_free(self->selected_region);
    self->selected_region = g_strdup(name);
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_SELECTED_REGION]);
}

int sp_session_get_selected_id(SpSession *self, SpRunDocument *doc)
{
    if (!doc || !self->selected_region)
        return -1;
    return sp_run_document_find_region(doc, self->selected_region);
}

const sp_color_map *sp_session_get_colors(SpSession *self)
{
    return self ? g_atomic_pointer_get(&self->colors) : NULL;
}
