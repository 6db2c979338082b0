"""The tray item (docs/reference.md §12): the daemon's cue lateness while a real host shows the item (KDE's watcher
in kded5 and Plasma's system tray, which reads every property again after each second's signals), next to the same
plan with `[tray] enabled = false` and the same host running, each run with the C floor cueing alongside, as in
"Side by side"."""
import sys
import tempfile
import time

from .common import REPO, log
from .measure_cue_lateness import warm_up
from .measure_side_by_side import (costed_beside_the_floor, costed_lateness, floor_run_problems, lateness_cells,
                                   switched_off)

sys.path.insert(0, str(REPO / "Tests" / "IntegrationTests"))
import tray_hosts  # noqa: E402 - the hosts the tests run, after the path to them

KEY = "tray"
PARAMS = {"quick": {"tray_segments": 3, "tray_segment_s": 2},
          "full": {"tray_segments": 60, "tray_segment_s": 3}}
NEEDS_QUIET_MACHINE = True


def run(bench):
    if tray_hosts.plasma_systemtray.available():
        return {KEY: {"skipped": tray_hosts.plasma_systemtray.available()}}
    p = bench.p
    plan = f"{p['tray_segments']}x({p['tray_segment_s']}s work)"
    bench.restart_daemon()
    warm_up(bench)
    # Plasma's system tray runs through both runs (it also shows the workout's MPRIS player, at each cue): only the
    # tray item differs.
    with tempfile.TemporaryDirectory(prefix="intervald-tray-") as scratch, \
            tray_hosts.plasma_systemtray(tmp_dir=scratch) as tray:
        log(f"the tray item in Plasma's system tray, {plan}, the C floor alongside …")
        reads_before = len(tray.recorder.property_reads())
        shown = costed_beside_the_floor(bench, plan, p["tray_segments"], p["tray_segment_s"])
        shown["host_reads"] = len(tray.recorder.property_reads()) - reads_before
        log("the same plan with [tray] enabled = false, Plasma's system tray still there, the C floor alongside …")
        settings = bench.settings
        off = switched_off(bench, "tray", "intervald-no-tray.toml")
        bench.settings = off
        try:
            bench.restart_daemon()
            warm_up(bench)
            reads_before = len(tray.recorder.property_reads())
            hidden = costed_beside_the_floor(bench, plan, p["tray_segments"], p["tray_segment_s"])
            hidden["host_reads"] = len(tray.recorder.property_reads()) - reads_before
        finally:
            bench.settings = settings
            bench.restart_daemon()
    return {KEY: {"plan": plan, "segment_s": p["tray_segment_s"], "shown": shown, "off": hidden}}


def summarize(raw, params):
    s = raw[KEY]
    if "skipped" in s:
        return s
    period_ns = s["segment_s"] * 1_000_000_000
    runs = {}
    for name in ("shown", "off"):
        runs[name] = costed_lateness(s[name], period_ns)
    for name in ("shown", "off"):
        runs[name]["host_reads"] = s[name]["host_reads"]
    return {"plan": s["plan"], **runs}


def problems(s):
    if "skipped" in s:
        return [f"tray: {s['skipped']}"]
    found = floor_run_problems("tray", s, ("shown", "off"))
    if not s["shown"]["host_reads"]:
        found.append("tray: Plasma's system tray read nothing of the item")
    if s["off"]["host_reads"]:
        found.append("tray: Plasma's system tray read a tray item with [tray] enabled = false")
    return found


def headline(s):
    if "skipped" in s:
        return f"tray: skipped ({s['skipped']})"
    diff = lambda name: (s[name]["difference"] or {}).get("p99_ms")
    return (f"tray: SegmentStarted p99 − the floor's: {diff('shown')} ms shown in Plasma's tray, {diff('off')} ms "
            f"with the tray off")


def render(s, results):
    lines = ["## The tray item", ""]
    add = lines.append
    if "skipped" in s:
        return lines + [f"Skipped: {s['skipped']}.", ""]
    add(f"The daemon runs `{s['plan']}` twice, each time with the C floor cueing alongside: once with its tray item shown "
        "in Plasma's own system tray (`plasmawindowed org.kde.plasma.systemtray`, with kded5's StatusNotifierWatcher), "
        f"which read the item's properties {s['shown']['host_reads']} times during the run (after each second's "
        "`NewTitle`, `NewToolTip` and `XAyatanaNewLabel`), and once with `[tray] enabled = false`, Plasma's system "
        "tray still running (it also shows the workout's media player, which it reads at each cue). The difference "
        "column is intervald − the floor beside it, as in \"Side by side\": a tray that cost cue lateness would show "
        "as a larger difference in the first row.")
    add("")
    add("| the tray | SegmentStarted p50 / p99 / max ms | the C floor's | intervald − floor p50 / p99 / max | "
        "daemon CPU % |")
    add("| --- | --- | --- | --- | ---: |")
    for name, label in (("shown", "shown in Plasma's system tray"), ("off", "`[tray] enabled = false`")):
        add(f"| {label} | {lateness_cells(s[name])} | {s[name]['daemon_cpu_percent']} |")
    add("")
    return lines
