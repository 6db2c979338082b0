#include "notify_shims.h"
