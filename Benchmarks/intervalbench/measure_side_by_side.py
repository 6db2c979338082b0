"""Cue lateness side by side (docs/reference.md §6): intervald and the C floor (Benchmarks/floor/c-cue-loop.c with `notify`: a
clock_nanosleep loop that emits one sd-bus signal, then shows one libnotify notification per cue) cue at the same
time, half a period out of phase, seen by the same monitor, in several runs. Each run is reported as intervald minus
the floor beside it, for `SegmentStarted` and for `Notify`: the machine's noise in that window is the same for both."""
import re
import subprocess
import time

from .common import log
from .measure_cue_floor import floor_cue_times
from .measure_cue_lateness import intervald_cue_times, mpris_change_times, warm_up
from .procstat import Window, busy_percent, cpu_busy, steal_ms
from .summarize import lateness_stats, percentile, signal_to_mpris_change

KEY = "side_by_side"
# 480 cues a run (2 minutes): with 120 a run's p99 was its second-latest cue, and two identical floors missed the
# targets against each other (Benchmarks/floor-beside-floor.py).
PARAMS = {"quick": {"side_by_side_runs": 1, "side_by_side_cues": 10},
          "full": {"side_by_side_runs": 5, "side_by_side_cues": 480}}
NEEDS_QUIET_MACHINE = True
# Targets of the issue, as differences in one run: intervald − the floor beside it.
SIGNAL_P99_MS, SIGNAL_P50_MS, NOTIFY_P99_MS = 0.2, 0.1, 0.5


def run(bench):
    p = bench.p
    n, period, runs = p["side_by_side_cues"], p["period"], p["side_by_side_runs"]
    plan = f"{n}x({int(period * 1000)}ms work)"
    results = []
    warm_up(bench)
    for number in range(runs):
        log(f"side by side, run {number + 1} of {runs}: {n} cues of {period * 1000:.0f} ms, the C floor alongside …")
        time.sleep(1)
        busy0, t0 = cpu_busy(), time.monotonic_ns()
        window = Window(bench.pid, interval=1.0)
        bench.call("Start", "ssb", plan, "", "false")
        time.sleep(period / 2)
        floor = subprocess.Popen([bench.cue_floor, str(n), str(int(period * 1000)), "notify"])
        time.sleep(n * period)
        floor.wait(timeout=30)
        bench.wait_for_member("Finished", t0, 30, "intervald's plan to finish")
        time.sleep(0.5)
        cost = window.finish()
        t1 = time.monotonic_ns()
        events = bench.events(bench.monitor_path, t0, t1)
        signal_times, notify_times = intervald_cue_times(events)
        floor_signal_times, floor_notify_times = floor_cue_times(events)
        results.append({
            "signal_times_ns": signal_times, "notify_times_ns": notify_times,
            "mpris_change_times_ns": mpris_change_times(events),
            "floor_signal_times_ns": floor_signal_times, "floor_notify_times_ns": floor_notify_times,
            "floor_exit_status": floor.returncode, "machine_busy_percent": busy_percent(busy0, cpu_busy()),
            "steal_ms": steal_ms(busy0, cpu_busy()), "daemon_cpu_ms": cost["cpu_ms"],
        })
    return {KEY: {"cues": n, "period_ms": period * 1000, "plan": plan, "runs": results}}


def beside_the_floor(bench, plan, segments, segment_s):
    """Runs `plan` (`segments` of `segment_s` s) with the C floor cueing alongside, half a segment out of phase;
    returns (intervald's SegmentStarted, the floor's signals, the floor's exit status), each as [index, ns]."""
    period_ms = int(segment_s * 1000)
    t0 = time.monotonic_ns()
    bench.call("Start", "ssb", plan, "", "false")
    time.sleep(segment_s / 2)
    floor = subprocess.Popen([bench.cue_floor, str(segments), str(period_ms), "notify"])
    time.sleep(segments * segment_s)
    floor.wait(timeout=60)
    bench.wait_for_member("Finished", t0, 60, "the plan to finish")
    time.sleep(0.5)
    events = bench.events(bench.monitor_path, t0, time.monotonic_ns())
    signals, _ = intervald_cue_times(events)
    return signals, floor_cue_times(events)[0], floor.returncode


def costed_beside_the_floor(bench, plan, segments, segment_s):
    """`beside_the_floor`, with the daemon's CPU time over the run: what a comparison of one output on and off needs."""
    sampler = Window(bench.pid, interval=1.0)
    signals, floor, status = beside_the_floor(bench, plan, segments, segment_s)
    cost = sampler.finish()
    return {"signals": signals, "floor": floor, "floor_status": status, "daemon_cpu_ms": cost["cpu_ms"],
            "seconds": cost["seconds"]}


def switched_off(bench, table, name):
    """A copy of the bench's settings with `[table] enabled = false`, written as `name` in its work directory. The
    shipped file has the table already: a second one would make the whole file invalid."""
    settings = bench.settings
    text, count = re.subn(rf"^(\[{table}\][^\[]*?^enabled\s*=\s*)true", r"\1false", settings.read_text(),
                          flags=re.M | re.S)
    if count != 1:
        raise RuntimeError(f"no [{table}] enabled = true in {settings} to turn off")
    off = bench.work / name
    off.write_text(text)
    return off


def lateness_beside_the_floor(run, period_ns):
    """intervald's and the floor's jitter in one `beside_the_floor` run, and their difference."""
    ours, floor = jitter(run["signals"], period_ns), jitter(run["floor"], period_ns)
    return {"signal": ours, "floor": floor, "difference": minus_floor(ours, floor), "floor_status": run["floor_status"]}


def costed_lateness(run, period_ns):
    """A `costed_beside_the_floor` run's lateness beside the floor, and the daemon's CPU use in percent of a core."""
    return {**lateness_beside_the_floor(run, period_ns),
            "daemon_cpu_percent": round(100 * run["daemon_cpu_ms"] / 1000 / run["seconds"], 3)}


def on_off_problems(prefix, s, names, wrong):
    """What went wrong in the runs `names` of an `on_off_summary`, as sentences starting `prefix`, with `wrong(s)`: the
    measurement's own (condition, sentence) pairs; only its reason if it was skipped."""
    if "skipped" in s:
        return [f"{prefix}: {s['skipped']}"]
    found = []
    for name in names:
        if not s[name]["signal"] or not s[name]["floor"]:
            found.append(f"{prefix}: no cues measured ({name})")
        if s[name]["floor_status"]:
            found.append(f"{prefix}: the C floor exited with {s[name]['floor_status']} ({name})")
    return found + [f"{prefix}: {sentence}" for condition, sentence in wrong(s) if condition]


def on_off_headline(prefix, s, runs):
    """The headline of an `on_off_summary`: each run's SegmentStarted p99 − the floor's, with the words of `runs`
    ((name, words) pairs)."""
    if "skipped" in s:
        return f"{prefix}: skipped ({s['skipped']})"
    figures = ", ".join(f"{(s[name]['difference'] or {}).get('p99_ms')} ms {words}" for name, words in runs)
    return f"{prefix}: SegmentStarted p99 − the floor's: {figures}"


def on_off_summary(raw, key, names, kept=()):
    """The summary of a measurement that ran one plan beside the floor with something on and off (`names`, each a
    `costed_beside_the_floor` run, with its own figures `kept`), or its reason for being skipped."""
    s = raw[key]
    if "skipped" in s:
        return s
    period_ns = s["segment_s"] * 1_000_000_000
    return {"plan": s["plan"], **{name: {**costed_lateness(s[name], period_ns), **{k: s[name][k] for k in kept}}
                                  for name in names}}


def on_off_section(s, title, what, rows, intro):
    """The section of an `on_off_summary`: `intro(s)`, then a row per (name, label) of `rows`."""
    lines = [f"## {title}", ""]
    if "skipped" in s:
        return lines + [f"Skipped: {s['skipped']}.", ""]
    lines += [intro(s), "",
              f"| {what} | SegmentStarted p50 / p99 / max ms | the C floor's | intervald − floor p50 / p99 / max | "
              "daemon CPU % |",
              "| --- | --- | --- | --- | ---: |"]
    lines += [f"| {label} | {lateness_cells(s[name])} | {s[name]['daemon_cpu_percent']} |" for name, label in rows]
    return lines + [""]


def lateness_cells(run):
    """A `lateness_beside_the_floor` result as three table cells: intervald's and the floor's p50 / p99 / max, and
    their difference."""
    three = lambda st, sign="": " / ".join(f"{(st or {}).get(k, 0):{sign}.3f}" for k in ("p50_ms", "p99_ms", "max_ms"))
    return f"{three(run['signal'])} | {three(run['floor'])} | {three(run['difference'], '+')}"


def best_offset(indexed_times, period_ns):
    """The earliest a contender delivered any cue against its own period: min over k of t(k) − k × period, ns. Its
    jitter is measured from there. Cue 0 is no reference: it is itself late by a random fraction of a millisecond
    (intervald's goes out while it handles `Start`), which would shift every other cue of that contender by the
    same amount and swamp a 0.1 ms comparison."""
    return min((t - k * period_ns for k, t in indexed_times), default=None)


def jitter(indexed_times, period_ns):
    """A contender's lateness against its own best cue (best_offset), without the per-cue list; None without cues."""
    st = lateness_stats(indexed_times, period_ns, base=best_offset(indexed_times, period_ns))
    if st:
        st.pop("lateness_ms")
    return st


def pooled_jitter(runs_times, period_ns):
    """The jitter of all cues of several runs together, each against its own run's best cue: p50, p99 and max, ms;
    None without cues. Over five runs of 480 cues a p99 is the 24th-latest of 2400, not one run's 5th-latest."""
    lateness = []
    for indexed_times in runs_times:
        st = lateness_stats(indexed_times, period_ns, base=best_offset(indexed_times, period_ns))
        lateness += st["lateness_ms"] if st else []
    if not lateness:
        return None
    return {"cues": len(lateness), "p50_ms": round(percentile(lateness, 50), 3),
            "p99_ms": round(percentile(lateness, 99), 3), "max_ms": round(max(lateness), 3)}


def minus_floor(ours, floor):
    """intervald − the floor beside it, ms, for p50, p99 and max; None unless both were measured."""
    if not ours or not floor:
        return None
    return {key: round(ours[key] - floor[key], 3) for key in ("p50_ms", "p99_ms", "max_ms")}


def summarize(raw, params):
    s = raw[KEY]
    period_ns = int(s["period_ms"] * 1e6)
    runs = []
    for r in s["runs"]:
        stats = {prefix + name: jitter(r[f"{prefix}{name}_times_ns"], period_ns)
                 for prefix in ("", "floor_") for name in ("signal", "notify")}
        difference = {}
        for ours, floor in (("signal", "floor_signal"), ("notify", "floor_notify")):
            if minus_floor(stats[ours], stats[floor]):
                difference[ours] = minus_floor(stats[ours], stats[floor])
        runs.append({**stats, "difference": difference,
                     "signal_to_mpris_change": signal_to_mpris_change(r["signal_times_ns"],
                                                                      r.get("mpris_change_times_ns", [])),
                     "steal_ms": r["steal_ms"],
                     "machine_busy_percent": r["machine_busy_percent"], "floor_exit_status": r["floor_exit_status"],
                     "daemon_cpu_ms_per_cue": round(r["daemon_cpu_ms"] / s["cues"], 3)})
    pooled = {name: pooled_jitter([r[f"{name}_times_ns"] for r in s["runs"]], period_ns)
              for name in ("notify", "floor_notify")}
    return {"cues": s["cues"], "period_ms": s["period_ms"], "plan": s["plan"], "runs": runs,
            "notify_pooled": {**pooled, "difference": minus_floor(pooled["notify"], pooled["floor_notify"])}}


def _differences(s, event, key):
    return [r["difference"][event][key] for r in s["runs"] if event in r["difference"]]


def targets(s):
    """The cue's signal in every run (the issue's "in every run"); `Notify` over the runs' cues together: one run's
    `Notify` p99 differed by up to 0.51 ms between two identical C floors (Benchmarks/floor-beside-floor.py), so
    the worst of five runs would judge the notification server's turn, not intervald."""
    rows = []
    for event, key, bound, label in (("signal", "p99_ms", SIGNAL_P99_MS, "SegmentStarted p99"),
                                     ("signal", "p50_ms", SIGNAL_P50_MS, "SegmentStarted p50")):
        values = _differences(s, event, key)
        if values:
            worst = max(values)
            rows.append({"name": f"{label}, intervald − the C floor beside it (worst of {len(values)} runs)",
                         "target": f"≤ {bound:g} ms", "value": worst, "unit": "ms", "met": worst <= bound})
    pooled = s.get("notify_pooled", {}).get("difference")
    if pooled:
        rows.append({"name": f"Notify p99, intervald − the C floor beside it (the {len(s['runs'])} runs' cues together)",
                     "target": f"≤ {NOTIFY_P99_MS:g} ms", "value": pooled["p99_ms"], "unit": "ms",
                     "met": pooled["p99_ms"] <= NOTIFY_P99_MS})
    return rows


def problems(s):
    found = []
    for number, r in enumerate(s["runs"], 1):
        for name in ("signal", "notify", "floor_signal", "floor_notify"):
            if not r[name]:
                found.append(f"side by side, run {number}: no {name} cues measured")
        if r["floor_exit_status"]:
            found.append(f"side by side, run {number}: the C floor exited with {r['floor_exit_status']}")
    return found


def headline(s):
    signal = _differences(s, "signal", "p99_ms")
    notify = _differences(s, "notify", "p99_ms")
    pooled = (s.get("notify_pooled") or {}).get("difference") or {}
    return (f"side by side: SegmentStarted p99 − floor {signal} ms, Notify p99 − floor {notify} ms "
            f"({len(s['runs'])} runs; all cues together {pooled.get('p99_ms')} ms)")


def render(s, results):
    def fmt(value):
        return "–" if value is None else f"{value:+.3f}" if isinstance(value, float) else str(value)

    lines = ["## Side by side with the C floor", ""]
    add = lines.append
    add(f"intervald runs `{s['plan']}` while the C floor (`Benchmarks/floor/c-cue-loop.c … notify`: `clock_nanosleep` "
        "to each absolute instant, one sd-bus signal, then one libnotify notification) cues the same count and period "
        "half a period out of phase, in the same window, seen by the same monitor. Each contender's signals and its "
        "`Notify` calls are measured as jitter: how much later than its own best cue of the run (the smallest "
        "t(k) − k × period) each arrived, so that neither is judged by how late its cue 0 happened to be. The "
        "table gives intervald − the floor beside it, per run: the machine's noise in that window is the same for "
        "both, so the difference is what intervald adds. Targets: `SegmentStarted` p99 within "
        f"{SIGNAL_P99_MS:g} ms and p50 within {SIGNAL_P50_MS:g} ms of the floor's, `Notify` p99 within "
        f"{NOTIFY_P99_MS:g} ms of the C libnotify floor's. A run has {s['cues']} cues so that its p99 is a "
        "percentile, not nearly its largest cue: with 120, two identical C floors side by side "
        "(`Benchmarks/floor-beside-floor.py`) differed by up to 0.237 ms in `SegmentStarted` p99 and 2.169 ms in "
        "`Notify` p99 over five runs, over the targets with no intervald in the run; with 480, by at most 0.141 and "
        "0.510 ms over three rounds of five runs, which is why `Notify` is judged over the runs' cues together "
        "(Benchmarks/notes.md, \"Side by side: what one run can tell\").")
    add("")
    add("| run | SegmentStarted p50 / p99 / max (ms) | floor's p50 / p99 / max | intervald − floor | "
        "Notify p99 − floor's | MPRIS change after the signal p50 / p99 / max | CPU busy % | steal ms | "
        "daemon CPU ms/cue |")
    add("| ---: | --- | --- | --- | ---: | --- | ---: | ---: | ---: |")
    for number, r in enumerate(s["runs"], 1):
        sig, fl, diff = r["signal"] or {}, r["floor_signal"] or {}, r["difference"]
        ours = " / ".join(f"{sig.get(k, 0):.3f}" for k in ("p50_ms", "p99_ms", "max_ms"))
        floors = " / ".join(f"{fl.get(k, 0):.3f}" for k in ("p50_ms", "p99_ms", "max_ms"))
        d = diff.get("signal", {})
        gap = " / ".join(fmt(d.get(k)) for k in ("p50_ms", "p99_ms", "max_ms"))
        player = r.get("signal_to_mpris_change") or {}
        mpris = " / ".join(f"{player[k]:.3f}" for k in ("p50_ms", "p99_ms", "max_ms")) if player else "–"
        add(f"| {number} | {ours} | {floors} | {gap} | {fmt(diff.get('notify', {}).get('p99_ms'))} | {mpris} | "
            f"{r['machine_busy_percent']:.1f} | {r['steal_ms']} | {r['daemon_cpu_ms_per_cue']} |")
    add("")
    for event, label in (("signal", "SegmentStarted"), ("notify", "Notify")):
        for key in ("p50_ms", "p99_ms"):
            values = _differences(s, event, key)
            if values:
                add(f"- {label} {key[:3]} − floor over the runs: median {sorted(values)[len(values) // 2]:+.3f} ms, "
                    f"spread {min(values):+.3f} … {max(values):+.3f} ms.")
    pooled = s.get("notify_pooled") or {}
    if pooled.get("difference"):
        ours, floor = pooled["notify"], pooled["floor_notify"]
        add(f"- `Notify` over the {len(s['runs'])} runs' cues together ({ours['cues']} and {floor['cues']} cues, each "
            f"against its own run's best): intervald p50 / p99 / max {ours['p50_ms']:.3f} / {ours['p99_ms']:.3f} / "
            f"{ours['max_ms']:.3f} ms, the floor's {floor['p50_ms']:.3f} / {floor['p99_ms']:.3f} / "
            f"{floor['max_ms']:.3f}; **p99 − the floor's {pooled['difference']['p99_ms']:+.3f} ms** (the target's "
            "row: one run's `Notify` p99 differs between two identical floors by up to half a millisecond).")
    add("")
    return lines
