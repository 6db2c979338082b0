"""The History page (docs/window.md), read through AT-SPI as a screen reader reads it: with no history, with one that
cannot be read, and in German, its dates in the local time zone (window_harness.py has the window's harness)."""
import json
import re
from pathlib import Path

import pytest

from conftest import desktop_required, has_locale, in_language
from window_harness import Window, accessibility_bus, history_line, window_environment  # noqa: F401

pytestmark = desktop_required()


@pytest.mark.skipif(not has_locale("de_DE.UTF-8"), reason="de_DE.UTF-8 is not generated (scripts/setup-deps)")
def test_the_history_in_german_shows_german_dates_and_reasons_in_the_local_time_zone(tmp_path):
    history = Path(window_environment(tmp_path)["XDG_STATE_HOME"]) / "intervald" / "history.jsonl"
    history.parent.mkdir(parents=True)
    # 2026-03-28 23:30 UTC: Sunday 29 March 00:30 in Berlin, whose clocks go forward that night.
    # On a treadmill: its average speed and distance with the German decimal comma.
    line = json.loads(history_line("Morgenlauf", 1_774_740_600, "stopped", "user"))
    line["machine_summary"] = {"distance": 5200, "avg_speed": 10.44, "max_speed": 12}
    history.write_text(json.dumps(line) + "\n")
    window = Window(tmp_path, env={**in_language("de_DE.UTF-8"), "TZ": "Europe/Berlin"})
    try:
        window.tab("Verlauf")
        # How it ended in words, not the reason's id ("abgebrochen (Benutzer)").
        window.wait("label", "Morgenlauf — von Ihnen abgebrochen")
        # The kind by its German name ("run" showed raw, as the legend did).
        window.wait("label", re.compile(r"29\.03\.2026 00:30 · Laufen 1:00 · 10,4 km/h Ø · 5,20 km"))
    finally:
        window.close()


def test_no_history_is_a_status_page_and_an_unreadable_one_an_error(tmp_path):
    state = Path(window_environment(tmp_path)["XDG_STATE_HOME"]) / "intervald"
    state.mkdir(parents=True)

    def history_page_says(title):
        window = Window(tmp_path)
        try:
            window.tab("History")
            window.wait("label", title)
        finally:
            window.close()

    history_page_says("No Workouts Yet")
    # A directory where the file should be cannot be read: said as an error, not as "no workouts".
    (state / "history.jsonl").mkdir()
    history_page_says("The History Cannot Be Read")
