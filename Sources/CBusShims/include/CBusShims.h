#pragma once

/* The umbrella header of CBusShims: one way to export a D-Bus object. An umbrella header rather than an umbrella
 * directory, so that a header added here rebuilds the module in every incremental build. */

#include "object_shims.h"
