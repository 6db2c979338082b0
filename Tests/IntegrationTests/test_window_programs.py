"""Training programs in the window (docs/window.md, docs/programs.md), driven through AT-SPI as a person would,
against the real daemon on the test desktop: Couch to 5K's row on the Plans page and its Continue, its page with weeks
of days, Make Next and the page's Continue, the corrections in its menu (mark the next day done, start over), and the
idle Workout page's Continue. window_harness.py has the harness; like the other window files, this one sorts after
test_plasma.py."""
import json
import re

from conftest import ctl, wait_until
from window_harness import (accessibility_bus, daemon_environment, response, timer_property, window,  # noqa: F401
                            window_environment)


def status(tmp_path):
    return json.loads(ctl("status", "--json", env=window_environment(tmp_path)).stdout)


def progress(tmp_path):
    shown = ctl("program", "show", "c25k", "--json", env=window_environment(tmp_path))
    assert shown.returncode == 0, shown.stderr
    return json.loads(shown.stdout)


def test_continue_starts_the_next_day_and_the_program_page_corrects_it(window, tmp_path):
    window.tab("Plans")
    window.wait("label", re.compile(r"Next: Week 1, Day 1 \(30:00\) · 0 days done of 27"))
    # Continue on Couch to 5K's row: day 1.1 runs, named for its day. (The program's page has a Continue too, on a
    # page not shown, which GTK would not activate.)
    window.press("push button", "Continue", root=window.wait("list", "Training Programs"))
    wait_until(lambda: status(tmp_path).get("plan_name") == "Couch to 5K · Week 1, Day 1", 10, "day 1.1 running")
    assert ctl("stop").returncode == 0
    wait_until(lambda: timer_property("State") == '"idle"', 10, "the workout stopped")
    assert progress(tmp_path)["next"] == "1.1", "a stopped day is not done"

    # The program's page: its weeks of days, each with Start and Make Next; Mark Next Day Done moves it on, and the
    # page and the list follow.
    window.tab("Plans")
    window.press("push button", "Couch to 5K")
    window.usable("push button", "Back")
    week = window.wait("list", "Week 9")
    assert window.find("list item", "Day 3", root=week) and window.find("push button", "Make Next", root=week)
    window.menu("Mark Next Day Done", "Program Menu")
    wait_until(lambda: progress(tmp_path)["next"] == "1.2", 10, "day 1.1 marked done")
    window.wait("label", re.compile(r"Next: Week 1, Day 2 \(30:00\) · 1 day done of 27"))
    assert [c["how"] for c in progress(tmp_path)["done_days"]] == ["marked"]

    # Start Over asks first; then week 1, day 1 is next and nothing is done.
    window.menu("Start Over…", "Program Menu")
    window.press("push button", response("Start Over"))
    wait_until(lambda: progress(tmp_path)["next"] == "1.1" and progress(tmp_path)["done_days"] == [], 10,
               "the program started over")
    window.wait("label", re.compile(r"Next: Week 1, Day 1 \(30:00\) · 0 days done of 27"))


def test_the_idle_workout_page_continues_the_program_in_progress(window, tmp_path):
    # Nothing followed yet: Choose a Plan alone.
    window.tab("Workout")
    window.wait("push button", "Choose a Plan")
    assert not window.find("push button", re.compile(r"^Continue Couch to 5K"))
    # A day done (here by the command line, as the daemon does when a day finishes): the page offers the next one.
    assert ctl("program", "done", "c25k", env=window_environment(tmp_path)).returncode == 0
    window.press("push button", "Continue Couch to 5K: Week 1, Day 2")
    wait_until(lambda: status(tmp_path).get("plan_name") == "Couch to 5K · Week 1, Day 2", 10, "day 1.2 running")
    assert ctl("stop").returncode == 0


def test_make_next_on_a_day_and_the_pages_continue_start_that_day(window, tmp_path):
    window.tab("Plans")
    window.press("push button", "Couch to 5K")
    window.usable("push button", "Back")
    day = window.find("list item", "Day 2", root=window.wait("list", "Week 3"))
    window.press("push button", "Make Next", root=day)
    wait_until(lambda: progress(tmp_path)["next"] == "3.2", 10, "day 3.2 made next")
    window.wait("label", re.compile(r"Next: Week 3, Day 2 \(\d+:\d\d\) · 0 days done of 27"))
    # The page's Continue (the list's is on a page not shown).
    window.press("push button", "Continue", root=window.find("panel", "Couch to 5K"))
    wait_until(lambda: status(tmp_path).get("plan_name") == "Couch to 5K · Week 3, Day 2", 10, "day 3.2 running")
    assert ctl("stop").returncode == 0


def test_a_program_day_that_ends_offers_continue_on_the_finish_page(window, tmp_path):
    """After a program's day the finish page offered nothing: Continue belongs there (the day again, when stopped)."""
    window.tab("Plans")
    window.press("push button", "Continue", root=window.wait("list", "Training Programs"))
    wait_until(lambda: status(tmp_path).get("plan_name") == "Couch to 5K · Week 1, Day 1", 10, "day 1.1 running")
    assert ctl("stop").returncode == 0
    window.wait("label", "Workout Stopped", timeout=10)
    assert not window.find("push button", "Start Again")
    window.press("push button", "Continue Couch to 5K: Week 1, Day 1")
    wait_until(lambda: status(tmp_path).get("plan_name") == "Couch to 5K · Week 1, Day 1", 10, "day 1.1 again")
    assert ctl("stop").returncode == 0
