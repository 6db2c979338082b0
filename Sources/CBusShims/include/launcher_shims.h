#pragma once

/* Starting a workout from the desktop (spec §8): org.freedesktop.Application (a D-Bus-activatable desktop entry),
 * org.gnome.Shell.SearchProvider2 (GNOME Shell's overview search) and org.kde.krunner1 (KRunner), as sd-bus
 * vtables in C (the SD_BUS_* macros do not import into Swift). sd-bus checks each call's signature against the
 * vtable and answers a wrong one with org.freedesktop.DBus.Error.InvalidArgs; the Swift side reads the arguments
 * and answers. */

#include <systemd/sd-bus.h>

/* The interfaces, each exported by its own ib_launcher_add_object() call. */
typedef enum ib_launcher_interface {
        IB_LAUNCHER_APPLICATION,
        IB_LAUNCHER_SEARCH_PROVIDER,
        IB_LAUNCHER_RUNNER,
} ib_launcher_interface;

/* Every method of the three interfaces. */
typedef enum ib_launcher_method {
        IB_APPLICATION_ACTIVATE,                /* Activate(a{sv} platform_data) */
        IB_APPLICATION_OPEN,                    /* Open(as uris, a{sv} platform_data) */
        IB_APPLICATION_ACTIVATE_ACTION,         /* ActivateAction(s name, av parameter, a{sv} platform_data) */
        IB_SEARCH_GET_INITIAL_RESULT_SET,       /* GetInitialResultSet(as terms) -> as */
        IB_SEARCH_GET_SUBSEARCH_RESULT_SET,     /* GetSubsearchResultSet(as previous, as terms) -> as */
        IB_SEARCH_GET_RESULT_METAS,             /* GetResultMetas(as identifiers) -> aa{sv} */
        IB_SEARCH_ACTIVATE_RESULT,              /* ActivateResult(s identifier, as terms, u timestamp) */
        IB_SEARCH_LAUNCH_SEARCH,                /* LaunchSearch(as terms, u timestamp) */
        IB_RUNNER_ACTIONS,                      /* Actions() -> a(sss) */
        IB_RUNNER_MATCH,                        /* Match(s query) -> a(sssida{sv}) */
        IB_RUNNER_RUN,                          /* Run(s match_id, s action_id) */
        IB_RUNNER_TEARDOWN,                     /* Teardown() */
} ib_launcher_method;

/* Callbacks into the Swift side; `context` is the pointer given to ib_launcher_add_object(). */
typedef struct ib_launcher_handlers {
        /* `method` was called with `call`, positioned at its first argument. Returns 1 when the Swift side took a
         * reference of `call` and answers it (now or later) itself, or a negative errno after filling `error`. */
        int (*call)(void *context, ib_launcher_method method, sd_bus_message *call, sd_bus_error *error);
        /* Called once, when the interface is removed from the bus; releases `context`. */
        void (*release)(void *context);
} ib_launcher_handlers;

/* Exports `interface` at `path`. `*handlers` is copied. On success `*ret_slot` owns the interface: unref'ing it
 * removes the interface and calls handlers->release(context). On failure returns a negative errno and does not
 * call release. Wraps sd_bus_add_object_vtable(). */
int ib_launcher_add_object(
                sd_bus *bus,
                sd_bus_slot **ret_slot,
                const char *path,
                ib_launcher_interface interface,
                const ib_launcher_handlers *handlers,
                void *context);
