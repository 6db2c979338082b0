#!/usr/bin/env python3
"""Where a process's resident memory is: /proc/PID/smaps summed per mapped file (or [heap], [anon], [stack]).

    footprint.py PID [--json] [--top N]

Prints RSS, PSS and USS (private clean + private dirty) per mapping source, largest RSS first, and the totals.
RSS counts every resident page, including library pages shared with other processes; PSS divides shared pages by
the number of processes mapping them; USS is what exiting this process would free. Standard library only.
"""
import json
import re
import sys
from collections import defaultdict

FIELDS = ("Rss", "Pss", "Private_Clean", "Private_Dirty", "Shared_Clean", "Shared_Dirty", "Anonymous", "Swap")


def breakdown(pid):
    totals = defaultdict(lambda: defaultdict(int))
    current = None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            head = re.match(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \d+\s*(.*)$", line)
            if head:
                name = head.group(4).strip() or "[anon]"
                if name.startswith("[anon:") or name.startswith("[stack:"):
                    name = "[anon]"
                current = totals[name]
                current["mappings"] += 1
                continue
            field = re.match(r"^(\w+):\s+(\d+) kB", line)
            if field and current is not None and field.group(1) in FIELDS:
                current[field.group(1)] += int(field.group(2))
    rows = []
    for name, values in totals.items():
        rows.append({"name": name, "rss_kb": values["Rss"], "pss_kb": values["Pss"],
                     "uss_kb": values["Private_Clean"] + values["Private_Dirty"],
                     "private_dirty_kb": values["Private_Dirty"], "shared_clean_kb": values["Shared_Clean"],
                     "anonymous_kb": values["Anonymous"]})
    rows.sort(key=lambda r: -r["rss_kb"])
    total = {key: sum(r[key] for r in rows) for key in ("rss_kb", "pss_kb", "uss_kb", "private_dirty_kb",
                                                         "shared_clean_kb", "anonymous_kb")}
    file_backed = sum(r["rss_kb"] for r in rows if r["name"].startswith("/"))
    return {"total": total, "file_backed_rss_kb": file_backed, "mappings": rows}


def main():
    pid = int(sys.argv[1])
    top = int(sys.argv[sys.argv.index("--top") + 1]) if "--top" in sys.argv else 25
    result = breakdown(pid)
    if "--json" in sys.argv:
        print(json.dumps(result, indent=2))
        return
    print(f"{'RSS kB':>8} {'PSS kB':>8} {'USS kB':>8} {'anon kB':>8}  mapping")
    for r in result["mappings"][:top]:
        print(f"{r['rss_kb']:>8} {r['pss_kb']:>8} {r['uss_kb']:>8} {r['anonymous_kb']:>8}  {r['name']}")
    t = result["total"]
    print(f"{t['rss_kb']:>8} {t['pss_kb']:>8} {t['uss_kb']:>8} {t['anonymous_kb']:>8}  total "
          f"(file-backed RSS {result['file_backed_rss_kb']} kB)")


if __name__ == "__main__":
    main()
