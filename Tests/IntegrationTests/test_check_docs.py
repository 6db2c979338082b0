"""scripts/check-docs: the names the docs spell in backticks exist (issue 14: docs that stay true)."""
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
