#include "bus_shims.h"

#include <errno.h>
#include <stdlib.h>

typedef struct ib_timer_object {
        ib_timer_handlers handlers;
        void *context;
} ib_timer_object;

static int method_start(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        ib_timer_object *o = userdata;
        const char *plan, *origin;
        int replace, r;

        r = sd_bus_message_read(m, "ssb", &plan, &origin, &replace);
        if (r < 0)
                return r;

        r = o->handlers.start(o->context, m, plan, origin, replace, error);
        if (r < 0)
                return r;
        if (r > 0)
                return 1; /* Answered later by the Swift side. */

        return sd_bus_reply_method_return(m, NULL);
}

int ib_reply_empty(sd_bus_message *call) {
        return sd_bus_reply_method_return(call, NULL);
}

int ib_reply_error(sd_bus_message *call, const char *name, const char *message) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        (void) sd_bus_error_set(&error, name, message); /* Returns the errno the name maps to: not a failure. */
        r = sd_bus_reply_method_error(call, &error);
        sd_bus_error_free(&error);
        return r;
}

static int run_command(sd_bus_message *m, void *userdata, sd_bus_error *error, ib_timer_command command) {
        ib_timer_object *o = userdata;
        int r;

        r = o->handlers.command(o->context, command, error);
        if (r < 0)
                return r;

        return sd_bus_reply_method_return(m, NULL);
}

static int method_stop(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return run_command(m, userdata, error, IB_TIMER_COMMAND_STOP);
}

static int method_pause(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return run_command(m, userdata, error, IB_TIMER_COMMAND_PAUSE);
}

static int method_resume(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return run_command(m, userdata, error, IB_TIMER_COMMAND_RESUME);
}

static int method_skip(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return run_command(m, userdata, error, IB_TIMER_COMMAND_SKIP);
}

static int property_get(
                sd_bus *bus,
                const char *path,
                const char *interface,
                const char *property,
                sd_bus_message *reply,
                void *userdata,
                sd_bus_error *error) {

        ib_timer_object *o = userdata;

        return o->handlers.get_property(o->context, property, reply, error);
}

/* Properties without SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE (Elapsed, SegmentRemaining) are introspected
 * with org.freedesktop.DBus.Property.EmitsChangedSignal="false": they are read-time snapshots. */
static const sd_bus_vtable timer_vtable[] = {
        SD_BUS_VTABLE_START(0),

        SD_BUS_PROPERTY("State", "s", property_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("PlanName", "s", property_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("PlanDuration", "t", property_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("SegmentIndex", "u", property_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("SegmentCount", "u", property_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("SegmentKind", "s", property_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("SegmentLabel", "s", property_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("SegmentDuration", "t", property_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("NextLabel", "s", property_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Elapsed", "t", property_get, 0, 0),
        SD_BUS_PROPERTY("SegmentRemaining", "t", property_get, 0, 0),

        SD_BUS_METHOD_WITH_ARGS("Start",
                                SD_BUS_ARGS("s", plan, "s", origin, "b", replace),
                                SD_BUS_NO_RESULT,
                                method_start,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Stop", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_stop, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Pause", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_pause, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Resume", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_resume, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Skip", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_skip, SD_BUS_VTABLE_UNPRIVILEGED),

        SD_BUS_SIGNAL_WITH_ARGS("SegmentStarted",
                                SD_BUS_ARGS("u", index, "s", kind, "s", label, "t", duration),
                                0),
        SD_BUS_SIGNAL_WITH_ARGS("Finished", SD_BUS_ARGS("s", plan_name), 0),
        SD_BUS_SIGNAL_WITH_ARGS("Stopped", SD_BUS_ARGS("s", reason), 0),

        SD_BUS_VTABLE_END
};

int ib_add_object_vtable(
                sd_bus *bus,
                sd_bus_slot **ret_slot,
                const char *path,
                const char *interface,
                const sd_bus_vtable *vtable,
                void *userdata,
                sd_bus_destroy_t destroy) {

        sd_bus_slot *slot = NULL;
        int r;

        r = sd_bus_add_object_vtable(bus, &slot, path, interface, vtable, userdata);
        if (r < 0)
                return r;

        r = sd_bus_slot_set_destroy_callback(slot, destroy);
        if (r < 0) {
                sd_bus_slot_unref(slot); /* No destroy callback yet: `userdata` is left to the caller. */
                return r;
        }

        *ret_slot = slot;
        return 0;
}

static void timer_object_free(void *userdata) {
        ib_timer_object *o = userdata;

        if (!o)
                return;
        if (o->handlers.release)
                o->handlers.release(o->context);
        free(o);
}

int ib_timer_add_object(
                sd_bus *bus,
                sd_bus_slot **ret_slot,
                const char *path,
                const char *interface,
                const ib_timer_handlers *handlers,
                void *context) {

        sd_bus_slot *slot = NULL;
        ib_timer_object *o;
        int r;

        if (!bus || !ret_slot || !path || !interface || !handlers)
                return -EINVAL;
        if (!handlers->start || !handlers->command || !handlers->get_property)
                return -EINVAL;

        o = calloc(1, sizeof(*o));
        if (!o)
                return -ENOMEM;
        o->handlers = *handlers;
        o->context = context;

        r = ib_add_object_vtable(bus, &slot, path, interface, timer_vtable, o, timer_object_free);
        if (r < 0) {
                free(o);
                return r;
        }

        *ret_slot = slot;
        return 0;
}
