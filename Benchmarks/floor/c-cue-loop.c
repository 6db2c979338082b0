/* Floor for cue lateness: the least a program can do to cue on time. It sleeps to absolute CLOCK_MONOTONIC deadlines
 * (start + k × period, clock_nanosleep TIMER_ABSTIME) and emits one D-Bus signal per cue through sd-bus, at normal
 * priority:
 *
 *   c-cue-loop COUNT PERIOD_MS [notify]
 *
 * Signal: org.intervald.Bench.SegmentStarted(u index) at /org/intervald/Bench. What intervald adds to this floor is
 * its own cost; what this floor shows is the machine's (timer wake-up, scheduling, the bus daemon).
 *
 * With `notify`, each cue then also shows one notification through libnotify (app name "floor", summary "Bench K",
 * replacing the previous one), as intervald does after its signal: the floor for the `Notify` call. */
#include <errno.h>
#include <libnotify/notify.h>
#include <string.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <systemd/sd-bus.h>
#include <time.h>

int main(int argc, char **argv) {
    if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "notify") != 0)) {
        fprintf(stderr, "usage: c-cue-loop COUNT PERIOD_MS [notify]\n");
        return 64;
    }
    NotifyNotification *notification = NULL;
    if (argc == 4) {
        notify_init("floor");
        notification = notify_notification_new("Bench", NULL, NULL);
    }
    long count = strtol(argv[1], NULL, 10);
    long period_ns = strtol(argv[2], NULL, 10) * 1000000L;
    sd_bus *bus = NULL;
    int r = sd_bus_open_user(&bus);
    if (r < 0) {
        fprintf(stderr, "c-cue-loop: sd_bus_open_user: %d\n", r);
        return 69;
    }
    const char *unique = NULL;
    r = sd_bus_get_unique_name(bus, &unique); /* waits for the connection to be set up, before the schedule starts */
    if (r < 0) {
        fprintf(stderr, "c-cue-loop: sd_bus_get_unique_name: %d\n", r);
        return 69;
    }
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long k = 0; k < count; k++) {
        int64_t deadline = (int64_t)start.tv_sec * 1000000000LL + start.tv_nsec + k * period_ns;
        struct timespec at = {.tv_sec = deadline / 1000000000LL, .tv_nsec = deadline % 1000000000LL};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR) {
        }
        r = sd_bus_emit_signal(bus, "/org/intervald/Bench", "org.intervald.Bench", "SegmentStarted", "u",
                               (uint32_t)k);
        if (r >= 0) r = sd_bus_flush(bus);
        if (r < 0) {
            fprintf(stderr, "c-cue-loop: emit: %d\n", r);
            return 1;
        }
        if (notification) {
            char summary[32];
            snprintf(summary, sizeof summary, "Bench %ld", k);
            notify_notification_update(notification, summary, NULL, NULL);
            if (!notify_notification_show(notification, NULL)) {
                fprintf(stderr, "c-cue-loop: notify_notification_show failed\n");
                return 1;
            }
        }
    }
    sd_bus_flush_close_unref(bus);
    return 0;
}
