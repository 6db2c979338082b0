#include "player_shims.h"
#include "bus_shims.h"

#include <errno.h>
#include <stdlib.h>

typedef struct ib_player_object {
        ib_player_handlers handlers;
        void *context;
        /* The slots (one per interface) that still hold the object. */
        unsigned holders;
} ib_player_object;

static int control(sd_bus_message *m, void *userdata, sd_bus_error *error, ib_player_control which) {
        ib_player_object *o = userdata;
        int r;

        r = o->handlers.control(o->context, which, error);
        if (r < 0)
                return r;

        return ib_reply_empty(m);
}

static int method_play(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return control(m, userdata, error, IB_PLAYER_PLAY);
}

static int method_pause(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return control(m, userdata, error, IB_PLAYER_PAUSE);
}

static int method_play_pause(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return control(m, userdata, error, IB_PLAYER_PLAY_PAUSE);
}

static int method_next(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return control(m, userdata, error, IB_PLAYER_NEXT);
}

static int method_previous(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return control(m, userdata, error, IB_PLAYER_PREVIOUS);
}

static int method_stop(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return control(m, userdata, error, IB_PLAYER_STOP);
}

/* Raise, Quit (CanRaise and CanQuit are false), Seek, SetPosition and OpenUri (CanSeek is false, no URI
 * schemes): spec §8 has them do nothing, and answer. */
static int method_nothing(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return ib_reply_empty(m);
}

static int property_get(
                sd_bus *bus,
                const char *path,
                const char *interface,
                const char *property,
                sd_bus_message *reply,
                void *userdata,
                sd_bus_error *error) {

        ib_player_object *o = userdata;

        return o->handlers.get_property(o->context, interface, property, reply, error);
}

static const sd_bus_vtable root_vtable[] = {
        SD_BUS_VTABLE_START(0),

        SD_BUS_PROPERTY("CanQuit", "b", property_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("CanRaise", "b", property_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("HasTrackList", "b", property_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Identity", "s", property_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("DesktopEntry", "s", property_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("SupportedUriSchemes", "as", property_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("SupportedMimeTypes", "as", property_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),

        SD_BUS_METHOD_WITH_ARGS("Raise", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_nothing, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Quit", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_nothing, SD_BUS_VTABLE_UNPRIVILEGED),

        SD_BUS_VTABLE_END
};

/* Position is read at call time and announced only by Seeked: no change signal (introspected with
 * org.freedesktop.DBus.Property.EmitsChangedSignal="false"), as the MPRIS specification says. */
static const sd_bus_vtable player_vtable[] = {
        SD_BUS_VTABLE_START(0),

        SD_BUS_PROPERTY("PlaybackStatus", "s", property_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Metadata", "a{sv}", property_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Position", "x", property_get, 0, 0),
        SD_BUS_PROPERTY("Rate", "d", property_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("MinimumRate", "d", property_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("MaximumRate", "d", property_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Volume", "d", property_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("CanControl", "b", property_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("CanPlay", "b", property_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("CanPause", "b", property_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("CanGoNext", "b", property_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("CanGoPrevious", "b", property_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("CanSeek", "b", property_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),

        SD_BUS_METHOD_WITH_ARGS("Next", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_next, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Previous", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_previous,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Pause", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_pause, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("PlayPause", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_play_pause,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Stop", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_stop, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Play", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_play, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Seek", SD_BUS_ARGS("x", Offset), SD_BUS_NO_RESULT, method_nothing,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetPosition",
                                SD_BUS_ARGS("o", TrackId, "x", Position),
                                SD_BUS_NO_RESULT,
                                method_nothing,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("OpenUri", SD_BUS_ARGS("s", Uri), SD_BUS_NO_RESULT, method_nothing,
                                SD_BUS_VTABLE_UNPRIVILEGED),

        SD_BUS_SIGNAL_WITH_ARGS("Seeked", SD_BUS_ARGS("x", Position), 0),

        SD_BUS_VTABLE_END
};

static void player_object_unhold(void *userdata) {
        ib_player_object *o = userdata;

        if (!o || --o->holders > 0)
                return;
        if (o->handlers.release)
                o->handlers.release(o->context);
        free(o);
}

int ib_player_add_object(
                sd_bus *bus,
                sd_bus_slot **ret_root_slot,
                sd_bus_slot **ret_player_slot,
                const char *path,
                const ib_player_handlers *handlers,
                void *context) {

        sd_bus_slot *root = NULL, *player = NULL;
        ib_player_object *o;
        int r;

        if (!bus || !ret_root_slot || !ret_player_slot || !path || !handlers)
                return -EINVAL;
        if (!handlers->control || !handlers->get_property)
                return -EINVAL;

        o = calloc(1, sizeof(*o));
        if (!o)
                return -ENOMEM;
        o->handlers = *handlers;
        o->context = context;

        r = ib_add_object_vtable(bus, &root, path, "org.mpris.MediaPlayer2", root_vtable, o, player_object_unhold);
        if (r < 0) {
                free(o);
                return r;
        }
        o->holders = 1;
        r = ib_add_object_vtable(bus, &player, path, "org.mpris.MediaPlayer2.Player", player_vtable, o,
                                 player_object_unhold);
        if (r < 0) {
                /* Keep `o` alive through the root slot's destroy callback, then free it here without release. */
                o->holders++;
                sd_bus_slot_unref(root);
                free(o);
                return r;
        }
        o->holders++;

        *ret_root_slot = root;
        *ret_player_slot = player;
        return 0;
}
