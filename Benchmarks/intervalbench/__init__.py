"""The benchmark behind `scripts/bench`: intervald against the do-it-yourself baselines.

Layout (scripts/bench is only the command line):
  common.py        paths, bus names, the quick and full parameters, logging
  environment.py   outside the desktop: the build, the reference programs, the machine's facts, the private desktop
  desktop.py       inside the desktop: `Bench`, the context every measurement gets (the daemon, the bus, the
                   monitor), and the loop that runs MEASUREMENTS in order
  procstat.py      /proc sampling of a process and its threads, CPU use of the machine
  measure_*.py     one measurement each; MEASUREMENTS (below) is the order they run in
  summarize.py     statistics, targets and sanity checks: raw data → bench-results.json
  render.py        bench-results.json → docs/benchmarks.md

A measurement is a module with `run(bench) -> dict`, whose keys are merged into the raw data. It may also carry its
own report: `KEY` (its key in bench-results.json), `summarize(raw, params) -> dict`, `render(summary, results) ->
list of lines` (a section of docs/benchmarks.md), and optionally `targets(summary) -> rows`, `problems(summary) ->
list of sentences`, `headline(summary) -> str`, `PARAMS = {"quick": {...}, "full": {...}}` (its parameters) and
`NEEDS_QUIET_MACHINE = True` (wait for background work, such as the long RSS plan, to end before it runs).
Adding one is a new module and one line in MEASUREMENTS.
"""
from . import (measure_client, measure_cue_baselines, measure_cue_floor, measure_cue_lateness, measure_floors,
               measure_footprint, measure_haptics, measure_hostile, measure_perceived, measure_scale,
               measure_sensors, measure_side_by_side, measure_soak, measure_tray, measure_wakeups, measure_window)

MEASUREMENTS = [
    measure_footprint,      # RSS and mappings of a fresh daemon
    measure_cue_lateness,   # intervald: cue lateness, drift, CPU per cue
    measure_cue_floor,      # the C timer loop: the machine's floor
    measure_side_by_side,   # intervald and the C floor cueing at the same time, several runs
    measure_cue_baselines,  # the shell and Python loops
    measure_soak,           # starts the long RSS plan on a desktop of its own, in the background
    measure_wakeups,        # idle and running windows: wake-ups, CPU
    measure_floors,         # the reference programs' RSS and start-up (--floors)
    measure_client,         # intervalctl round trips, D-Bus activation
    measure_scale,          # plan show of 10^8 segments, parse throughput
    measure_hostile,        # cue lateness under hostile callers, next to an unloaded run
    measure_perceived,      # the cue sound's onset at the audio server, next to a C libcanberra loop
    measure_window,         # the window: first frame, its digits' lag, its cost; the daemon's cues with it open
    measure_tray,           # the daemon's cues with its tray item shown in Plasma's system tray, and with it off
    measure_haptics,        # the daemon's cues asking feedbackd for an event each, and with haptics off
    measure_sensors,        # the daemon's cues with a strap and a treadmill chosen (the BlueZ stand-in), and with none
]
