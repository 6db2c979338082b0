#pragma once

/* GIO (GLib 2.74), for IntervalWatch: the volume monitor and GFile, which gvfs serves for MTP watches. */
#include <gio/gio.h>
