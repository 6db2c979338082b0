"""Cues you feel (docs/reference.md §4d): the daemon's cue lateness while it asks the real feedbackd for an event at
each change, countdown pip and the finish (feedbackd with a theme of dummy feedbacks, as the tests run it: no
vibration motor here), next to the same plan with `[haptics] enabled = false` and feedbackd still running, each run
with the C floor cueing alongside, as in "Side by side"."""
import shutil
import sys
import tempfile
from pathlib import Path

from .common import REPO, log
from .measure_cue_lateness import warm_up
from .measure_side_by_side import (costed_beside_the_floor, on_off_headline, on_off_problems, on_off_section,
                                   on_off_summary, switched_off)

sys.path.insert(0, str(REPO / "Tests" / "IntegrationTests"))
from feedbackd import FEEDBACKD, Feedbackd  # noqa: E402 - the feedbackd the tests run, after the path to them

KEY = "haptics"
# Pairs of a work and a walk segment, each with a countdown pip a second before its end.
PARAMS = {"quick": {"haptics_segments": 2, "haptics_segment_s": 2},
          "full": {"haptics_segments": 60, "haptics_segment_s": 2}}
NEEDS_QUIET_MACHINE = True


def _run(bench, plan, feedbackd):
    p = bench.p
    before = len(feedbackd.events())
    run = costed_beside_the_floor(bench, plan, p["haptics_segments"], p["haptics_segment_s"])
    run["feedbacks"] = len(feedbackd.events()) - before
    return run


def run(bench):
    if not Path(FEEDBACKD).exists():
        return {KEY: {"skipped": f"{FEEDBACKD} is not installed"}}
    p = bench.p
    plan = f"countdown 1s\n{p['haptics_segments'] // 2}x({p['haptics_segment_s']}s work, {p['haptics_segment_s']}s walk)"
    scratch = Path(tempfile.mkdtemp(prefix="intervald-haptics-"))
    feedbackd = Feedbackd(scratch)
    settings = bench.settings
    try:
        bench.restart_daemon()
        warm_up(bench)
        log(f"haptics on, feedbackd running, {plan!r}, the C floor alongside …")
        on = _run(bench, plan, feedbackd)
        log("the same plan with [haptics] enabled = false, feedbackd still running, the C floor alongside …")
        bench.settings = switched_off(bench, "haptics", "intervald-no-haptics.toml")
        bench.restart_daemon()
        warm_up(bench)
        off = _run(bench, plan, feedbackd)
    finally:
        bench.settings = settings
        bench.restart_daemon()
        feedbackd.close()
        shutil.rmtree(scratch, ignore_errors=True)
    return {KEY: {"plan": plan, "segment_s": p["haptics_segment_s"], "on": on, "off": off}}


def summarize(raw, params):
    return on_off_summary(raw, KEY, ("on", "off"), kept=("feedbacks",))


def problems(s):
    return on_off_problems("haptics", s, ("on", "off"), lambda s: [
        (not s["on"]["feedbacks"], "feedbackd got no event with haptics on"),
        (s["off"]["feedbacks"], "feedbackd got events with [haptics] enabled = false")])


def headline(s):
    return on_off_headline("haptics", s, (("on", "with feedbackd asked at each cue"), ("off", "with haptics off")))


def render(s, results):
    return on_off_section(
        s, "Cues you feel", "haptics",
        (("on", "on, feedbackd asked at each cue"), ("off", "`[haptics] enabled = false`")),
        lambda s: f"The daemon runs `{s['plan'].replace(chr(10), '; ')}` twice, each time with the C floor cueing "
        "alongside and feedbackd running on the bus (its theme of dummy feedbacks, as in the tests: no vibration motor "
        f"here): once with `[haptics] enabled = true`, the default, when feedbackd got {s['on']['feedbacks']} events "
        "(each change, each countdown pip and the finish), and once with `[haptics] enabled = false`, when it got "
        f"{s['off']['feedbacks']}. The haptic output only hands each event to its own queue at the instant; the call "
        "to feedbackd goes out from there, on its own connection. The difference column is intervald − the floor "
        "beside it, as in \"Side by side\": haptics that cost cue lateness would show as a larger difference in the "
        "first row.")
