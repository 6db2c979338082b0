#!/usr/bin/env python3
"""The do-it-yourself cue loop a user writes in Python: time.sleep for the interval, then notify.

    baseline-python.py COUNT PERIOD_SECONDS

It notifies with `notify-send` through subprocess (what most such scripts do; no D-Bus library needed) and, like
intervald, replaces one notification in place (--print-id / --replace-id). Each cue costs the interval plus the time
to spawn notify-send: that is where it drifts.
"""
import subprocess
import sys
import time

count, period = int(sys.argv[1]), float(sys.argv[2])
notification_id = None
for i in range(count):
    time.sleep(period)
    replace = ["-r", notification_id] if notification_id else []
    notification_id = subprocess.run(
        ["notify-send", "-a", "bench-python", "-p", *replace, f"Cue {i}", "Work · 250 ms"],
        capture_output=True, text=True, check=False,
    ).stdout.strip() or None
