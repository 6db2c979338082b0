"""scripts/check-docs: the names the docs spell in backticks exist (issue 14: docs that stay true)."""
import json
import subprocess

from conftest import REPO

CHECK = REPO / "scripts" / "check-docs"


def check(*paths):
    return subprocess.run([str(CHECK), *map(str, paths)], capture_output=True, text=True, timeout=60)


def test_the_tree_passes():
    result = check()
    assert (result.returncode, result.stdout) == (0, ""), result.stdout


def test_a_stale_name_is_reported_with_its_line(tmp_path):
    # This file is part of the tree the check reads, so the stale names must not stand in it.
    # Each misspelt word is split, so that no word of this file spells it whole.
    stale = [("WorkoutSes" + "ion", "type"), ("scripts/ts" + "et", "path"), ("[sound] vo" + "ise", "setting"),
             ("org.intervald.Timer1.Str" + "at", "D-Bus name"), ("Scheduler.restartSeg" + "mnet()", "member")]
    doc = tmp_path / "stale.md"
    doc.write_text("Fine: `WorkoutSession`, `scripts/test`, `[sound] voice`, `org.intervald.Timer1.Start`.\n"
                   "```\n`NotChecked` inside a fence\n```\n"
                   "Stale: " + ", ".join(f"`{name}`" for name, _ in stale) + ".\n")
    result = check(doc)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [f"{doc}:5: `{name}` not found ({kind})" for name, kind in stale]


def figures(notes):
    return subprocess.run([str(CHECK), "--figures", str(notes)], capture_output=True, text=True, timeout=60)


def test_a_typed_figure_the_last_run_contradicts_is_reported(tmp_path):
    # The review's case: the notes said p50 12.9 ms where docs/benchmarks.md's table, from bench-results.json, says
    # 16.06. Named by its row the line passes; typed as the table renders it, too; typed stale, it fails.
    row = 'row "`intervalctl start` round trip, daemon running (p50)"'
    notes = tmp_path / "notes.md"
    notes.write_text(f"**`intervalctl start` ≤ 20 ms with the daemon running** ({row}).\n")
    assert (figures(notes).returncode, figures(notes).stdout) == (0, "")
    # The figure as the last run measured it (16.06 ms in the review's run).
    measured = json.loads((REPO / "bench-results.json").read_text())["client"]["start_running"]["p50_ms"]
    notes.write_text(f"**`intervalctl start` ≤ 20 ms with the daemon running (p50 {measured} ms).**\n")
    assert (figures(notes).returncode, figures(notes).stdout) == (0, "")
    notes.write_text("Intro.\n\n**`intervalctl start` ≤ 20 ms with the daemon running: met (p50 12.9 ms).**\n")
    result = figures(notes)
    assert result.returncode == 1
    assert result.stdout.startswith(f"{notes}:3: '12.9 ms': 12.9 is not a figure of the last run"), result.stdout
    # A dated figure is history and stays typed; a row that does not exist is reported.
    notes.write_text("On 2026-11-22 the same measure was 12.9 ms. See row \"intervalctl stat\".\n")
    result = figures(notes)
    assert result.stdout.splitlines() == [f'{notes}:1: row "intervalctl stat" is not a row of docs/benchmarks.md\'s '
                                          "tables"]
