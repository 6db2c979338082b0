#include "gtk_shims.h"

void it_accessible_set_label(GtkWidget *widget, const char *label) {
    gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
}

void it_accessible_set_description(GtkWidget *widget, const char *description) {
    gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description, -1);
}

void it_accessible_set_invalid(GtkWidget *widget, gboolean invalid) {
    if (invalid) {
        gtk_accessible_update_state(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_STATE_INVALID, GTK_ACCESSIBLE_INVALID_TRUE, -1);
    } else {
        gtk_accessible_reset_state(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_STATE_INVALID);
    }
}

void it_entry_mark_error(GtkEntry *entry, guint start, guint end) {
    PangoAttrList *marks = pango_attr_list_new();
    if (start < end) {
        PangoAttribute *underline = pango_attr_underline_new(PANGO_UNDERLINE_ERROR);
        underline->start_index = start;
        underline->end_index = end;
        pango_attr_list_insert(marks, underline);
    }
    gtk_entry_set_attributes(entry, marks);
    pango_attr_list_unref(marks);
}

typedef struct {
    void (*callback)(void *context);
    void *context;
    GDestroyNotify release;
} Posted;

static gboolean run_posted(gpointer data) {
    Posted *posted = data;
    posted->callback(posted->context);
    return G_SOURCE_REMOVE;
}

static void free_posted(gpointer data) {
    Posted *posted = data;
    if (posted->release != NULL) posted->release(posted->context);
    g_free(posted);
}

void it_post_main(void (*callback)(void *context), void *context, GDestroyNotify release) {
    Posted *posted = g_new(Posted, 1);
    posted->callback = callback;
    posted->context = context;
    posted->release = release;
    g_idle_add_full(G_PRIORITY_HIGH, run_posted, posted, free_posted);
}
