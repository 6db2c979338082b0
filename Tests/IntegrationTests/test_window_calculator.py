"""The Calculator page (docs/window.md), driven through AT-SPI as a person with a screen reader would: a pace solved
from a distance and a time, its splits, and the German decimal comma read and written (window_harness.py has the
window's harness)."""
import pytest

from conftest import desktop_required, has_locale, in_language, wait_until
from window_harness import Window, accessibility_bus, daemon_config, daemon_environment, window  # noqa: F401

pytestmark = desktop_required()


def test_the_calculator_solves_a_pace_from_a_distance_and_a_time(window):
    window.tab("Calculator")
    window.toggle("Solve Pace")
    window.type("Distance", "5")
    window.type("Time", "25:00")
    window.wait("label", "5:00/km, 12.0 km/h")
    window.toggle("Solve Time")
    window.type("Pace or speed", "4:30")
    window.wait("label", "22:30")
    # The splits are rows of a list: each its distance and the time at it, the last one the whole run.
    splits = window.wait("list", "Splits")
    wait_until(lambda: all(window.find("label", text, root=splits) for text in ("1 km", "4:30", "5 km", "22:30")), 5,
               "a split row per km, the last one 5 km at 22:30")


def test_the_german_calculator_reads_and_writes_the_decimal_comma(tmp_path):
    """In German the calculator shows 10,51 km and must read it back, as it reads 10,5 typed with the comma: it used
    to put its fields into the plan language as they were, where ',' separates items, so the next solve failed."""
    if not has_locale("de_DE.UTF-8"):
        pytest.skip("de_DE.UTF-8 is not generated (scripts/setup-deps)")
    window = Window(tmp_path, env=in_language("de_DE.UTF-8"))
    try:
        window.tab("Rechner")
        window.toggle("Tempo berechnen")
        window.type("Strecke", "10,5")
        window.type("Zeit", "55:00")
        window.wait("label", "5:14/km, 11,5 km/h")
        window.toggle("Strecke berechnen")
        window.wait("label", "10,51 km")
        window.toggle("Zeit berechnen")  # from the 10,51 the calculator wrote into the distance field
        window.wait("label", "55:00.140")  # 10.51 km at 5:14/km
    finally:
        window.close()
