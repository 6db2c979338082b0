#include "bus_shims.h"
