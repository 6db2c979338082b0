"""Statistics, targets and sanity checks: the raw data of the measurements → bench-results.json.

The sections of the original benchmark (lateness, cost, client, scale) are summarized here, because their tables
combine several measurements (the cost section draws on the cue runs, the idle windows, the soak and the floors);
a measurement that carries its own `summarize` adds its results under its KEY."""
import statistics

from .environment import machine_facts


def percentile(values, q):
    """Nearest-rank percentile."""
    ordered = sorted(values)
    if not ordered:
        return None
    rank = max(1, -(-q * len(ordered) // 100))
    return ordered[int(rank) - 1]


def slope(xs, ys):
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mean_x) ** 2 for x in xs)
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / den if den else 0.0


def lateness_stats(indexed_times, period_ns, unit_ns=1, base=None):
    """indexed_times: [k, t] pairs; the ideal instant of cue k is t(cue 0) + k × period (or base + k × period).
    Values in ms."""
    by_index = {}
    for k, t in indexed_times:
        by_index.setdefault(k, t * unit_ns)  # first arrival of an index
    if 0 not in by_index or len(by_index) < 2:
        return None
    base = by_index[0] if base is None else base
    ks = sorted(by_index)
    late = {k: (by_index[k] - base - k * period_ns) / 1e6 for k in ks}
    rest = [late[k] for k in ks if k != 0 or base != by_index[0]]
    last = ks[-1]
    return {
        "cues_seen": len(ks),
        "p50_ms": round(percentile(rest, 50), 3),
        "p99_ms": round(percentile(rest, 99), 3),
        "max_ms": round(max(rest), 3),
        "min_ms": round(min(rest), 3),
        "drift_ms": round(late[last] - late[0], 3),
        "slope_us_per_cue": round(slope(ks, [late[k] for k in ks]) * 1000, 2),
        "lateness_ms": [round(late[k], 3) for k in ks],
    }


def signal_to_mpris_change(signal_times, change_times):
    """How long after each SegmentStarted the MPRIS player's PropertiesChanged came (docs/reference.md §8; the first one before the
    next cue), ms: p50, p99, max over the cues."""
    changes = sorted(change_times)
    cue_times = sorted(t for _, t in signal_times)
    delays = []
    for i, t in enumerate(cue_times):
        following = next((c for c in changes if c >= t), None)
        if following is not None and (i + 1 == len(cue_times) or following < cue_times[i + 1]):
            delays.append((following - t) / 1e6)
    return {"cues": len(delays), "p50_ms": round(percentile(delays, 50), 3), "p99_ms": round(percentile(delays, 99), 3),
            "max_ms": round(max(delays), 3)} if delays else None


def dist(values):
    """n, p50, p90, min and max of a list of milliseconds."""
    return {"n": len(values), "p50_ms": round(percentile(values, 50), 2), "p90_ms": round(percentile(values, 90), 2),
            "min_ms": round(min(values), 2), "max_ms": round(max(values), 2)} if values else None


def summarize(raw, *, measurements, params, quick, command, build, started, finished, load_before, load_after,
              bin_dir):
    lat = raw["lateness"]
    period_ns = int(lat["period_ms"] * 1e6)
    n = lat["cues"]
    contenders = {
        "intervald_signal": lateness_stats(lat["intervald"]["signal_times_ns"], period_ns),
        "intervald_notify": lateness_stats(lat["intervald"]["notify_times_ns"], period_ns),
        "shell_notify": lateness_stats(lat["shell"]["notify_times_ns"], period_ns),
        "python_notify": lateness_stats(lat["python"]["notify_times_ns"], period_ns),
    }
    if "c_floor" in lat:
        contenders["c_floor_signal"] = lateness_stats(lat["c_floor"]["signal_times_ns"], period_ns)
    signal0 = next((t for k, t in lat["intervald"]["signal_times_ns"] if k == 0), None)
    vs_schedule = lateness_stats(lat["intervald"]["notify_times_ns"], period_ns, base=signal0) if signal0 else None
    bc = raw.get("busctl_cross_check", {}).get("signal_times_us")
    cross = lateness_stats(bc, period_ns, unit_ns=1000) if bc else None
    if cross:
        cross.pop("lateness_ms")

    # The GLib hop: SegmentStarted → Notify of the same cue.
    sig = {k: t for k, t in lat["intervald"]["signal_times_ns"]}
    hop = [(t - sig[k]) / 1e6 for k, t in lat["intervald"]["notify_times_ns"] if k in sig]
    hop_stats = {"p50_ms": round(percentile(hop, 50), 3), "p99_ms": round(percentile(hop, 99), 3),
                 "max_ms": round(max(hop), 3)} if hop else None

    mpris_stats = signal_to_mpris_change(lat["intervald"]["signal_times_ns"],
                                         lat["intervald"].get("mpris_change_times_ns", []))

    def ratio(a, b, key):
        if not a or not b or not a[key]:
            return None
        return round(abs(b[key]) / max(abs(a[key]), 1e-3), 1)

    ratios = {}
    for base in ("shell_notify", "python_notify"):
        for ours in ("intervald_signal", "intervald_notify"):
            ratios[f"{base}/{ours}"] = {key: ratio(contenders[ours], contenders[base], key)
                                        for key in ("p50_ms", "p99_ms", "max_ms", "drift_ms")}

    cost_run = lat["intervald"]["cost"]
    cpu = {
        "intervald_ms_per_cue": round(cost_run["cpu_ms"] / n, 3),
        "intervald_ms_per_cue_from_stat_ticks": round(cost_run["cpu_ms_from_stat_ticks"] / n, 3),
        "intervald_context_switches_per_cue": round(cost_run["context_switches"] / n, 1),
        "shell_ms_per_cue": round(lat["shell"]["cpu_ms"] / n, 3),
        "python_ms_per_cue": round(lat["python"]["cpu_ms"] / n, 3),
    }

    def wake(window):
        return {"seconds": window["seconds"], "context_switches": window["context_switches"],
                "thread_exits": window["thread_exits"], "wakeups": window["wakeups"],
                "wakeups_per_minute": window["wakeups_per_minute"], "cpu_ms": window["cpu_ms"],
                "threads": [t for t in window["threads"]
                            if t["voluntary"] + t["nonvoluntary"] > 0 or t["born_in_window"] or t["gone_at_end"]],
                "thread_count": len(window["threads"])}

    soak = raw.get("soak", {})
    soak_summary = None
    if soak.get("samples"):
        running = [s for s in soak["samples"] if s["phase"] == "running"]
        settled = [s for s in running if s["t"] >= min(30, soak["seconds"] / 4)]
        if len(settled) >= 2:
            soak_summary = {
                "plan": soak["plan"], "seconds": soak["seconds"],
                "rss_kb_idle_before": soak["samples"][0]["rss_kb"],
                "rss_kb_first_settled": settled[0]["rss_kb"], "rss_kb_last": running[-1]["rss_kb"],
                "rss_kb_min": min(s["rss_kb"] for s in settled), "rss_kb_max": max(s["rss_kb"] for s in settled),
                "growth_kb": running[-1]["rss_kb"] - settled[0]["rss_kb"],
                "slope_kb_per_minute": round(slope([s["t"] for s in settled], [s["rss_kb"] for s in settled]) * 60, 2),
                "rss_kb_after_finish": soak["samples"][-1]["rss_kb"], "hwm_kb": soak["hwm_kb"],
                "threads_max": max(s.get("threads", 0) for s in running),
                "state_after": soak["state_after"],
                "cpu_ms_per_cue": round(soak["cpu_ms"] / soak["seconds"], 3),
                "samples": [[s["t"], s["rss_kb"]] for s in soak["samples"]],
            }
        else:
            soak_summary = {"error": "too few samples"}
    elif soak:
        soak_summary = {"error": soak.get("error", "no data")}

    client = raw["client"]

    scale = raw["scale"]
    parse = scale["parse"]
    floor = statistics.median(parse["floor_ms"])
    best = min(r["ms"] for r in parse["runs"])
    net = max(best - floor, 1e-3)
    show_text = [r for r in scale["show_runs"] if not r["json"]]
    show_json = [r for r in scale["show_runs"] if r["json"]]
    scale_summary = {
        "show_plan": scale["show_plan"],
        "show_ms": round(min(r["ms"] for r in show_text), 1),
        "show_json_ms": round(min(r["ms"] for r in show_json), 1),
        "show_max_rss_kb": max(r["max_rss_kb"] for r in scale["show_runs"]),
        "show_exit": [r["exit"] for r in scale["show_runs"]],
        "show_excerpt": scale.get("show_excerpt", ""),
        "parse_bytes": parse["bytes"], "parse_lines": parse["lines"], "parse_segments": parse["steps"],
        "parse_ms": round(best, 1), "parse_floor_ms": round(floor, 1),
        "parse_mb_per_s": round(parse["bytes"] / 1e6 / (net / 1000), 1),
        "parse_lines_per_s": round(parse["lines"] / (net / 1000)),
        "parse_exit": [r["exit"] for r in parse["runs"]],
        "parse_output": parse["runs"][0]["output"].strip(),
    }

    results = {
        "schema": 1,
        "mode": "quick" if quick else "full",
        "command": command,
        "date": started.strftime("%Y-%m-%d %H:%M UTC"),
        "duration_minutes": round((finished - started).total_seconds() / 60, 1),
        "build": build,
        "machine": machine_facts(bin_dir),
        "load": {"before": load_before, "after": load_after,
                 "busy_percent_during": {name: lat[name]["machine_busy_percent"]
                                         for name in ("intervald", "shell", "python")},
                 "top_processes_during": {name: lat[name]["top_processes"]
                                          for name in ("intervald", "shell", "python")},
                 "harness_cpu_percent_during_intervald": lat["intervald"].get("harness_cpu_percent"),
                 "steal_ms_during": {name: lat[name].get("steal_ms") for name in ("intervald", "c_floor", "shell", "python")
                                     if name in lat}},
        "params": params,
        "lateness": {"cues": n, "period_ms": lat["period_ms"], "plan": lat["plan"], "contenders": contenders,
                     "intervald_notify_vs_schedule": vs_schedule,
                     "intervald_signal_to_notify": hop_stats, "intervald_signal_to_mpris_change": mpris_stats,
                     "ratios": ratios,
                     "busctl_monitor_cross_check": cross,
                     "baseline_exit_status": {"shell": lat["shell"]["exit_status"],
                                              "python": lat["python"]["exit_status"]}},
        "cost": {
            "idle_fresh": wake(raw["idle_fresh"]),
            "idle_after_workout": wake(raw["idle_after_workout"]),
            "running_between_cues": wake(raw["running"]),
            "settling": {"idle_fresh": wake(raw["idle_fresh_settle"]),
                         "idle_after_workout": wake(raw["idle_after_workout_settle"]),
                         "running_between_cues": wake(raw["running_settle"])},
            "during_cue_run": {"context_switches": cost_run["context_switches"], "seconds": cost_run["seconds"],
                               "threads": [t for t in cost_run["threads"]]},
            "cpu_per_cue": cpu,
            "rss_kb": {"fresh_idle": raw["rss_fresh_kb"], "idle_after_workout": raw["idle_after_workout"]["rss_kb_end"],
                       "running_max": cost_run["rss_kb_max"], "hwm": raw["idle_after_workout"]["hwm_kb_end"],
                       "fresh_idle_second_daemon": raw["idle_fresh"]["rss_kb_end"]},
            "soak": soak_summary,
            "footprint": {"fresh_idle": raw["footprint_fresh"], "after_workout": raw["footprint_after_workout"]},
            "floors": raw.get("floors"),
            "baseline_max_rss_kb": {"shell": lat["shell"]["max_rss_kb"], "python": lat["python"]["max_rss_kb"]},
        },
        "client": {
            "startup_version": dist(client["startup_version_ms"]),
            "start_running": dist(client["start_running_ms"]),
            "busctl_start_running": dist(client["busctl_start_running_ms"]),
            "status": dist(client["status_ms"]),
            "start_activation": dist(client.get("start_activation_ms", [])),
            "activation_error": client.get("activation_error"),
            "start_breakdown": {key: dist([r[key] for r in client.get("breakdown", [])])
                                for key in ("to_call_ms", "daemon_ms", "after_reply_ms", "total_ms")},
            "machine_busy_percent": client.get("machine_busy_percent"),
            "steal_ms": client.get("steal_ms"),
            "top_processes": client.get("top_processes"),
        },
        "scale": scale_summary,
    }
    results["cost"]["daemon_on_system_bus"] = raw.get("daemon_on_system_bus")
    results["targets"] = targets(results)
    for measurement in own_reports(measurements):
        summary = measurement.summarize(raw, params)
        results[measurement.KEY] = summary
        if hasattr(measurement, "targets"):
            results["targets"] += measurement.targets(summary)
    return results


def own_reports(measurements):
    """The measurements that summarize (and render) their own results."""
    return [m for m in measurements if hasattr(m, "summarize")]


def targets(r):
    c = r["lateness"]["contenders"]
    sig, shell = c["intervald_signal"], c["shell_notify"]
    cost = r["cost"]
    soak = cost["soak"] or {}
    rows = []

    def row(name, target, value, met, unit=""):
        rows.append({"name": name, "target": target, "value": value, "unit": unit, "met": met})

    if sig:
        noise = max(sig["p99_ms"], 0.1)
        row("cue lateness p99 (SegmentStarted)", "≤ 1 ms (docs/reference.md §6: < 2 ms)", sig["p99_ms"], sig["p99_ms"] <= 1.0, "ms")
        row("cue lateness max (SegmentStarted)", "≤ 5 ms (docs/reference.md §6: < 10 ms)", sig["max_ms"], sig["max_ms"] <= 5.0, "ms")
        row("drift, last cue − first", f"0 within noise (within ± the p99 lateness, {noise:.2f} ms)", sig["drift_ms"],
            abs(sig["drift_ms"]) <= noise, "ms")
        row("drift, least-squares slope over the run", "≈ 0 (slope × cues within ± the p99 lateness)",
            sig["slope_us_per_cue"], abs(sig["slope_us_per_cue"]) * r["lateness"]["cues"] / 1000 <= noise, "µs/cue")
    if shell and sig:
        row("the shell loop drifts by its spawn time per cue", "shell drift ≥ 100 × intervald's noise",
            shell["drift_ms"], shell["drift_ms"] >= 100 * max(abs(sig["drift_ms"]), sig["p99_ms"]), "ms")
    row("idle daemon wake-ups", "0 per minute", cost["idle_fresh"]["wakeups_per_minute"],
        cost["idle_fresh"]["wakeups"] == 0, "/min")
    row("idle daemon wake-ups after a workout", "0 per minute", cost["idle_after_workout"]["wakeups_per_minute"],
        cost["idle_after_workout"]["wakeups"] == 0, "/min")
    rss = max(cost["rss_kb"]["running_max"], cost["rss_kb"]["fresh_idle"], soak.get("rss_kb_max", 0)) / 1024
    row("RSS (max of idle, running, 10-minute plan)", "≤ 15 MiB", round(rss, 1), rss <= 15, "MiB")
    if soak.get("growth_kb") is not None:
        row("RSS growth over the long plan", "none (≤ 256 KiB, slope ≈ 0)", soak["growth_kb"],
            soak["growth_kb"] <= 256, "KiB")
    start = r["client"]["start_running"]
    if start:
        row("`intervalctl start` round trip, daemon running (p50)", "≤ 20 ms", start["p50_ms"], start["p50_ms"] <= 20, "ms")
    return rows


def sanity_problems(r, measurements):
    problems = []
    n = r["lateness"]["cues"]
    for name, stats in r["lateness"]["contenders"].items():
        if not stats:
            problems.append(f"{name}: no cues measured")
        elif stats["cues_seen"] < n:
            problems.append(f"{name}: {stats['cues_seen']} of {n} cues seen")
    for name, status in r["lateness"]["baseline_exit_status"].items():
        if status != 0:
            problems.append(f"{name} baseline exited with {status}")
    if not r["cost"]["soak"] or "error" in r["cost"]["soak"]:
        problems.append(f"RSS plan: {r['cost']['soak']}")
    if not r["client"]["start_activation"]:
        problems.append(f"activation: {r['client']['activation_error']}")
    if any(r["scale"]["show_exit"]) or any(r["scale"]["parse_exit"]):
        problems.append("plan show / plan check failed")
    for measurement in own_reports(measurements):
        if hasattr(measurement, "problems"):
            problems += measurement.problems(r[measurement.KEY])
    return problems


def headline(r, measurements):
    c = r["lateness"]["contenders"]
    parts = []
    for name in ("intervald_signal", "intervald_notify", "shell_notify", "python_notify"):
        s = c[name]
        if s:
            parts.append(f"{name}: p50 {s['p50_ms']} p99 {s['p99_ms']} max {s['max_ms']} drift {s['drift_ms']} ms")
    for measurement in own_reports(measurements):
        if hasattr(measurement, "headline"):
            parts.append(measurement.headline(r[measurement.KEY]))
    return "\n".join(parts)
