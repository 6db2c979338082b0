"""Steps the person ends in the window (docs/window.md): the big button reads Done and the digits count up during one,
Done and Right end it; totals say "+ N open steps"; the editor's duration field takes `open` and distances and its
rows say "until Done"; a `400m` is a note, not an error. Driven through AT-SPI as a person with a screen reader would,
against the real daemon on the test desktop (window_harness.py has the window's harness)."""
import re

import pytest

from conftest import ctl, has_locale, in_language, wait_until
from test_window_editor import editor_closed, editor_text, editor_total, fill, own_plans, row
from window_harness import (Window, accessibility_bus, daemon_environment, focus_window_on_screen,  # noqa: F401
                            key, marked_invalid, response, timer_property, window, xdotool_required)

TRACK = "open warmup, 2x(0.4km run, 10s walk)"


def big_button(window, name, pause="Pause"):
    """The workout's Skip (or Done), found beside its Pause: the finish page has a Done button of its own."""
    pause = window.usable("push button", pause)
    return wait_until(lambda: window.find("push button", name, root=pause.get_parent()), 5, f"the big {name} button")


def seconds(shown):
    minutes, rest = shown.split(":")
    return int(minutes) * 60 + int(rest)


def counts_up(window, by):
    """Waits until the digits have counted `by` seconds up from what they read first, each reading later than the one
    before (a slow reading may miss a second); returns the last. The daemon's step has played at least that long."""
    seen = [wait_until(window.countdown, 5, "the digits")]

    def reached():
        shown = window.countdown()
        if shown is not None and shown != seen[-1]:
            assert seconds(shown) > seconds(seen[-1]), seen + [shown]
            seen.append(shown)
        return seconds(seen[-1]) >= seconds(seen[0]) + by

    wait_until(reached, by + 5, f"the digits to count up {by} s from {seen[0]}")
    assert int(timer_property("SegmentElapsed")) >= seconds(seen[-1]) * 1_000_000
    return seen[-1]


@xdotool_required
def test_an_open_step_counts_up_until_done_and_right_ends_the_next_one(window):
    assert ctl("start", "-e", TRACK).returncode == 0
    window.wait("label", "Warm-up")
    done = big_button(window, "Done")
    assert window.find("push button", "Skip", root=done.get_parent()) is None
    window.wait("label", "Done when you are ready · Next: Run")
    # The digits count up, and the daemon still holds the step two seconds later; the workout's time counts with them
    # while the plan's 0:20 wait.
    counted = counts_up(window, 2)
    assert timer_property("SegmentIndex") == "0" and timer_property("Open") == "true"
    window.wait("label", re.compile(rf"0:0[{seconds(counted)}-9] elapsed · 0:20 left after this step"))

    window.press("push button", "Done", root=done.get_parent())
    wait_until(lambda: timer_property("SegmentIndex") == "1", 5, "Done to end the warm-up")
    assert timer_property("Open") == "true", "0.4km without a pace is ended by the person too"
    window.wait("label", "Run")
    window.wait("label", "Done when you get there · Next: Walk")
    counts_up(window, 1)

    # Right ends it as Done does; the walk after it is timed: Skip, counting down from 0:10.
    focus_window_on_screen(window)
    key("Right")
    wait_until(lambda: timer_property("SegmentIndex") == "2", 5, "Right to end the run")
    assert timer_property("Open") == "false"
    big_button(window, "Skip")
    shown = wait_until(lambda: window.countdown() if window.find("label", "Walk") else None, 5, "the walk's digits")
    # Its time left, rounded up, read before the daemon's.
    left = -(-int(timer_property("SegmentRemaining")) // 1_000_000)
    assert left <= seconds(shown) <= 10, (shown, left)
    window.wait("label", re.compile(r"0:\d\d elapsed · 0:\d\d left"))
    # At its end the next run waits for the person again.
    wait_until(lambda: timer_property("SegmentIndex") == "3", 15, "the walk to end by itself")
    big_button(window, "Done")
    ctl("stop")


def test_plan_pages_and_the_list_count_open_steps_beside_the_time(window, tmp_path):
    plans = own_plans(tmp_path)
    plans.mkdir(parents=True, exist_ok=True)
    (plans / "track.plan").write_text(f'name "Track"\n{TRACK}\n')
    window.tab("Plans")
    window.wait("label", "0:20 + 3 open steps, 5 segments", timeout=10)
    window.open_plan("Track")
    window.wait("label", "until Done")
    window.wait("label", "0.4 km, until Done")
    totals = window.wait("list", "Totals")
    window.wait("label", "0:20 + 3 open steps", root=totals)


def test_the_editors_duration_takes_open_and_a_distance_and_its_rows_say_until_done(window, tmp_path):
    window.tab("Plans")
    window.press("push button", "New Plan")
    window.type("Name", "Track")
    fill(window, "Step 1", "open", "warmup")
    window.wait("label", "until Done", root=row(window, "Step 1"))
    window.press("push button", "Add Step")
    fill(window, "Step 2", "0.4km", "run")
    step2 = row(window, "Step 2")
    window.wait("label", "0.4 km, until Done", root=step2)
    # With a pace the distance is timed.
    assert window.usable("text", "Target", root=step2).get_editable_text_iface().set_text_contents("5:00/km")
    wait_until(lambda: not window.find("label", "0.4 km, until Done", root=row(window, "Step 2")), 5,
               "the timed run to lose its until Done")
    wait_until(lambda: editor_total(window) == "2:00 + 1 open step", 5, "the editor's total")
    written = 'name "Track"\n\nopen warmup\n0.4km run @ 5:00/km\n'
    wait_until(lambda: editor_text(window) == written, 5, "the text the rows write")
    window.press("push button", "Save")
    saved = own_plans(tmp_path) / "track.plan"
    wait_until(saved.exists, 5, "the plan's file")
    assert saved.read_text() == written
    editor_closed(window)
    window.wait("label", "2:00 + 1 open step, 2 segments")


def test_a_400m_step_gets_a_note_in_the_one_line_field_and_in_the_editor_and_can_still_start(window):
    window.tab("Plans")
    window.type("One-line plan", "open warmup, 400m run")
    window.wait("label", "6:40:00 + 1 open step, 2 segments\n"
                         "Note: 400m is 400 minutes; a distance is written 0.4km.")
    assert not marked_invalid(window.usable("text", "One-line plan"))
    start = window.usable("push button", "Start")
    window.press("push button", "New Plan")
    window.type("Plan as text", "open warmup\n400m run\n")
    window.wait("label", "Step 2: 400m is 400 minutes; a distance is written 0.4km")
    window.wait("label", re.compile(r"6:40:00 \+ 1 open step, 2 segments\nPlan:2:1: note: 400m is 400 minutes.*", re.S))
    window.usable("push button", "Save")  # the plan is valid
    window.press("push button", "Cancel")
    window.press("push button", response("Discard"))
    editor_closed(window)
    assert start.get_action_iface().do_action(0)
    wait_until(lambda: timer_property("State") == '"running"', 10, "the one-line plan to start")
    assert timer_property("Open") == "true"
    ctl("stop")


def test_the_finish_page_says_the_open_steps_planned_and_the_distance_of_a_distance_ended_by_done(window):
    """The finish page compared the time done, open steps played included, with the plan's timeline, which has none of
    it: a distance step without a pace ended the count at 0 m."""
    window.tab("Plans")
    window.type("One-line plan", "0.4km run, 2s walk @ 6 km/h")
    window.press("push button", "Start")
    window.press("push button", "Done", root=big_button(window, "Done").get_parent())
    window.wait("label", "Workout Finished", timeout=20)
    window.wait("label", re.compile(r"Run 0\.4 km, until Done, Walk 0:02: 0:0\d, finished\."))
    distance = window.wait("list item", "Distance")
    window.wait("label", "0.40 km (0.25 mi)", root=distance)  # 400 m and 2 s at 6 km/h


def test_in_german_the_big_button_reads_fertig_and_says_when_a_step_is_done(tmp_path, activatable_daemon):
    if not has_locale("de_DE.UTF-8"):
        pytest.skip("de_DE.UTF-8 is not generated (scripts/setup-deps)")
    window = Window(tmp_path, env=in_language("de_DE.UTF-8"))
    try:
        assert ctl("start", "-e", TRACK).returncode == 0
        big_button(window, "Fertig", pause="Anhalten")
        window.wait("label", re.compile(r"Fertig, wenn Sie bereit sind · Danach: .+"))
        # The elapsed time counts on through the step (it read "0:00" only within its first second).
        window.wait("label", re.compile(r"\d+:\d\d vergangen · 0:20 übrig nach diesem Schritt"))
        ctl("stop")
    finally:
        window.close()
