#pragma once

/* The umbrella header of CBusShims: the org.intervald.Timer1 vtable and the MPRIS player's. An umbrella header
 * rather than an umbrella directory, so that a header added here rebuilds the module in every incremental build. */

#include "bus_shims.h"
#include "player_shims.h"
