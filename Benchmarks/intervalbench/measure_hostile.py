"""Cue lateness under hostile callers (issue 9): the same plan of short cues twice on a fresh daemon, side by side in
one run: once unloaded, once while clients (Benchmarks/hostile.py, one process each) flood the daemon over the bus
with property reads, method calls that fail, oversized plan texts (refused) and valid but costly plans. The C floor
(Benchmarks/floor/c-cue-loop.c) cues alongside intervald in both runs, at the same time: what the load costs any
process on this machine and bus, next to what it costs intervald. The monitor stamps the cues as in the main
lateness run. Also: what the clients got back, and the daemon's memory before, during and after the load."""
import json
import signal
import subprocess
import sys
import time

from .common import BENCH_DIR, log
from .measure_cue_floor import floor_cue_times
from .measure_cue_lateness import cue_plan, intervald_cue_times, warm_up
from .procstat import Window, busy_percent, cpu_busy, snapshot, steal_ms
from .summarize import lateness_stats

KEY = "hostile_callers"
NEEDS_QUIET_MACHINE = True
PARAMS = {"full": {"hostile_cues": 240}, "quick": {"hostile_cues": 12}}
# (what it sends, calls unanswered at a time): concurrent clients, each a process of its own.
CLIENTS = [("properties", 8), ("properties", 8), ("errors", 8), ("oversized", 1), ("pathological", 1)]
SENDS = {"properties": "`GetAll`, `Get(Elapsed)`",
         "errors": "`Resume` (InvalidState), `Start` replace=false (AlreadyRunning), an unknown method, "
                   "`Start` with wrong arguments",
         "oversized": "`Start` with 1 MiB + 1 KiB of plan text",
         "pathological": "`Start` replace=false with groups nested 32 deep, and with 2,000 distinct kinds (46 KB)"}
EVENTS = {"signal": "intervald `SegmentStarted`", "notify": "intervald `Notify`",
          "floor": "C floor alongside (signal)"}
# Issue 9: max lateness under hostile callers within 5 ms of the unloaded run's, beyond what the load costs any process.
TARGET_MS = 5.0


def hostile_plan(n, period):
    """n short cues, then a long segment: the clients stop while it runs. Were the workout to end under them, their
    Start calls (replace=false) would start another."""
    return f"{cue_plan(n, period)}, 1m rest"


def run(bench):
    n, period = bench.p["hostile_cues"], bench.p["period"]
    pid = bench.restart_daemon()
    time.sleep(1)
    warm_up(bench)
    log(f"hostile callers: {n} cues of {period * 1000:.0f} ms unloaded …")
    unloaded = cue_run(bench, n, period, [])
    time.sleep(2)
    rss_before = snapshot(pid)["rss_kb"]
    log(f"hostile callers: {n} cues of {period * 1000:.0f} ms while {len(CLIENTS)} clients flood the daemon …")
    loaded = cue_run(bench, n, period, CLIENTS)
    time.sleep(2)
    alive = bench.daemon.poll() is None and bench.name_owned()
    return {KEY: {"cues": n, "period_ms": period * 1000, "plan": hostile_plan(n, period), "unloaded": unloaded,
                  "loaded": loaded, "rss_kb_before_load": rss_before,
                  "rss_kb_after_load": snapshot(pid)["rss_kb"] if alive else None, "daemon_alive": alive}}


def cue_run(bench, n, period, clients):
    """Cues 0…n−1 of hostile_plan, measured, with the C floor's n cues alongside; `clients` flood from right after the
    Start call (cue 0, the reference, goes out while the daemon handles it) until cue n, the long segment, has
    arrived; then the workout is stopped."""
    processes = []
    for index, (kind, window) in enumerate(clients):
        out = bench.work / f"hostile-{index}-{kind}.json"
        process = subprocess.Popen([sys.executable, str(BENCH_DIR / "hostile.py"), "--window", str(window),
                                    "--go-on-stdin", kind, str(n * period + 60), str(out)],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        if process.stdout.readline().strip() != "ready":
            raise RuntimeError(f"the hostile client {kind} did not start")
        processes.append((process, out))
    busy0, t0 = cpu_busy(), time.monotonic_ns()
    window = Window(bench.pid, interval=1.0)
    bench.call("Start", "ssb", hostile_plan(n, period), "", "false")
    for process, _ in processes:
        process.stdin.write("go\n")
        process.stdin.flush()
    floor = subprocess.Popen([bench.cue_floor, str(n), str(int(period * 1000))])
    time.sleep(n * period)
    floor.wait(timeout=30)
    bench.wait_for_message(lambda m: m.get("member") == "SegmentStarted" and m["args"][:1] == [n], t0, 30,
                           "the last measured cue", poll=0.05)
    results = []
    for process, _ in processes:
        process.send_signal(signal.SIGTERM)
    for process, out in processes:
        process.wait(timeout=30)
        results.append(json.loads(out.read_text()))
    cost = window.finish()
    t1 = time.monotonic_ns()
    bench.call("Stop")
    events = bench.events(bench.monitor_path, t0, t1)
    signal_times, notify_times = intervald_cue_times(events)
    return {"signal_times_ns": [[k, t] for k, t in signal_times if k < n],
            "notify_times_ns": [[k, t] for k, t in notify_times if k < n],
            "floor_times_ns": floor_cue_times(events)[0],
            "floor_exit_status": floor.returncode,
            "machine_busy_percent": busy_percent(busy0, cpu_busy()), "steal_ms": steal_ms(busy0, cpu_busy()),
            "daemon_cpu_ms": cost["cpu_ms"], "rss_kb_max": cost["rss_kb_max"], "clients": results}


def summarize(raw, params):
    h = raw[KEY]
    period_ns = int(h["period_ms"] * 1e6)
    summary = {"cues": h["cues"], "period_ms": h["period_ms"], "plan": h["plan"]}
    for run_name in ("unloaded", "loaded"):
        r = h[run_name]
        stats = {}
        for event in EVENTS:
            s = lateness_stats(r[f"{event}_times_ns"], period_ns)
            if s:
                s.pop("lateness_ms")
                s["missed"] = h["cues"] - s["cues_seen"]
            stats[event] = s
        summary[run_name] = {**stats, "machine_busy_percent": r["machine_busy_percent"], "steal_ms": r["steal_ms"],
                             "daemon_cpu_ms": r["daemon_cpu_ms"], "rss_kb_max": r["rss_kb_max"],
                             "clients": r["clients"]}
    summary["memory_kb"] = {"before_load": h["rss_kb_before_load"], "max_under_load": h["loaded"]["rss_kb_max"],
                            "after_load": h["rss_kb_after_load"]}
    summary["daemon_alive"] = h["daemon_alive"]
    unloaded, loaded = summary["unloaded"]["signal"], summary["loaded"]["signal"]
    summary["max_difference_ms"] = round(loaded["max_ms"] - unloaded["max_ms"], 3) if unloaded and loaded else None
    floor_unloaded, floor_loaded = summary["unloaded"]["floor"], summary["loaded"]["floor"]
    summary["floor_max_difference_ms"] = (round(floor_loaded["max_ms"] - floor_unloaded["max_ms"], 3)
                                          if floor_unloaded and floor_loaded else None)
    summary["floor_exit_status"] = [h[run_name]["floor_exit_status"] for run_name in ("unloaded", "loaded")]
    return summary


def load_cost_to_any_process(s):
    """What the load cost the C floor alongside, which does nothing for the callers: its max loaded − unloaded, ms (0 if
    it was no later). The two cores are shared with the clients and dbus-daemon; a process that only sleeps to each
    instant is made that much later by them alone (Benchmarks/notes.md, "Hostile callers: what the load costs any
    process")."""
    return max(s["floor_max_difference_ms"] or 0.0, 0.0)


def targets(s):
    unloaded, loaded = s["unloaded"]["signal"], s["loaded"]["signal"]
    if not unloaded or not loaded or s["floor_max_difference_ms"] is None:
        return []
    machine = load_cost_to_any_process(s)
    return [{"name": "cue lateness max under hostile callers (SegmentStarted)",
             "target": f"≤ the unloaded run's max + {TARGET_MS:g} ms + what the load cost the C floor beside it "
                       f"({unloaded['max_ms']:.3f} + {TARGET_MS:g} + {machine:.3f})",
             "value": loaded["max_ms"], "unit": "ms",
             "met": loaded["max_ms"] <= unloaded["max_ms"] + TARGET_MS + machine}]


def problems(s):
    found = []
    for run_name in ("unloaded", "loaded"):
        for event in EVENTS:
            stats = s[run_name][event]
            if not stats:
                found.append(f"hostile callers, {run_name}: no {event} cues measured")
            elif stats["missed"]:
                found.append(f"hostile callers, {run_name}: {stats['missed']} of {s['cues']} {event} cues missed")
    for client in s["loaded"]["clients"]:
        if not client["replies"] or client["unanswered"]:
            found.append(f"hostile client {client['kind']}: {client['replies']} replies, "
                         f"{client['unanswered']} unanswered")
    if any(s["floor_exit_status"]):
        found.append(f"hostile callers: the C floor exited with {s['floor_exit_status']}")
    if not s["daemon_alive"]:
        found.append("hostile callers: the daemon did not survive")
    return found


def headline(s):
    u, lo, fl = s["unloaded"]["signal"] or {}, s["loaded"]["signal"] or {}, s["loaded"]["floor"] or {}
    return (f"hostile callers: unloaded p99 {u.get('p99_ms')} max {u.get('max_ms')} ms; "
            f"loaded p99 {lo.get('p99_ms')} max {lo.get('max_ms')} ms, {lo.get('missed')} missed; "
            f"C floor alongside, loaded: max {fl.get('max_ms')} ms")


def render(s, results):
    def fmt(value, digits=3):
        return "–" if value is None else f"{value:.{digits}f}" if isinstance(value, float) else str(value)

    lines = ["## Cue lateness under hostile callers", ""]
    add = lines.append
    add(f"The same plan `{s['plan']}` twice on a freshly started daemon, back to back in one run: unloaded, then "
        f"while {len(s['loaded']['clients'])} clients (`Benchmarks/hostile.py`, one process each) flood the daemon "
        "over the session bus from right after the `Start` call (cue 0, the reference, goes out while the daemon "
        "handles it) until the last measured cue has arrived (the plan ends with a long segment, during which the "
        "clients stop and the workout is stopped). Each client sends its calls as "
        "fast as the replies come back, with a fixed number left unanswered at a time. None of them stops, pauses, "
        "skips or replaces the workout. Lateness is measured as in the section above, by the same monitor, against "
        "cue 0 of each run. The C floor (`Benchmarks/floor/c-cue-loop.c`) cues alongside intervald in both runs, at the "
        "same time, against its own cue 0: what the load costs any process on this machine and bus. Missed = cues "
        "whose signal or `Notify` never reached the monitor.")
    add("")
    add("| run | event | p50 ms | p99 ms | max ms | min ms | drift ms | missed | CPU busy % | steal ms | "
        "daemon CPU ms |")
    add("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for run_name, label in (("unloaded", "unloaded"), ("loaded", "hostile callers")):
        r = s[run_name]
        for event, event_label in EVENTS.items():
            st = r[event]
            if st:
                add(f"| {label} | {event_label} | {fmt(st['p50_ms'])} | {fmt(st['p99_ms'])} | {fmt(st['max_ms'])} | "
                    f"{fmt(st['min_ms'])} | {fmt(st['drift_ms'])} | {st['missed']} | "
                    f"{fmt(r['machine_busy_percent'], 1)} | {r['steal_ms']} | {fmt(r['daemon_cpu_ms'], 1)} |")
            else:
                add(f"| {label} | {event_label} | – | – | – | – | – | all | | | |")
    add("")
    if s["max_difference_ms"] is not None:
        add(f"Max lateness under hostile callers − unloaded: intervald's `SegmentStarted` "
            f"**{s['max_difference_ms']:+.3f} ms**; the C floor alongside, which serves none of the callers, "
            f"{fmt(s['floor_max_difference_ms'])} ms. Target: intervald's move at most {TARGET_MS:g} ms more than the "
            f"floor's (the floor's counted when positive): **{s['max_difference_ms'] - load_cost_to_any_process(s):+.3f} "
            "ms** more.")
        add("")
    add("What the clients sent and got back during the loaded run (reply time: from sending a call to reading its "
        "reply, at the client):")
    add("")
    add("| client | sends | window | calls | replies/s | errors by name | reply p50 ms | p99 ms | max ms |")
    add("| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: |")
    for c in s["loaded"]["clients"]:
        errors = ", ".join(f"{name.rsplit('.', 1)[-1]} {count}" for name, count in sorted(c["errors_by_name"].items()))
        reply = c["reply_ms"] or {}
        add(f"| {c['kind']} | {SENDS.get(c['kind'], '')} | {c['window']} | {c['sent']} | "
            f"{c['replies'] / c['seconds']:.0f} | {errors or 'none'} | {fmt(reply.get('p50'))} | "
            f"{fmt(reply.get('p99'))} | {fmt(reply.get('max'))} |")
    add("")
    m = s["memory_kb"]
    add(f"Daemon RSS: {m['before_load'] / 1024:.1f} MiB before the load, at most {m['max_under_load'] / 1024:.1f} MiB "
        f"under it (sampled every second), "
        + (f"{m['after_load'] / 1024:.1f} MiB 2 s after it; " if m["after_load"] is not None else "")
        + ("the daemon lived through it." if s["daemon_alive"] else "**the daemon did not survive**."))
    return lines
