"""/proc sampling of a process and all of its threads, and of the machine's CPU use."""
import re
import sys
import threading
import time
from pathlib import Path

from .common import BENCH_DIR, CLK_TCK


def read_task(pid, tid):
    base = Path(f"/proc/{pid}/task/{tid}")
    status = (base / "status").read_text()
    vol = int(re.search(r"^voluntary_ctxt_switches:\s*(\d+)", status, re.M).group(1))
    nonvol = int(re.search(r"^nonvoluntary_ctxt_switches:\s*(\d+)", status, re.M).group(1))
    cpu_ns = int((base / "schedstat").read_text().split()[0])
    return {"name": (base / "comm").read_text().strip(), "vol": vol, "nonvol": nonvol, "cpu_ns": cpu_ns}


def snapshot(pid):
    tasks = {}
    for entry in Path(f"/proc/{pid}/task").iterdir():
        try:
            tasks[int(entry.name)] = read_task(pid, entry.name)
        except (OSError, AttributeError, ValueError):
            pass
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2:].split()
    status = Path(f"/proc/{pid}/status").read_text()
    rss = int(re.search(r"^VmRSS:\s*(\d+)", status, re.M).group(1))
    hwm = int(re.search(r"^VmHWM:\s*(\d+)", status, re.M).group(1))
    return {"time": time.monotonic(), "tasks": tasks, "utime_stime_ticks": int(fields[11]) + int(fields[12]),
            "rss_kb": rss, "hwm_kb": hwm, "threads": len(tasks)}


def footprint(pid):
    if str(BENCH_DIR) not in sys.path:
        sys.path.insert(0, str(BENCH_DIR))
    import footprint as fp  # Benchmarks/footprint.py
    result = fp.breakdown(pid)
    result["mappings"] = result["mappings"][:15]
    return result


class Window:
    """Samples a process's threads over a window; threads born or gone in between are counted from what was seen."""

    def __init__(self, pid, interval=0.2):
        self.pid, self.interval = pid, interval
        self.first = snapshot(pid)
        self.seen_first = {tid: dict(t) for tid, t in self.first["tasks"].items()}
        self.seen_last = {tid: dict(t) for tid, t in self.first["tasks"].items()}
        self.born = set()
        self.rss_max = self.first["rss_kb"]
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _sample(self):
        snap = snapshot(self.pid)
        for tid, task in snap["tasks"].items():
            if tid not in self.seen_first:
                self.born.add(tid)
                self.seen_first[tid] = {**task, "vol": 0, "nonvol": 0, "cpu_ns": 0}
            self.seen_last[tid] = task
        self.rss_max = max(self.rss_max, snap["rss_kb"])
        return snap

    def _loop(self):
        while not self.stop_event.wait(self.interval):
            try:
                self._sample()
            except OSError:
                return

    def finish(self):
        self.stop_event.set()
        self.thread.join()
        last = self._sample()
        seconds = last["time"] - self.first["time"]
        threads = []
        for tid, first in sorted(self.seen_first.items()):
            end = self.seen_last[tid]
            threads.append({
                "tid": tid, "name": end["name"], "born_in_window": tid in self.born,
                "gone_at_end": tid not in last["tasks"],
                "voluntary": end["vol"] - first["vol"], "nonvoluntary": end["nonvol"] - first["nonvol"],
                "cpu_ms": round((end["cpu_ns"] - first["cpu_ns"]) / 1e6, 3),
            })
        # A thread that exits had to wake up to do so; its last switches may fall between two samples.
        exits = sum(1 for t in threads if t["gone_at_end"])
        switches = sum(t["voluntary"] + t["nonvoluntary"] for t in threads)
        return {
            "seconds": round(seconds, 3),
            "context_switches": switches,
            "thread_exits": exits,
            "wakeups": switches + exits,
            "wakeups_per_minute": round((switches + exits) * 60 / seconds, 2),
            "cpu_ms": round(sum(t["cpu_ms"] for t in threads), 3),
            "cpu_ms_from_stat_ticks": (last["utime_stime_ticks"] - self.first["utime_stime_ticks"]) * 1000 / CLK_TCK,
            "threads": threads,
            "rss_kb_start": self.first["rss_kb"], "rss_kb_end": last["rss_kb"], "rss_kb_max": self.rss_max,
            "hwm_kb_end": last["hwm_kb"],
        }


def cpu_busy():
    """Jiffies (busy, total, steal) of all CPUs, from /proc/stat. Steal: time the hypervisor ran something else
    while one of this machine's virtual CPUs wanted to run."""
    values = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]
    steal = values[7] if len(values) > 7 else 0
    return sum(values) - idle, sum(values), steal


def steal_ms(before, after):
    return (after[2] - before[2]) * 1000 // CLK_TCK


def process_ticks():
    """CPU ticks (user + system, children excluded) of every process, by pid: (comm, ticks)."""
    out = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            stat = (proc / "stat").read_text()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        out[int(proc.name)] = (comm, int(fields[11]) + int(fields[12]))
    return out


def top_processes(before, after, seconds, count=6):
    """The processes that used the most CPU between two process_ticks() snapshots, as % of one CPU."""
    used = []
    for pid, (comm, ticks) in after.items():
        delta = ticks - before.get(pid, (comm, 0))[1]
        if delta > 0:
            used.append((delta, comm, pid))
    used.sort(reverse=True)
    return [{"comm": comm, "pid": pid, "cpu_percent": round(100 * delta / CLK_TCK / seconds, 1)}
            for delta, comm, pid in used[:count]]


def busy_percent(before, after):
    busy, total = after[0] - before[0], after[1] - before[1]
    return round(100 * busy / total, 1) if total else None
