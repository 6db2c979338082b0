#pragma once

/* The umbrella header of CBusShims: the vtables of org.intervald.Timer1, the MPRIS player and the desktop launcher.
 * An umbrella header rather than an umbrella directory, so that a header added here rebuilds the module in every
 * incremental build. */

#include "bus_shims.h"
#include "player_shims.h"
#include "launcher_shims.h"
