#pragma once

/* GTK 4 and libadwaita 1.2 (Debian 12), for the Interval Timer window (docs/reference.md §10). */
#include <gtk/gtk.h>
#include <adwaita.h>
