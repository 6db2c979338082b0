#pragma once

/* libnotify (0.8) and the GLib/GObject/GIO it is built on, for IntervalNotify. */
#include <glib.h>
#include <glib-object.h>
#include <gio/gio.h>
#include <libnotify/notify.h>
