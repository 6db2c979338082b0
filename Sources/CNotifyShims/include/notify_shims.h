#pragma once

/* GLib glue for IntervalNotify, in C because G_CALLBACK/g_signal_connect and the callback shapes of
 * GSource and GBusNameWatcher do not import into Swift as they are. Every function takes a plain
 * callback, an opaque `context` and a `release` that is called exactly once when the callback can no
 * longer run, so the Swift side passes a retained object and releases it there. */

#include <gio/gio.h>
#include <libnotify/notify.h>

typedef void (*in_callback)(void *context);
typedef void (*in_closed_callback)(void *context, int reason);
/* `owner` is the unique bus name of the new owner, or NULL when the name has no owner. */
typedef void (*in_name_owner_callback)(void *context, const char *owner);

/* Queues `callback(context)` to run once on the thread that runs `main_context` (NULL: the default
 * one), at G_PRIORITY_DEFAULT, in the order of the calls. Unlike g_main_context_invoke_full() it never
 * runs the callback inline, not even when called on that thread (no re-entrancy into libnotify
 * callbacks), nor on the calling thread when nobody owns the context. Thread-safe. `release(context)`
 * runs after the callback, or when the source is destroyed unrun. */
void in_main_context_post(GMainContext *main_context, in_callback callback, void *context, GDestroyNotify release);

/* Queues `callback(context)` to run once on the thread that runs `main_context` (NULL: the default one) when
 * CLOCK_BOOTTIME reaches `deadline_us` (µs), at G_PRIORITY_HIGH. A timerfd wakes the loop at that microsecond;
 * GLib's own timeouts wake on whole milliseconds. Thread-safe. `release(context)` runs after the callback, when
 * the source is removed unrun, or at once if no timer could be made (then 0 is returned). Cancel with
 * in_main_context_cancel(main_context, id). */
guint in_main_context_post_at(GMainContext *main_context, gint64 deadline_us, in_callback callback, void *context,
                              GDestroyNotify release);

/* Removes the source `id` of `main_context` (NULL: the default one) if it has not run yet. Call it on the thread
 * that runs `main_context`: elsewhere the source could run and be freed between finding and removing it. */
void in_main_context_cancel(GMainContext *main_context, guint id);

/* Connects the "closed" signal of `notification` (the server closed it: expired, dismissed, or
 * CloseNotification). `reason` is notify_notification_get_closed_reason(). `release(context)` runs
 * when the handler is disconnected or the notification finalized. Returns the handler id. */
gulong in_notification_connect_closed(NotifyNotification *notification, in_closed_callback callback, void *context,
                                      GDestroyNotify release);

/* Watches the owner of org.freedesktop.Notifications on the session bus, as g_bus_watch_name() without auto-start
 * does (watching never starts a server), but without a timer left behind by its first question. Callbacks arrive
 * in the thread-default main context of the calling thread; the first one tells the current state (NULL owner if
 * none, or at once if there is no session bus). Stop on that thread with in_unwatch_notification_server();
 * `release(context)` runs then, and no callback after it. */
typedef struct in_server_watch in_server_watch;
in_server_watch *in_watch_notification_server(in_name_owner_callback callback, void *context, GDestroyNotify release);
void in_unwatch_notification_server(in_server_watch *watch);

/* Names the calling thread, as ps and top show it; pthread_setname_np needs _GNU_SOURCE. */
int in_set_current_thread_name(const char *name);


/* The server's id of `notification` (its "id" property): 0 until it was first shown. */
guint in_notification_get_id(NotifyNotification *notification);

/* Sets the "id" property, so that the next show replaces the server's notification of that id (one an
 * earlier process left on screen) instead of opening a new one. */
void in_notification_set_id(NotifyNotification *notification, guint id);
