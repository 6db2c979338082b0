"""Cue lateness and drift of intervald: a plan of short segments, every SegmentStarted signal and Notify call stamped
by the monitor; the daemon's threads sampled meanwhile (CPU and context switches per cue); `busctl monitor` alongside
as a cross-check."""
import json
import os
import re
import signal
import subprocess
import time

from .common import log
from .procstat import Window, busy_percent, cpu_busy, process_ticks, steal_ms, top_processes

BUSCTL_MATCHES = ["type='signal',interface='org.intervald.Timer1',member='SegmentStarted'"]


def cue_plan(cues, period):
    return f"{cues}x(250ms work)" if period == 0.25 else f"{cues}x({int(period * 1000)}ms work)"


def warm_up(bench):
    """The first cue a daemon shows asks the notification server for its capabilities first."""
    bench.call("Start", "ssb", "4x(250ms work)", "", "false")
    bench.wait_for(lambda: bench.state() == "idle", 10, "the warm-up plan to finish")
    time.sleep(1)


def mpris_change_times(events):
    """Monitor times of the MPRIS player's PropertiesChanged signals (docs/reference.md §8: Metadata and PlaybackStatus, sent after
    SegmentStarted at each cue)."""
    return [m["t"] for m in events if m.get("member") == "PropertiesChanged" and m.get("path") == "/org/mpris/MediaPlayer2"]


def intervald_cue_times(events):
    """[index, monitor time] of intervald's SegmentStarted signals and of its Notify calls among the monitor's events."""
    signals = [m for m in events if m.get("member") == "SegmentStarted" and m.get("interface") == "org.intervald.Timer1"]
    notifies = [m for m in events if m.get("member") == "Notify" and m["args"][:1] == ["intervald"]]
    # Notify(app_name, replaces_id, app_icon, summary, body): the body says "round K of N".
    return ([[m["args"][0], m["t"]] for m in signals],
            [[int(re.search(r"round (\d+) of", m["args"][4]).group(1)) - 1, m["t"]]
             for m in notifies if len(m["args"]) >= 5 and re.search(r"round (\d+) of", m["args"][4])])


def run(bench):
    p = bench.p
    n, period = p["cues"], p["period"]
    plan = cue_plan(n, period)
    busctl_path = bench.work / "busctl-monitor.jsonl"
    with open(busctl_path, "w") as busctl_out:
        busctl_monitor = subprocess.Popen(["busctl", "--user", "monitor", "--json=short",
                                           *[a for m in BUSCTL_MATCHES for a in ("--match", m)]],
                                          stdout=busctl_out, stderr=subprocess.DEVNULL)
        try:
            warm_up(bench)
            log(f"intervald: {n} cues of {period * 1000:.0f} ms …")
            busy0, t0, ticks0, harness0 = cpu_busy(), time.monotonic_ns(), process_ticks(), os.times()
            window = Window(bench.pid, interval=1.0)
            bench.call("Start", "ssb", plan, "", "false")
            time.sleep(n * period)  # nothing of the harness runs meanwhile but the sampler (1 read of /proc a second)
            bench.wait_for_member("Finished", t0, 30, "intervald's plan to finish")
            time.sleep(0.5)  # the last notification
            cost = window.finish()
            t1 = time.monotonic_ns()
        finally:
            busctl_monitor.send_signal(signal.SIGTERM)
            busctl_monitor.wait(timeout=10)
    events = bench.events(bench.monitor_path, t0, t1)
    signal_times, notify_times = intervald_cue_times(events)
    return {
        "lateness": {"cues": n, "period_ms": period * 1000, "plan": plan, "intervald": {
            "machine_busy_percent": busy_percent(busy0, cpu_busy()),
            "steal_ms": steal_ms(busy0, cpu_busy()),
            "top_processes": top_processes(ticks0, process_ticks(), (t1 - t0) / 1e9),
            "harness_cpu_percent": round(100 * ((os.times().user - harness0.user) + (os.times().system - harness0.system))
                                         / ((t1 - t0) / 1e9), 2),
            "signal_times_ns": signal_times,
            "notify_times_ns": notify_times,
            "mpris_change_times_ns": mpris_change_times(events),
            "cost": cost,
        }},
        "busctl_cross_check": busctl_cross_check(busctl_path, n),
    }


def busctl_cross_check(path, n):
    """intervald's SegmentStarted arrival times as busctl monitor saw them (CLOCK_REALTIME µs, parse time)."""
    times = []
    with open(path) as f:
        for line in f:
            try:
                message = json.loads(line)
            except json.JSONDecodeError:
                continue
            if message.get("member") == "SegmentStarted":
                times.append([message["payload"]["data"][0], message["timestamp-realtime"]])
    # Keep the measured run only: the first run of consecutive indices from 0 with n cues (not the warm-up's).
    runs, current = [], []
    for index, t in times:
        if index == 0 and current:
            runs.append(current)
            current = []
        current.append([index, t])
    if current:
        runs.append(current)
    measured = next((r for r in runs if len(r) == n), None)
    return {"signal_times_us": measured}
