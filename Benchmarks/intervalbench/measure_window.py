"""The Interval Timer window (docs/reference.md §10): its cold start to the first frame, how long after the daemon's
`SegmentStarted` and after each second's boundary its digits reach the screen, its CPU while it shows a workout and
its RSS; and the daemon's cue lateness with the window open and without it, each run with the C floor cueing
alongside, as in "Side by side".

The window reports when each change of its digits was painted ($INTERVALD_WINDOW_TRACE, Sources/interval-timer/
FrameTrace.swift: the frame clock's after-paint, CLOCK_MONOTONIC); the bus monitor stamps `SegmentStarted` on the
same clock. A segment of D whole seconds that starts at S shows D at S, then D − j at S + j s: the lag of each change
is its paint time minus that instant."""
import os
import subprocess
import time

from .common import log
from .measure_cue_lateness import warm_up
from .measure_side_by_side import beside_the_floor, lateness_beside_the_floor, lateness_cells
from .procstat import Window, footprint
from .summarize import percentile

KEY = "window"
PARAMS = {"quick": {"window_starts": 1, "window_segments": 3, "window_segment_s": 2},
          "full": {"window_starts": 5, "window_segments": 20, "window_segment_s": 5}}
NEEDS_QUIET_MACHINE = True
LAG_P99_MS = 20.0


def _trace(path):
    try:
        return path.read_text().splitlines()
    except FileNotFoundError:
        return []


def _first_frame(path, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in _trace(path):
            if line.startswith("first-frame "):
                return int(line.split()[1])
        time.sleep(0.01)
    raise RuntimeError("the window painted no frame")


#: GTK's renderers: GL (the default; without a GPU, Mesa's llvmpipe draws it in software) and cairo.
RENDERERS = ("gl", "cairo")


def chosen_renderer():
    """The renderer the window chooses on this machine when `GSK_RENDERER` is not set (Sources/interval-timer/main.swift):
    GTK's GL where there is a DRM render node (a GPU), cairo where there is none."""
    try:
        return "gl" if any(name.startswith("renderD") for name in os.listdir("/dev/dri")) else "cairo"
    except OSError:
        return "cairo"


def _open(bench, trace, renderer="gl"):
    env = {**os.environ, "INTERVALD_WINDOW_TRACE": str(trace), "GSK_RENDERER": renderer}
    return subprocess.Popen([str(bench.bin / "interval-timer")], env=env, stdout=subprocess.DEVNULL,
                            stderr=open(bench.work / "interval-timer.log", "a"))


def _close(window):
    window.terminate()
    window.wait(timeout=10)


def _workout(bench, plan):
    """Runs `plan` with the C floor cueing alongside (half a segment out of phase)."""
    p = bench.p
    signals, floor, status = beside_the_floor(bench, plan, p["window_segments"], p["window_segment_s"])
    return {"signals": signals, "floor": floor, "floor_status": status}


def run(bench):
    p = bench.p
    if not (bench.bin / "interval-timer").exists():
        return {KEY: {"skipped": f"no interval-timer in {bench.bin}"}}
    segments, length = p["window_segments"], p["window_segment_s"]
    plan = f"{segments}x({length}s work)"
    warm_up(bench)

    renderers = {}
    for renderer in RENDERERS:
        starts_us = []
        for number in range(p["window_starts"]):
            trace = bench.work / f"window-start-{renderer}-{number}.trace"
            log(f"the window's cold start ({renderer}), {number + 1} of {p['window_starts']} …")
            t0 = time.monotonic_ns() // 1000
            window = _open(bench, trace, renderer)
            starts_us.append(_first_frame(trace) - t0)
            time.sleep(0.5)
            idle_rss = footprint(window.pid)
            _close(window)

        log(f"the window ({renderer}) showing {plan}, the C floor alongside …")
        trace = bench.work / f"window-workout-{renderer}.trace"
        window = _open(bench, trace, renderer)
        _first_frame(trace)
        time.sleep(0.5)
        sampler = Window(window.pid, interval=1.0)
        cues = _workout(bench, plan)
        cost = sampler.finish()
        running_rss = footprint(window.pid)
        _close(window)
        renderers[renderer] = {
            "cold_start_us": starts_us, "idle_footprint": {"total": idle_rss["total"]},
            "running_footprint": {"total": running_rss["total"]}, "cpu_seconds": cost["cpu_ms"] / 1000,
            "window_seconds": cost["seconds"],
            "digits": [[text, int(set_us), int(painted_us)] for text, set_us, painted_us in
                       (line.split()[1:] for line in _trace(trace) if line.startswith("digits "))],
            "cues": cues,
        }

    log("the same plan with the window closed, the C floor alongside …")
    time.sleep(1)
    closed = _workout(bench, plan)

    return {KEY: {
        "plan": plan, "segment_s": length, "renderers": renderers, "chosen_renderer": chosen_renderer(),
        "closed": closed,
    }}


def _clock(seconds):
    return f"{seconds // 60}:{seconds % 60:02d}"


def _lags(run, length):
    """Lag of each change of the digits behind its instant, ms: after SegmentStarted, and after a second's boundary."""
    painted = {}
    for text, _, painted_us in run["digits"]:
        painted.setdefault(text, []).append(painted_us)
    at_signal, at_second = [], []
    for _, started_ns in run["cues"]["signals"]:
        started_us = started_ns / 1000
        for j in range(length):
            due = started_us + j * 1_000_000
            # The first paint of that text after (or just before: the monitor stamps after the send) its instant.
            after = [t for t in painted.get(_clock(length - j), []) if due - 5_000 <= t <= due + 900_000]
            if after:
                (at_signal if j == 0 else at_second).append((min(after) - due) / 1000)
    return at_signal, at_second


def _stats(values):
    return {"n": len(values), "p50_ms": round(percentile(values, 50), 2), "p99_ms": round(percentile(values, 99), 2),
            "max_ms": round(max(values), 2)} if values else None


def summarize(raw, params):
    s = raw[KEY]
    if "skipped" in s:
        return s
    period_ns = s["segment_s"] * 1_000_000_000
    renderers = {}
    for renderer, run in s["renderers"].items():
        at_signal, at_second = _lags(run, s["segment_s"])
        starts = [us / 1000 for us in run["cold_start_us"]]
        renderers[renderer] = {
            "cold_start_ms": {"n": len(starts), "p50_ms": round(percentile(starts, 50), 1),
                              "max_ms": round(max(starts), 1)},
            "lag_after_segment_started": _stats(at_signal), "lag_after_second": _stats(at_second),
            "cpu_percent": round(100 * run["cpu_seconds"] / run["window_seconds"], 2),
            "idle_rss_mib": round(run["idle_footprint"]["total"]["rss_kb"] / 1024, 1),
            "running_rss_mib": round(run["running_footprint"]["total"]["rss_kb"] / 1024, 1),
            "running_pss_mib": round(run["running_footprint"]["total"]["pss_kb"] / 1024, 1),
            "daemon": lateness_beside_the_floor(run["cues"], period_ns),
        }
    return {"plan": s["plan"], "renderers": renderers, "chosen_renderer": s.get("chosen_renderer"),
            "without_window": lateness_beside_the_floor(s["closed"], period_ns)}


def targets(s):
    """The digits' target holds for what a user of this machine sees: the renderer the window chooses here. The other
    renderer's figures are in the section. (Results from before 2026-12-07 did not record the choice: both rows.)"""
    rows = []
    chosen = s.get("chosen_renderer")
    for renderer, r in s.get("renderers", {}).items():
        if chosen and renderer != chosen:
            continue
        for key, label in (("lag_after_segment_started", "SegmentStarted"), ("lag_after_second", "each second")):
            if r.get(key):
                value = r[key]["p99_ms"]
                rows.append({"name": f"the window's digits ({renderer} renderer) painted after {label}, p99",
                             "target": f"≤ {LAG_P99_MS:g} ms", "value": value, "unit": "ms",
                             "met": value <= LAG_P99_MS})
    return rows


def problems(s):
    if "skipped" in s:
        return [f"window: {s['skipped']}"]
    found = []
    runs = [(f"with the window ({renderer})", r["daemon"]) for renderer, r in s["renderers"].items()]
    for renderer, r in s["renderers"].items():
        for key in ("lag_after_segment_started", "lag_after_second"):
            if not r.get(key):
                found.append(f"window ({renderer}): no {key.replace('_', ' ')} measured")
    for label, run in runs + [("without the window", s["without_window"])]:
        if not run["signal"] or not run["floor"]:
            found.append(f"window: no cues measured {label}")
        if run["floor_status"]:
            found.append(f"window: the C floor exited with {run['floor_status']} {label}")
    return found


def headline(s):
    if "skipped" in s:
        return f"window: skipped ({s['skipped']})"
    return "window: " + "; ".join(
        f"{renderer}: first frame {r['cold_start_ms']['p50_ms']} ms, digits after SegmentStarted p99 "
        f"{(r['lag_after_segment_started'] or {}).get('p99_ms')} ms, after each second p99 "
        f"{(r['lag_after_second'] or {}).get('p99_ms')} ms, CPU {r['cpu_percent']} %"
        for renderer, r in s["renderers"].items())


def render(s, results):
    lines = ["## The window", ""]
    add = lines.append
    if "skipped" in s:
        return lines + [f"Skipped: {s['skipped']}.", ""]
    add(f"`interval-timer` (docs/window.md) shows `{s['plan']}`, once with each of GTK's renderers: GL, GTK's default "
        "(on a machine without a GPU, such as this one, Mesa's llvmpipe draws it in software), and cairo, which the "
        "window chooses itself where there is no GPU (no DRM render node) and `GSK_RENDERER` is not set. The window writes when each change of its digits was painted (the frame clock's "
        "after-paint, `$INTERVALD_WINDOW_TRACE`); the bus monitor stamps `SegmentStarted` on the same clock. A segment "
        "of D s that starts at S shows D at S and D − j at S + j s; the lag of a change is its paint minus that "
        f"instant. Target: p99 ≤ {LAG_P99_MS:g} ms (one frame), for the renderer the window chooses on the machine "
        "measured" + (f" ({s['chosen_renderer']} here)" if s.get("chosen_renderer") else "") + ": on a machine "
        "without a GPU GL draws in software, and the frame itself, not the window's work, takes most of the lag "
        "(Benchmarks/notes.md, \"The window's renderer\"). The daemon's cue lateness is measured in the same run "
        "with the window open and then closed, each time with the C floor cueing alongside; the difference column is "
        "intervald − the floor beside it, as in \"Side by side\".")
    add("")
    add("| renderer | digits after `SegmentStarted` p50 / p99 / max ms | after each second p50 / p99 / max ms | "
        "first frame p50 ms | CPU % | RSS idle / showing MiB (PSS) |")
    add("| --- | --- | --- | ---: | ---: | --- |")
    fmt = lambda st: " / ".join(f"{st.get(k, 0):.2f}" for k in ("p50_ms", "p99_ms", "max_ms")) if st else "–"
    for renderer, r in s["renderers"].items():
        add(f"| {renderer} | {fmt(r['lag_after_segment_started'])} | {fmt(r['lag_after_second'])} | "
            f"{r['cold_start_ms']['p50_ms']} | {r['cpu_percent']} | {r['idle_rss_mib']} / {r['running_rss_mib']} "
            f"({r['running_pss_mib']}) |")
    add("")
    add("| daemon's SegmentStarted | p50 / p99 / max ms | the C floor's | intervald − floor p50 / p99 / max |")
    add("| --- | --- | --- | --- |")
    runs = [(f"window open ({renderer})", r["daemon"]) for renderer, r in s["renderers"].items()]
    for label, run in runs + [("window closed", s["without_window"])]:
        add(f"| {label} | {lateness_cells(run)} |")
    add("")
    return lines
