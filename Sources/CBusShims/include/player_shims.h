#pragma once

/* The MPRIS player (spec §8): org.mpris.MediaPlayer2 and org.mpris.MediaPlayer2.Player at
 * /org/mpris/MediaPlayer2, as sd-bus vtables in C (the SD_BUS_* macros do not import into Swift).
 * Methods forward to function pointers the Swift side registers; sd-bus answers calls whose
 * arguments have the wrong types with org.freedesktop.DBus.Error.InvalidArgs before they get here. */

#include <systemd/sd-bus.h>

/* The player's methods that act on the workout. */
typedef enum ib_player_control {
        IB_PLAYER_PLAY,
        IB_PLAYER_PAUSE,
        IB_PLAYER_PLAY_PAUSE,
        IB_PLAYER_NEXT,
        IB_PLAYER_PREVIOUS,
        IB_PLAYER_STOP,
} ib_player_control;

/* Callbacks into the Swift side; `context` is the pointer given to ib_player_add_object(). */
typedef struct ib_player_handlers {
        /* A control method was called. Returns >= 0, or a negative errno after filling `error`. */
        int (*control)(void *context, ib_player_control control, sd_bus_error *error);
        /* Appends the value of `interface`.`property` (of the signature the vtable declares) to `reply`. */
        int (*get_property)(void *context, const char *interface, const char *property, sd_bus_message *reply,
                            sd_bus_error *error);
        /* Called once, when both interfaces are removed from the bus; releases `context`. */
        void (*release)(void *context);
} ib_player_handlers;

/* Exports both interfaces at `path` (MediaPlayer.objectPath in IntervalCore). `*handlers` is copied.
 * On success `*ret_root_slot` and `*ret_player_slot` own the two vtables: once both are unref'd,
 * handlers->release(context) is called. On failure returns a negative errno and does not call release.
 * Wraps sd_bus_add_object_vtable(). */
int ib_player_add_object(
                sd_bus *bus,
                sd_bus_slot **ret_root_slot,
                sd_bus_slot **ret_player_slot,
                const char *path,
                const ib_player_handlers *handlers,
                void *context);
