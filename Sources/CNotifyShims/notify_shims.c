#define _GNU_SOURCE
#include <glib-unix.h>
#include <pthread.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "notify_shims.h"

/* A closure posted from another thread is handed over through the GMainContext's lock. GLib is not built with
 * ThreadSanitizer, which therefore does not see that lock: under scripts/test-sanitized the hand-over is announced
 * to it, or it reports the closure's fields as a race. Elsewhere these are no-ops. */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#include <sanitizer/tsan_interface.h>
#define IN_HANDED_OVER(object) __tsan_release(object)
#define IN_TAKEN_OVER(object) __tsan_acquire(object)
#endif
#endif
#ifndef IN_HANDED_OVER
#define IN_HANDED_OVER(object) ((void) (object))
#define IN_TAKEN_OVER(object) ((void) (object))
#endif

int in_set_current_thread_name(const char *name) {
        return pthread_setname_np(pthread_self(), name);
}

/* The notification server's well-known name (freedesktop notification specification). */
#define IN_NOTIFICATIONS_NAME "org.freedesktop.Notifications"

/* One callback with its context, owned by whichever GLib object invokes it. */
typedef struct in_closure {
        union {
                in_callback plain;
                in_closed_callback closed;
                in_name_owner_callback name_owner;
        } callback;
        void *context;
        GDestroyNotify release;
} in_closure;

static in_closure *in_closure_new(void *context, GDestroyNotify release) {
        in_closure *c = g_new0(in_closure, 1);
        c->context = context;
        c->release = release;
        return c;
}

static void in_closure_free(gpointer data) {
        in_closure *c = data;

        if (c->release)
                c->release(c->context);
        g_free(c);
}

/* GClosureNotify has an extra argument; adapt it to in_closure_free(). */
static void in_closure_free_notify(gpointer data, GClosure *closure) {
        (void) closure;
        in_closure_free(data);
}

static gboolean in_post_dispatch(gpointer data) {
        in_closure *c = data;

        IN_TAKEN_OVER(c);
        c->callback.plain(c->context);
        return G_SOURCE_REMOVE;
}

void in_main_context_post(GMainContext *main_context, in_callback callback, void *context, GDestroyNotify release) {
        in_closure *c = in_closure_new(context, release);
        GSource *source;

        c->callback.plain = callback;
        source = g_idle_source_new();
        g_source_set_priority(source, G_PRIORITY_DEFAULT);
        g_source_set_callback(source, in_post_dispatch, c, in_closure_free);
        g_source_set_static_name(source, "[intervald] in_main_context_post");
        IN_HANDED_OVER(c);
        g_source_attach(source, main_context);
        g_source_unref(source);
}

/* A one-shot deadline: its closure and the timerfd that wakes the loop. */
typedef struct in_deadline {
        in_callback callback;
        void *context;
        GDestroyNotify release;
        int fd;
} in_deadline;

static gboolean in_deadline_dispatch(gint fd, GIOCondition condition, gpointer data) {
        in_deadline *d = data;

        (void) fd;
        (void) condition;
        d->callback(d->context);
        return G_SOURCE_REMOVE;
}

static void in_deadline_free(gpointer data) {
        in_deadline *d = data;

        if (d->release)
                d->release(d->context);
        close(d->fd);
        g_free(d);
}

guint in_main_context_post_at(GMainContext *main_context, gint64 deadline_us, in_callback callback, void *context,
                              GDestroyNotify release) {
        struct itimerspec when = { 0 };
        in_deadline *d;
        GSource *source;
        guint id;
        int fd;

        fd = timerfd_create(CLOCK_BOOTTIME, TFD_NONBLOCK | TFD_CLOEXEC);
        if (fd < 0) {
                if (release)
                        release(context);
                return 0;
        }
        /* An all-zero it_value would disarm the timer: a deadline at or before the epoch of the clock is due now. */
        if (deadline_us < 1)
                deadline_us = 1;
        when.it_value.tv_sec = deadline_us / G_USEC_PER_SEC;
        when.it_value.tv_nsec = (deadline_us % G_USEC_PER_SEC) * 1000;
        if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &when, NULL) < 0) {
                close(fd);
                if (release)
                        release(context);
                return 0;
        }
        d = g_new0(in_deadline, 1);
        d->callback = callback;
        d->context = context;
        d->release = release;
        d->fd = fd;
        source = g_unix_fd_source_new(fd, G_IO_IN);
        g_source_set_priority(source, G_PRIORITY_HIGH);
        g_source_set_callback(source, G_SOURCE_FUNC(in_deadline_dispatch), d, in_deadline_free);
        g_source_set_static_name(source, "[intervald] in_main_context_post_at");
        id = g_source_attach(source, main_context);
        g_source_unref(source);
        return id;
}

void in_main_context_cancel(GMainContext *main_context, guint id) {
        GSource *source = g_main_context_find_source_by_id(main_context, id);

        if (source)
                g_source_destroy(source);
}

static void in_closed_trampoline(NotifyNotification *notification, gpointer data) {
        in_closure *c = data;

        c->callback.closed(c->context, notify_notification_get_closed_reason(notification));
}

gulong in_notification_connect_closed(NotifyNotification *notification, in_closed_callback callback, void *context,
                                      GDestroyNotify release) {
        in_closure *c = in_closure_new(context, release);

        c->callback.closed = callback;
        return g_signal_connect_data(notification, "closed", G_CALLBACK(in_closed_trampoline), c,
                                     in_closure_free_notify, 0);
}

/* A watch of the notification server's name. Every callback of it runs on the thread whose thread-default main
 * context was current when it was made, so the count of references needs no atomics. */
struct in_server_watch {
        int references;
        GDBusConnection *connection;
        guint subscription;
        GCancellable *cancellable;
        /* NULL once unwatched: nothing is reported after in_unwatch_notification_server(). */
        in_closure *closure;
        /* The GetNameOwner reply has been reported: changes are reported from then on. */
        gboolean answered;
};

static in_server_watch *in_server_watch_ref(in_server_watch *watch) {
        watch->references++;
        return watch;
}

static void in_server_watch_unref(gpointer data) {
        in_server_watch *watch = data;

        if (--watch->references > 0)
                return;
        g_clear_object(&watch->cancellable);
        g_clear_object(&watch->connection);
        g_free(watch);
}

static void in_server_watch_report(in_server_watch *watch, const char *owner) {
        if (watch->closure)
                watch->closure->callback.name_owner(watch->closure->context, owner);
}

static void in_server_owner_changed(GDBusConnection *connection, const gchar *sender, const gchar *path,
                                    const gchar *interface, const gchar *signal, GVariant *parameters, gpointer data) {
        in_server_watch *watch = data;
        const gchar *name, *old_owner, *new_owner;

        (void) connection;
        (void) sender;
        (void) path;
        (void) interface;
        (void) signal;
        if (!watch->answered || !g_variant_is_of_type(parameters, G_VARIANT_TYPE("(sss)")))
                return;
        g_variant_get(parameters, "(&s&s&s)", &name, &old_owner, &new_owner);
        in_server_watch_report(watch, *new_owner ? new_owner : NULL);
}

static void in_server_owner_answered(GObject *source, GAsyncResult *result, gpointer data) {
        in_server_watch *watch = data;
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, &error);

        if (!g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
                const gchar *owner = NULL;

                if (reply)
                        g_variant_get(reply, "(&s)", &owner);
                watch->answered = TRUE;
                in_server_watch_report(watch, owner);
        }
        in_server_watch_unref(watch);
}

in_server_watch *in_watch_notification_server(in_name_owner_callback callback, void *context,
                                              GDestroyNotify release) {
        in_server_watch *watch = g_new0(in_server_watch, 1);
        g_autoptr(GError) error = NULL;

        watch->references = 1;
        watch->closure = in_closure_new(context, release);
        watch->closure->callback.name_owner = callback;
        watch->connection = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &error);
        if (!watch->connection) {
                watch->answered = TRUE;
                in_server_watch_report(watch, NULL);
                return watch;
        }
        /* Subscribed before asking, so that no change between the answer and the subscription is missed. */
        watch->subscription = g_dbus_connection_signal_subscribe(
                watch->connection, "org.freedesktop.DBus", "org.freedesktop.DBus", "NameOwnerChanged",
                "/org/freedesktop/DBus", IN_NOTIFICATIONS_NAME, G_DBUS_SIGNAL_FLAGS_NONE, in_server_owner_changed,
                in_server_watch_ref(watch), in_server_watch_unref);
        watch->cancellable = g_cancellable_new();
        /* G_MAXINT: no timeout. The bus always answers, and a timeout would leave a 25-s timer in the main context
         * that wakes the idle thread once more after the answer (g_bus_watch_name() asks with the default). */
        g_dbus_connection_call(watch->connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                               "org.freedesktop.DBus", "GetNameOwner", g_variant_new("(s)", IN_NOTIFICATIONS_NAME),
                               G_VARIANT_TYPE("(s)"), G_DBUS_CALL_FLAGS_NONE, G_MAXINT, watch->cancellable,
                               in_server_owner_answered, in_server_watch_ref(watch));
        return watch;
}

void in_unwatch_notification_server(in_server_watch *watch) {
        if (watch->cancellable)
                g_cancellable_cancel(watch->cancellable);
        if (watch->subscription)
                g_dbus_connection_signal_unsubscribe(watch->connection, watch->subscription);
        g_clear_pointer(&watch->closure, in_closure_free);
        in_server_watch_unref(watch);
}

guint in_notification_get_id(NotifyNotification *notification) {
        gint id = 0;

        g_object_get(notification, "id", &id, NULL);
        return id > 0 ? (guint) id : 0;
}

void in_notification_set_id(NotifyNotification *notification, guint id) {
        g_object_set(notification, "id", (gint) id, NULL);
}
