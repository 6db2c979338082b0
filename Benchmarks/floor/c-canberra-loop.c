/* Floor for the sound's onset: the least a program can do to sound a cue on time. It opens a libcanberra context,
 * caches the two cue sounds, then sleeps to absolute CLOCK_MONOTONIC deadlines (start + k × period,
 * clock_nanosleep TIMER_ABSTIME) and calls ca_context_play at each, alternating the two sounds:
 *
 *   c-canberra-loop COUNT PERIOD_MS SOUND_A SOUND_B
 *
 * Prints the wall clock (CLOCK_REALTIME, µs) of instant 0 before the first deadline, so that the onsets recorded at
 * the audio server line up with the schedule. What intervald adds to this floor is its own cost; what this floor
 * shows is the audio server's (its buffering, its mixing in blocks). */
#include <canberra.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int64_t ns(struct timespec t) { return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec; }

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: c-canberra-loop COUNT PERIOD_MS SOUND_A SOUND_B\n");
        return 64;
    }
    long count = strtol(argv[1], NULL, 10);
    long period_ns = strtol(argv[2], NULL, 10) * 1000000L;
    const char *sounds[2] = {argv[3], argv[4]};
    ca_context *context = NULL;
    int r = ca_context_create(&context);
    if (r == CA_SUCCESS) r = ca_context_change_props(context, CA_PROP_CANBERRA_XDG_THEME_NAME, "intervald", NULL);
    if (r == CA_SUCCESS) r = ca_context_open(context);
    for (int i = 0; r == CA_SUCCESS && i < 2; i++)
        r = ca_context_cache(context, CA_PROP_EVENT_ID, sounds[i], NULL);
    if (r != CA_SUCCESS) {
        fprintf(stderr, "c-canberra-loop: %s\n", ca_strerror(r));
        return 69;
    }
    struct timespec start, wall, now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    clock_gettime(CLOCK_REALTIME, &wall);
    /* The schedule starts a quarter second from now, after the output below is on its way. */
    int64_t origin = ns(now) + 250000000LL;
    printf("%lld\n", (long long)((ns(wall) + 250000000LL) / 1000));
    fflush(stdout);
    for (long k = 0; k < count; k++) {
        int64_t deadline = origin + k * period_ns;
        start.tv_sec = deadline / 1000000000LL;
        start.tv_nsec = deadline % 1000000000LL;
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &start, NULL) == EINTR) {
        }
        r = ca_context_play(context, 1, CA_PROP_EVENT_ID, sounds[k % 2], CA_PROP_CANBERRA_CACHE_CONTROL, "permanent",
                            NULL);
        if (r != CA_SUCCESS) fprintf(stderr, "c-canberra-loop: cue %ld: %s\n", k, ca_strerror(r));
    }
    /* Let the last sound reach the server before the context goes. */
    struct timespec tail = {.tv_sec = 0, .tv_nsec = 500000000L};
    nanosleep(&tail, NULL);
    ca_context_destroy(context);
    return 0;
}
