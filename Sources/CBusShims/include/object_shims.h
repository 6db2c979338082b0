#pragma once

/* Exports a D-Bus interface described by a table, for every object intervald serves. The SD_BUS_* vtable macros do
 * not import into Swift, so the vtable is built here at run time from `ib_member` rows (the Swift side's
 * BusInterface); every method call and every property read goes to one callback each. sd-bus checks each call's
 * signature against the vtable and answers a wrong one with org.freedesktop.DBus.Error.InvalidArgs before it gets
 * here. */

#include <stddef.h>
#include <systemd/sd-bus.h>

typedef enum ib_member_kind {
        IB_MEMBER_METHOD,
        IB_MEMBER_PROPERTY,
        IB_MEMBER_SIGNAL,
} ib_member_kind;

/* How a property announces a change (SD_BUS_VTABLE_PROPERTY_CONST, _EMITS_CHANGE, or neither). */
typedef enum ib_property_change {
        IB_PROPERTY_CONSTANT,
        IB_PROPERTY_EMITS_CHANGE,
        IB_PROPERTY_READ_TIME,
} ib_property_change;

/* One row of an interface's table. The strings are copied by ib_object_add(). */
typedef struct ib_member {
        ib_member_kind kind;
        const char *name;
        /* A method's arguments, a property's type, a signal's arguments. */
        const char *signature;
        /* A method's results; NULL for the others. */
        const char *result;
        /* The argument names, then (for a method) the result names, each followed by a space:
         * "plan origin replace ". */
        const char *names;
        ib_property_change change;
} ib_member;

/* Callbacks into the Swift side; `context` is the pointer given to ib_object_add(). */
typedef struct ib_object_handlers {
        /* `call` (positioned at its first argument) is a call of one of the table's methods. Returns 1: the Swift side
         * answers it (now, or later with a reference of its own); or a negative errno after filling `error`, which
         * sd-bus answers with. */
        int (*method)(void *context, sd_bus_message *call, sd_bus_error *error);
        /* Appends the value of `property` (of the type the table declares) to `reply`. Returns >= 0, or a negative
         * errno after filling `error`. */
        int (*get_property)(void *context, const char *property, sd_bus_message *reply, sd_bus_error *error);
        /* Called once, when the interface is removed from the bus (its slot freed); releases `context`. */
        void (*release)(void *context);
} ib_object_handlers;

/* Exports `interface` at `path` with the `count` rows of `members`. `*handlers` is copied. On success `*ret_slot`
 * owns the interface: sd_bus_slot_unref() removes it and calls handlers->release(context). On failure returns a
 * negative errno, keeps nothing and does not call release. Wraps sd_bus_add_object_vtable() and
 * sd_bus_slot_set_destroy_callback(). */
int ib_object_add(sd_bus *bus, sd_bus_slot **ret_slot, const char *path, const char *interface,
                  const ib_member *members, size_t count, const ib_object_handlers *handlers, void *context);
