#pragma once
#include <systemd/sd-bus.h>
