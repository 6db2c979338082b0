/* Floor: the daemon's C libraries from C: an sd-bus connection to the session bus, libnotify initialised, and a GLib
 * main loop. `exit` as the argument exits after the set-up (start-up time); otherwise it runs forever. */
#include <libnotify/notify.h>
#include <stdio.h>
#include <string.h>
#include <systemd/sd-bus.h>

int main(int argc, char **argv) {
    sd_bus *bus = NULL;
    if (sd_bus_open_user(&bus) < 0) return 1;
    notify_init("floor");
    if (argc > 1 && strcmp(argv[1], "exit") == 0) return 0;
    GMainLoop *loop = g_main_loop_new(NULL, FALSE);
    printf("ready\n");
    fflush(stdout);
    g_main_loop_run(loop);
    return 0;
}
