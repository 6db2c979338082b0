"""Client round trips as a shell user sees them: `intervalctl start` with the daemon running and by D-Bus activation,
`intervalctl status`, process start-up alone, busctl for comparison; and where `intervalctl start` spends its time,
from a monitor's view of its Start call."""
import os
import signal
import subprocess
import time
from pathlib import Path

from .common import OBJECT, SERVICE, log
from .procstat import busy_percent, cpu_busy, process_ticks, steal_ms, top_processes


def run(bench):
    busy0, ticks0, t0 = cpu_busy(), process_ticks(), time.monotonic()
    client = roundtrips(bench)
    client["breakdown"] = roundtrip_breakdown(bench)
    client["machine_busy_percent"] = busy_percent(busy0, cpu_busy())
    client["steal_ms"] = steal_ms(busy0, cpu_busy())
    client["top_processes"] = top_processes(ticks0, process_ticks(), time.monotonic() - t0)
    return {"client": client}


def roundtrip_breakdown(bench):
    """Where `intervalctl start` spends its time, from the monitor's view of its Start call and the reply."""
    ctl = str(bench.bin / "intervalctl")
    path = bench.work / "busmon-start.jsonl"
    monitor = bench.start_monitor(path, ["type='method_call',interface='org.intervald.Timer1',member='Start'",
                                        "type='method_return',sender='org.intervald.Timer1'",
                                        "type='error',sender='org.intervald.Timer1'"])
    bench.start_daemon()
    time.sleep(1)
    runs = []
    for _ in range(bench.p["roundtrips"]):
        t0 = time.monotonic_ns()
        subprocess.run([ctl, "start", "--replace", "-e", "2x(30s work)"], check=True, stdout=subprocess.DEVNULL)
        t1 = time.monotonic_ns()
        time.sleep(0.05)
        events = bench.events(path, t0, t1)
        calls = [m for m in events if m["type"] == "method_call" and m.get("member") == "Start"]
        if not calls:
            continue
        call = calls[0]
        replies = [m for m in events if m["type"] in ("method_return", "error")
                   and m.get("reply_serial") == call["serial"] and m.get("destination") == call.get("sender")]
        if not replies:
            continue
        runs.append({"to_call_ms": (call["t"] - t0) / 1e6, "daemon_ms": (replies[0]["t"] - call["t"]) / 1e6,
                     "after_reply_ms": (t1 - replies[0]["t"]) / 1e6, "total_ms": (t1 - t0) / 1e6})
    bench.call("Stop")
    monitor.send_signal(signal.SIGTERM)
    monitor.wait(timeout=10)
    return runs


def roundtrips(bench):
    p = bench.p
    ctl = str(bench.bin / "intervalctl")
    out = {}
    log("client round trips …")
    plan = "2x(30s work)"
    out["startup_version_ms"] = bench.timed([ctl, "--version"], p["roundtrips"])
    out["start_running_ms"] = bench.timed([ctl, "start", "--replace", "-e", plan], p["roundtrips"])
    bench.call("Stop")
    out["busctl_start_running_ms"] = bench.timed(
        ["busctl", "--user", "call", SERVICE, OBJECT, SERVICE, "Start", "ssb", plan, "", "true"], p["roundtrips"])
    bench.call("Stop")
    out["status_ms"] = bench.timed([ctl, "status"], p["roundtrips"])
    bench.stop_daemon()

    service_dir = os.environ.get("INTERVALD_TEST_DBUS_SERVICE_DIR")
    if not service_dir:
        out["activation_error"] = "the test desktop has no service directory"
        return out
    service = Path(service_dir) / f"{SERVICE}.service"
    service.write_text(f"[D-BUS Service]\nName={SERVICE}\n"
                       f"Exec=/usr/bin/env DBUS_SYSTEM_BUS_ADDRESS={os.environ['DBUS_SYSTEM_BUS_ADDRESS']} "
                       f"{bench.bin / 'intervald'} --config {bench.settings} --log-level warning\n")
    subprocess.run(["busctl", "--user", "call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
                    "org.freedesktop.DBus", "ReloadConfig"], check=False, capture_output=True)
    times = []
    for _ in range(p["activations"]):
        t0 = time.perf_counter()
        subprocess.run([ctl, "start", "-e", plan], check=True, stdout=subprocess.DEVNULL)
        times.append((time.perf_counter() - t0) * 1000)
        pid = bench.owner_pid()
        if pid:
            os.kill(pid, signal.SIGTERM)
        bench.wait_for(lambda: not bench.name_owned(), 20, "the activated intervald to exit")
        time.sleep(0.2)
    out["start_activation_ms"] = times
    service.unlink()
    subprocess.run(["busctl", "--user", "call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
                    "org.freedesktop.DBus", "ReloadConfig"], check=False, capture_output=True)
    return out
