/* The libsystemd API the Swift side calls directly: sd-bus and sd-daemon (sd_notify, sd_watchdog_enabled).
 * The sd-bus vtable macros do not import into Swift; CBusShims builds vtables from tables. */
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
