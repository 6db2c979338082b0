/* A minimal org.freedesktop.Notifications server for tests, standing in for servers that dunst is not (mako has no
 * "actions" capability) or for a hung one.
 *
 *   fake-notification-server [--hang] [CAPABILITY...]
 *
 * Owns the name on the session bus, prints "ready" once it does, and then one line per call on stdout:
 *   Notify<TAB>app=APP<TAB>replaces=ID<TAB>id=ID<TAB>summary=S<TAB>body=B<TAB>actions=KEY,LABEL,...<TAB>hints=NAME,...
 *   CloseNotification<TAB>id=ID
 * GetCapabilities answers the capabilities given. With --hang, Notify is never answered.
 * Build: gcc -o fake-notification-server fake-notification-server.c $(pkg-config --cflags --libs gio-2.0) */

#include <gio/gio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char introspection_xml[] =
        "<node>"
        "  <interface name='org.freedesktop.Notifications'>"
        "    <method name='GetCapabilities'><arg type='as' direction='out'/></method>"
        "    <method name='Notify'>"
        "      <arg type='s' direction='in'/><arg type='u' direction='in'/><arg type='s' direction='in'/>"
        "      <arg type='s' direction='in'/><arg type='s' direction='in'/><arg type='as' direction='in'/>"
        "      <arg type='a{sv}' direction='in'/><arg type='i' direction='in'/><arg type='u' direction='out'/>"
        "    </method>"
        "    <method name='CloseNotification'><arg type='u' direction='in'/></method>"
        "    <method name='GetServerInformation'>"
        "      <arg type='s' direction='out'/><arg type='s' direction='out'/>"
        "      <arg type='s' direction='out'/><arg type='s' direction='out'/>"
        "    </method>"
        "    <signal name='NotificationClosed'><arg type='u'/><arg type='u'/></signal>"
        "    <signal name='ActionInvoked'><arg type='u'/><arg type='s'/></signal>"
        "  </interface>"
        "</node>";

static gboolean hang = FALSE;
static char **capabilities = NULL;
static guint32 last_id = 0;
static GSList *unanswered = NULL; /* With --hang: the invocations we keep, unanswered. */

/* Newlines and tabs would break the one-line records. */
static char *one_line(const char *s) {
        GString *out = g_string_new(NULL);

        for (; *s; s++) {
                if (*s == '\n')
                        g_string_append(out, "\\n");
                else if (*s == '\t')
                        g_string_append(out, "\\t");
                else
                        g_string_append_c(out, *s);
        }
        return g_string_free(out, FALSE);
}

static void notify(GVariant *parameters, GDBusMethodInvocation *invocation) {
        const char *app, *icon, *summary, *body;
        guint32 replaces, id;
        gint32 timeout;
        GVariantIter *actions_iter, *hints_iter;
        GString *actions = g_string_new(NULL), *hints = g_string_new(NULL);
        const char *s, *key;
        GVariant *value;
        char *summary_line, *body_line;

        g_variant_get(parameters, "(&su&s&s&sasa{sv}i)", &app, &replaces, &icon, &summary, &body, &actions_iter,
                      &hints_iter, &timeout);
        while (g_variant_iter_next(actions_iter, "&s", &s))
                g_string_append_printf(actions, "%s%s", actions->len ? "," : "", s);
        while (g_variant_iter_next(hints_iter, "{&sv}", &key, &value)) {
                g_string_append_printf(hints, "%s%s", hints->len ? "," : "", key);
                g_variant_unref(value);
        }
        g_variant_iter_free(actions_iter);
        g_variant_iter_free(hints_iter);

        id = replaces != 0 ? replaces : ++last_id;
        summary_line = one_line(summary);
        body_line = one_line(body);
        printf("Notify\tapp=%s\treplaces=%u\tid=%u\tsummary=%s\tbody=%s\tactions=%s\thints=%s\n", app, replaces, id,
               summary_line, body_line, actions->str, hints->str);
        fflush(stdout);
        g_free(summary_line);
        g_free(body_line);
        g_string_free(actions, TRUE);
        g_string_free(hints, TRUE);

        if (hang)
                unanswered = g_slist_prepend(unanswered, g_object_ref(invocation));
        else
                g_dbus_method_invocation_return_value(invocation, g_variant_new("(u)", id));
}

static void method_call(GDBusConnection *connection, const char *sender, const char *object_path,
                        const char *interface_name, const char *method_name, GVariant *parameters,
                        GDBusMethodInvocation *invocation, gpointer user_data) {
        (void) connection, (void) sender, (void) object_path, (void) interface_name, (void) user_data;

        if (strcmp(method_name, "GetCapabilities") == 0) {
                g_dbus_method_invocation_return_value(
                        invocation, g_variant_new("(^as)", capabilities ? capabilities : (char *[]) { NULL }));
        } else if (strcmp(method_name, "GetServerInformation") == 0) {
                g_dbus_method_invocation_return_value(invocation,
                                                      g_variant_new("(ssss)", "fake", "intervald tests", "1", "1.2"));
        } else if (strcmp(method_name, "Notify") == 0) {
                notify(parameters, invocation);
        } else if (strcmp(method_name, "CloseNotification") == 0) {
                guint32 id;

                g_variant_get(parameters, "(u)", &id);
                printf("CloseNotification\tid=%u\n", id);
                fflush(stdout);
                g_dbus_method_invocation_return_value(invocation, NULL);
        } else {
                g_dbus_method_invocation_return_dbus_error(invocation, "org.freedesktop.DBus.Error.UnknownMethod",
                                                           "Unknown method");
        }
}

static const GDBusInterfaceVTable vtable = { .method_call = method_call };

static void bus_acquired(GDBusConnection *connection, const char *name, gpointer user_data) {
        GDBusNodeInfo *info = user_data;
        GError *error = NULL;

        (void) name;
        if (!g_dbus_connection_register_object(connection, "/org/freedesktop/Notifications", info->interfaces[0],
                                               &vtable, NULL, NULL, &error)) {
                fprintf(stderr, "fake-notification-server: %s\n", error->message);
                exit(1);
        }
}

static void name_acquired(GDBusConnection *connection, const char *name, gpointer user_data) {
        (void) connection, (void) name, (void) user_data;
        printf("ready\n");
        fflush(stdout);
}

static void name_lost(GDBusConnection *connection, const char *name, gpointer user_data) {
        (void) connection, (void) user_data;
        fprintf(stderr, "fake-notification-server: could not own %s\n", name);
        exit(1);
}

int main(int argc, char **argv) {
        GDBusNodeInfo *info = g_dbus_node_info_new_for_xml(introspection_xml, NULL);
        GMainLoop *loop = g_main_loop_new(NULL, FALSE);
        int first = 1;

        if (argc > 1 && strcmp(argv[1], "--hang") == 0) {
                hang = TRUE;
                first = 2;
        }
        capabilities = argv + first;
        g_bus_own_name(G_BUS_TYPE_SESSION, "org.freedesktop.Notifications", G_BUS_NAME_OWNER_FLAGS_NONE,
                       bus_acquired, name_acquired, name_lost, info, NULL);
        g_main_loop_run(loop);
        return 0;
}
