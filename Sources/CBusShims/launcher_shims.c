#include "launcher_shims.h"
#include "bus_shims.h"

#include <errno.h>
#include <stdlib.h>

typedef struct ib_launcher_object {
        ib_launcher_handlers handlers;
        void *context;
} ib_launcher_object;

static int forward(sd_bus_message *m, void *userdata, sd_bus_error *error, ib_launcher_method method) {
        ib_launcher_object *o = userdata;

        return o->handlers.call(o->context, method, m, error);
}

#define IB_FORWARD(function, method)                                                        \
        static int function(sd_bus_message *m, void *userdata, sd_bus_error *error) {       \
                return forward(m, userdata, error, method);                                 \
        }

IB_FORWARD(method_activate, IB_APPLICATION_ACTIVATE)
IB_FORWARD(method_open, IB_APPLICATION_OPEN)
IB_FORWARD(method_activate_action, IB_APPLICATION_ACTIVATE_ACTION)
IB_FORWARD(method_initial_result_set, IB_SEARCH_GET_INITIAL_RESULT_SET)
IB_FORWARD(method_subsearch_result_set, IB_SEARCH_GET_SUBSEARCH_RESULT_SET)
IB_FORWARD(method_result_metas, IB_SEARCH_GET_RESULT_METAS)
IB_FORWARD(method_activate_result, IB_SEARCH_ACTIVATE_RESULT)
IB_FORWARD(method_launch_search, IB_SEARCH_LAUNCH_SEARCH)
IB_FORWARD(method_actions, IB_RUNNER_ACTIONS)
IB_FORWARD(method_match, IB_RUNNER_MATCH)
IB_FORWARD(method_run, IB_RUNNER_RUN)
IB_FORWARD(method_teardown, IB_RUNNER_TEARDOWN)

/* The Desktop Entry Specification's "D-Bus Activation" interface. */
static const sd_bus_vtable application_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_ARGS("Activate", SD_BUS_ARGS("a{sv}", platform_data), SD_BUS_NO_RESULT, method_activate,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Open",
                                SD_BUS_ARGS("as", uris, "a{sv}", platform_data),
                                SD_BUS_NO_RESULT,
                                method_open,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ActivateAction",
                                SD_BUS_ARGS("s", action_name, "av", parameter, "a{sv}", platform_data),
                                SD_BUS_NO_RESULT,
                                method_activate_action,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END
};

/* GNOME Shell's search provider interface, version 2 (gnome-shell's data/dbus-interfaces). */
static const sd_bus_vtable search_provider_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_ARGS("GetInitialResultSet",
                                SD_BUS_ARGS("as", terms),
                                SD_BUS_RESULT("as", results),
                                method_initial_result_set,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetSubsearchResultSet",
                                SD_BUS_ARGS("as", previous_results, "as", terms),
                                SD_BUS_RESULT("as", results),
                                method_subsearch_result_set,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetResultMetas",
                                SD_BUS_ARGS("as", identifiers),
                                SD_BUS_RESULT("aa{sv}", metas),
                                method_result_metas,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ActivateResult",
                                SD_BUS_ARGS("s", identifier, "as", terms, "u", timestamp),
                                SD_BUS_NO_RESULT,
                                method_activate_result,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("LaunchSearch",
                                SD_BUS_ARGS("as", terms, "u", timestamp),
                                SD_BUS_NO_RESULT,
                                method_launch_search,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END
};

/* KRunner's D-Bus runner interface (krunner's src/data/org.kde.krunner1.xml). */
static const sd_bus_vtable runner_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_ARGS("Actions", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(sss)", actions), method_actions,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Match",
                                SD_BUS_ARGS("s", query),
                                SD_BUS_RESULT("a(sssida{sv})", matches),
                                method_match,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Run",
                                SD_BUS_ARGS("s", match_id, "s", action_id),
                                SD_BUS_NO_RESULT,
                                method_run,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Teardown", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_teardown,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END
};

static void launcher_object_free(void *userdata) {
        ib_launcher_object *o = userdata;

        if (!o)
                return;
        if (o->handlers.release)
                o->handlers.release(o->context);
        free(o);
}

int ib_launcher_add_object(
                sd_bus *bus,
                sd_bus_slot **ret_slot,
                const char *path,
                ib_launcher_interface interface,
                const ib_launcher_handlers *handlers,
                void *context) {

        const sd_bus_vtable *vtable;
        const char *name;
        ib_launcher_object *o;
        sd_bus_slot *slot = NULL;
        int r;

        if (!bus || !ret_slot || !path || !handlers || !handlers->call)
                return -EINVAL;

        switch (interface) {
        case IB_LAUNCHER_APPLICATION:
                name = "org.freedesktop.Application";
                vtable = application_vtable;
                break;
        case IB_LAUNCHER_SEARCH_PROVIDER:
                name = "org.gnome.Shell.SearchProvider2";
                vtable = search_provider_vtable;
                break;
        case IB_LAUNCHER_RUNNER:
                name = "org.kde.krunner1";
                vtable = runner_vtable;
                break;
        default:
                return -EINVAL;
        }

        o = calloc(1, sizeof(*o));
        if (!o)
                return -ENOMEM;
        o->handlers = *handlers;
        o->context = context;

        r = ib_add_object_vtable(bus, &slot, path, name, vtable, o, launcher_object_free);
        if (r < 0) {
                free(o);
                return r;
        }

        *ret_slot = slot;
        return 0;
}
