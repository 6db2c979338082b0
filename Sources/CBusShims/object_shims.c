#include "object_shims.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* An exported interface: the vtable built from its table, the strings it points into, and the Swift side's
 * callbacks. Freed by the slot's destroy callback. */
typedef struct ib_object {
        ib_object_handlers handlers;
        void *context;
        sd_bus_vtable *vtable;
        /* Every string the vtable points to, copied from the table. */
        char **strings;
        size_t n_strings;
} ib_object;

static void object_free_storage(ib_object *o) {
        for (size_t i = 0; i < o->n_strings; i++)
                free(o->strings[i]);
        free(o->strings);
        free(o->vtable);
        free(o);
}

static void object_destroy(void *userdata) {
        ib_object *o = userdata;

        if (!o)
                return;
        if (o->handlers.release)
                o->handlers.release(o->context);
        object_free_storage(o);
}

/* Keeps a copy of `s` (NULL stays NULL) for as long as the object lives. */
static const char *object_keep(ib_object *o, const char *s, int *failed) {
        char *copy;

        if (!s)
                return NULL;
        copy = strdup(s);
        if (!copy) {
                *failed = 1;
                return NULL;
        }
        o->strings[o->n_strings++] = copy;
        return copy;
}

/* The sd-bus form of a names list: "a b " becomes "a\0b\0" (the copy's own NUL ends the list). */
static const char *object_keep_names(ib_object *o, const char *names, int *failed) {
        char *copy = (char *) object_keep(o, names ? names : "", failed);

        if (copy)
                for (char *p = copy; *p; p++)
                        if (*p == ' ')
                                *p = '\0';
        return copy;
}

static int method_call(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        ib_object *o = userdata;

        return o->handlers.method(o->context, m, error);
}

static int property_get(
                sd_bus *bus,
                const char *path,
                const char *interface,
                const char *property,
                sd_bus_message *reply,
                void *userdata,
                sd_bus_error *error) {

        ib_object *o = userdata;

        return o->handlers.get_property(o->context, property, reply, error);
}

static uint64_t property_flags(ib_property_change change) {
        switch (change) {
        case IB_PROPERTY_CONSTANT:
                return SD_BUS_VTABLE_PROPERTY_CONST;
        case IB_PROPERTY_EMITS_CHANGE:
                return SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE;
        default:
                /* Neither flag: introspected with EmitsChangedSignal="false". */
                return 0;
        }
}

/* Fills `o->vtable` from `members`, as the SD_BUS_VTABLE_START, SD_BUS_METHOD_WITH_ARGS, SD_BUS_PROPERTY and
 * SD_BUS_SIGNAL_WITH_ARGS macros would (sd-bus-vtable.h asks for the unused parts to be zero: calloc). */
static int object_build_vtable(ib_object *o, const ib_member *members, size_t count) {
        int failed = 0;

        o->vtable = calloc(count + 2, sizeof(sd_bus_vtable));
        o->strings = calloc(count * 4 + 1, sizeof(char *));
        if (!o->vtable || !o->strings)
                return -ENOMEM;

        o->vtable[0].type = _SD_BUS_VTABLE_START;
        o->vtable[0].x.start.element_size = sizeof(sd_bus_vtable);
        o->vtable[0].x.start.features = _SD_BUS_VTABLE_PARAM_NAMES;
        o->vtable[0].x.start.vtable_format_reference = &sd_bus_object_vtable_format;

        for (size_t i = 0; i < count; i++) {
                const ib_member *member = &members[i];
                sd_bus_vtable *v = &o->vtable[i + 1];

                if (!member->name || !member->signature)
                        return -EINVAL;
                switch (member->kind) {
                case IB_MEMBER_METHOD:
                        v->type = _SD_BUS_VTABLE_METHOD;
                        v->flags = SD_BUS_VTABLE_UNPRIVILEGED;
                        v->x.method.member = object_keep(o, member->name, &failed);
                        v->x.method.signature = object_keep(o, member->signature, &failed);
                        v->x.method.result = object_keep(o, member->result ? member->result : "", &failed);
                        v->x.method.names = object_keep_names(o, member->names, &failed);
                        v->x.method.handler = method_call;
                        break;
                case IB_MEMBER_PROPERTY:
                        v->type = _SD_BUS_VTABLE_PROPERTY;
                        v->flags = property_flags(member->change);
                        v->x.property.member = object_keep(o, member->name, &failed);
                        v->x.property.signature = object_keep(o, member->signature, &failed);
                        v->x.property.get = property_get;
                        break;
                case IB_MEMBER_SIGNAL:
                        v->type = _SD_BUS_VTABLE_SIGNAL;
                        v->x.signal.member = object_keep(o, member->name, &failed);
                        v->x.signal.signature = object_keep(o, member->signature, &failed);
                        v->x.signal.names = object_keep_names(o, member->names, &failed);
                        break;
                default:
                        return -EINVAL;
                }
                if (failed)
                        return -ENOMEM;
        }

        o->vtable[count + 1].type = _SD_BUS_VTABLE_END;
        return 0;
}

int ib_object_add(
                sd_bus *bus,
                sd_bus_slot **ret_slot,
                const char *path,
                const char *interface,
                const ib_member *members,
                size_t count,
                const ib_object_handlers *handlers,
                void *context) {

        sd_bus_slot *slot = NULL;
        ib_object *o;
        int r;

        if (!bus || !ret_slot || !path || !interface || (!members && count > 0) || !handlers)
                return -EINVAL;
        if (!handlers->method || !handlers->get_property)
                return -EINVAL;

        o = calloc(1, sizeof(*o));
        if (!o)
                return -ENOMEM;
        o->handlers = *handlers;
        o->context = context;

        r = object_build_vtable(o, members, count);
        if (r < 0)
                goto fail;

        r = sd_bus_add_object_vtable(bus, &slot, path, interface, o->vtable, o);
        if (r < 0)
                goto fail;

        r = sd_bus_slot_set_destroy_callback(slot, object_destroy);
        if (r < 0) {
                sd_bus_slot_unref(slot); /* No destroy callback yet: `context` is left to the caller. */
                goto fail;
        }

        *ret_slot = slot;
        return 0;

fail:
        object_free_storage(o);
        return r;
}
