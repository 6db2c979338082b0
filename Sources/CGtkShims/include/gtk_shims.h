#pragma once

/* GTK 4 and libadwaita glue for the Interval Timer window (docs/reference.md §10), in C because these calls are
 * variadic or macros and do not import into Swift, and a thread-safe hop onto the main loop. */

#include <gtk/gtk.h>
#include <adwaita.h>

/* Sets the accessible name (GTK_ACCESSIBLE_PROPERTY_LABEL) that AT-SPI reads for `widget`. */
void it_accessible_set_label(GtkWidget *widget, const char *label);

/* Sets the accessible description (GTK_ACCESSIBLE_PROPERTY_DESCRIPTION) of `widget`. */
void it_accessible_set_description(GtkWidget *widget, const char *description);

/* Marks `widget`'s value as invalid (GTK_ACCESSIBLE_STATE_INVALID) for a screen reader, or clears that. */
void it_accessible_set_invalid(GtkWidget *widget, gboolean invalid);

/* Underlines bytes [start, end) of `entry`'s text as an error (a wavy line), or clears every mark when start == end. */
void it_entry_mark_error(GtkEntry *entry, guint start, guint end);

/* Runs `callback(context)` once on the thread of the default main context, at G_PRIORITY_HIGH; callable from any
 * thread. `release(context)` runs afterwards. */
void it_post_main(void (*callback)(void *context), void *context, GDestroyNotify release);
