"""The tray item (docs/reference.md §12): the daemon's cue lateness while a real host shows the item (KDE's watcher
in kded5 and Plasma's system tray, which reads every property again after each second's signals), next to the same
plan with `[tray] enabled = false` and the same host running, each run with the C floor cueing alongside, as in
"Side by side"."""
import sys
import tempfile
import time

from .common import REPO, log
from .measure_cue_lateness import warm_up
from .measure_side_by_side import (costed_beside_the_floor, on_off_headline, on_off_problems, on_off_section,
                                   on_off_summary, switched_off)

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
    return on_off_summary(raw, KEY, ("shown", "off"), kept=("host_reads",))


def problems(s):
    return on_off_problems("tray", s, ("shown", "off"), lambda s: [
        (not s["shown"]["host_reads"], "Plasma's system tray read nothing of the item"),
        (s["off"]["host_reads"], "Plasma's system tray read a tray item with [tray] enabled = false")])


def headline(s):
    return on_off_headline("tray", s, (("shown", "shown in Plasma's tray"), ("off", "with the tray off")))


def render(s, results):
    return on_off_section(
        s, "The tray item", "the tray",
        (("shown", "shown in Plasma's system tray"), ("off", "`[tray] enabled = false`")),
        lambda s: f"The daemon runs `{s['plan']}` twice, each time with the C floor cueing alongside: once with its "
        "tray item shown in Plasma's own system tray (`plasmawindowed org.kde.plasma.systemtray`, with kded5's "
        f"StatusNotifierWatcher), which read the item's properties {s['shown']['host_reads']} times during the run "
        "(after each second's `NewTitle`, `NewToolTip` and `XAyatanaNewLabel`), and once with `[tray] enabled = "
        "false`, Plasma's system tray still running (it also shows the workout's media player, which it reads at each "
        "cue). The difference column is intervald − the floor beside it, as in \"Side by side\": a tray that cost cue "
        "lateness would show as a larger difference in the first row.")
