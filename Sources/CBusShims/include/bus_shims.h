#pragma once

/* The org.intervald.Timer1 object (spec §3) as an sd-bus vtable, in C because the SD_BUS_* vtable
 * macros do not import into Swift. The handlers parse the arguments and forward to function
 * pointers that the Swift side registers, so this target has no undefined symbols of its own. */

#include <systemd/sd-bus.h>

/* The argument-less methods of org.intervald.Timer1. */
typedef enum ib_timer_command {
        IB_TIMER_COMMAND_STOP,
        IB_TIMER_COMMAND_PAUSE,
        IB_TIMER_COMMAND_RESUME,
        IB_TIMER_COMMAND_SKIP,
} ib_timer_command;

/* Callbacks into the Swift side. Each returns >= 0 on success, or a negative errno after filling
 * `error` with sd_bus_error_set() (sd-bus then answers the call with that error). `context` is the
 * pointer given to ib_timer_add_object(). */
typedef struct ib_timer_handlers {
        int (*start)(void *context, const char *plan, const char *origin, int replace, sd_bus_error *error);
        int (*command)(void *context, ib_timer_command command, sd_bus_error *error);
        /* Appends the value of `property` (of the signature the vtable declares) to `reply`. */
        int (*get_property)(void *context, const char *property, sd_bus_message *reply, sd_bus_error *error);
        /* Called once when the object is removed from the bus (its slot freed); releases `context`. */
        void (*release)(void *context);
} ib_timer_handlers;

/* Exports the org.intervald.Timer1 vtable at `path` under `interface` (the names of BusNames in
 * IntervalCore). `*handlers` is copied. On success `*ret_slot` owns the object: sd_bus_slot_unref()
 * removes it and calls handlers->release(context). On failure returns a negative errno and does not
 * call release. Wraps sd_bus_add_object_vtable(). */
int ib_timer_add_object(
                sd_bus *bus,
                sd_bus_slot **ret_slot,
                const char *path,
                const char *interface,
                const ib_timer_handlers *handlers,
                void *context);
