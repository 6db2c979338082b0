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
        /* Start(s plan, s origin, b replace). Returns 0 to have the call answered now, 1 when the Swift side
         * took a reference of `call` and answers it later with ib_reply_empty() or ib_reply_error() (the plan
         * is parsed off the queue that times cues). */
        int (*start)(void *context, sd_bus_message *call, const char *plan, const char *origin, int replace,
                     sd_bus_error *error);
        int (*command)(void *context, ib_timer_command command, sd_bus_error *error);
        /* Appends the value of `property` (of the signature the vtable declares) to `reply`. */
        int (*get_property)(void *context, const char *property, sd_bus_message *reply, sd_bus_error *error);
        /* Called once when the object is removed from the bus (its slot freed); releases `context`. */
        void (*release)(void *context);
} ib_timer_handlers;

/* Adds `vtable` at `path` under `interface` with `userdata`, and `destroy` as the slot's destroy callback, which
 * runs once the slot is unref'd. On failure nothing stays added, `destroy` is not called and `userdata` is the
 * caller's. The corresponding C functions are sd_bus_add_object_vtable() and sd_bus_slot_set_destroy_callback(). */
int ib_add_object_vtable(
                sd_bus *bus,
                sd_bus_slot **ret_slot,
                const char *path,
                const char *interface,
                const sd_bus_vtable *vtable,
                void *userdata,
                sd_bus_destroy_t destroy);

/* Answers `call` with an empty method return. Wraps sd_bus_reply_method_return(), which is variadic. */
int ib_reply_empty(sd_bus_message *call);

/* Answers `call` with the D-Bus error `name` and `message`. Wraps sd_bus_reply_method_error(). */
int ib_reply_error(sd_bus_message *call, const char *name, const char *message);

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
