"""The Interval Timer window (docs/reference.md §10) and its Workout page, driven through AT-SPI as a person with a
screen reader would drive it, against the real daemon: a workout chosen, started from the shell, paused, skipped,
stopped and finished (the finish page), the screen kept awake meanwhile, the daemon unreachable or killed; the window
opened by a second invocation, MPRIS's Raise, a click on a cue, the tray item and a search result; About; and the
docs' screenshots (scripts/window-screenshots). The other pages have files of their own (test_window_*.py);
window_harness.py has the window's harness.
"""
import json
import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from conftest import (BIN, SERVICE, busctl, ctl, desktop_required, has_locale, in_language, name_owner_pid, press,
                      wait_until)
from window_harness import (COUNTDOWN, WINDOW_SERVICE, Atspi, Window, accessibility_bus, daemon_config,  # noqa: F401
                            daemon_environment, end_activated_window, narrow, response, timer_property, window,
                            window_environment, window_pid)

pytestmark = desktop_required()


@pytest.fixture
def activatable_window(tmp_path):
    """Makes the window D-Bus activatable on the test bus, as its installed activation file does."""
    service_dir = Path(os.environ["INTERVALD_TEST_DBUS_SERVICE_DIR"])
    environment = " ".join(f"{name}={value}" for name, value in window_environment(tmp_path).items())
    service = service_dir / f"{WINDOW_SERVICE}.service"
    service.write_text(f"[D-BUS Service]\nName={WINDOW_SERVICE}\n"
                       f"Exec=/bin/sh -c '{environment} exec {BIN / 'interval-timer'} --gapplication-service "
                       f">>{tmp_path / 'interval-timer.log'} 2>&1'\n")
    busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ReloadConfig")
    # What a desktop session tells the bus (dbus-update-activation-environment): where to show windows.
    busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
           "UpdateActivationEnvironment", "a{ss}", "1", "DISPLAY", os.environ["DISPLAY"])
    yield
    pid = window_pid()
    if pid:
        end_activated_window(pid)
    service.unlink()
    busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ReloadConfig")


def opened_window(tmp_path):
    """The window the desktop opened by D-Bus activation."""
    return Window(tmp_path, pid=wait_until(window_pid, 20, "the window to be activated"))


def test_a_tabata_chosen_in_the_window_counts_down_and_its_pause_skip_and_stop_work(window):
    window.open_plan("Tabata")
    window.press("push button", "Start Plan")
    wait_until(lambda: timer_property("State") == '"running"', 10, "the daemon to run the plan")
    assert timer_property("PlanName") == '"Tabata"'
    first = wait_until(window.countdown, 10, "the countdown")
    wait_until(lambda: window.countdown() not in (None, first), 5, "the countdown to change")

    window.press("push button", "Pause")
    wait_until(lambda: timer_property("State") == '"paused"', 5, "the daemon to report Paused")
    window.wait("push button", "Resume")
    window.press("push button", "Resume")
    wait_until(lambda: timer_property("State") == '"running"', 5, "the daemon to run again")

    index = int(timer_property("SegmentIndex"))
    window.press("push button", "Skip")
    wait_until(lambda: int(timer_property("SegmentIndex")) == index + 1, 5, "the next segment")

    # Stop asks first; Keep Going leaves the workout as it was.
    window.press("push button", "Stop")
    window.press("push button", response("Keep Going"))
    # Only the count of the application's windows is read until the dialog is gone: GTK 4.8 crashes (SIGSEGV while
    # building its answer) when asked for a child of a window that is being destroyed.
    wait_until(lambda: window.app.get_child_count() == 1, 5, "the question to close")
    assert timer_property("State") == '"running"'
    window.press("push button", "Stop")
    window.press("push button", response("Stop Workout"))
    wait_until(lambda: window.app.get_child_count() == 1, 5, "the question to close")
    wait_until(lambda: timer_property("State") == '"idle"', 5, "the daemon to stop")
    window.wait("label", "No Workout Running")


def test_a_second_invocation_with_start_hands_the_plan_to_the_open_window_and_exits_0(window, tmp_path):
    """Single instance: `interval-timer --start tabata`, as a desktop without D-Bus activation runs the entry's
    action, is carried out by the window already open, and the invocation ends with status 0."""
    second = subprocess.run([str(BIN / "interval-timer"), "--start", "tabata"], timeout=30,
                            env=dict(os.environ, **window_environment(tmp_path)), capture_output=True, text=True)
    assert second.returncode == 0, second.stderr
    wait_until(lambda: timer_property("PlanName") == '"Tabata"', 10, "the open window to start Tabata")
    window.wait("label", re.compile(r"Tabata · segment \d+ of 18"))
    assert len(window.all("frame")) == 1
    ctl("stop")


def test_a_workout_started_by_intervalctl_appears_in_the_open_window_with_its_digits_a_third_of_its_height(window):
    window.wait("label", "No Workout Running")
    assert ctl("start", "-e", "2x(30s run, 30s walk)").returncode == 0
    window.wait("label", "Run")
    digits = wait_until(lambda: window.find("label", COUNTDOWN), 5, "the countdown")
    # The digits are the segment's time left, rounded up to the second: the daemon's, read just after them (walking
    # the accessible tree takes a while under load, so the digits are not compared with the start's 0:30).
    shown = digits.get_name()
    left = -(-int(timer_property("SegmentRemaining")) // 1_000_000)
    assert shown in (f"0:{left:02d}", f"0:{left + 1:02d}"), (shown, left)
    assert left > 20
    height = window.frame.get_extents(Atspi.CoordType.SCREEN).height
    assert digits.get_extents(Atspi.CoordType.SCREEN).height >= height / 3
    window.wait("label", "Next: Walk")
    ctl("stop")


def test_the_screen_may_not_blank_while_a_running_workout_shows(tmp_path, activatable_daemon):
    """GtkApplication's idle inhibitor, held while a running workout shows and released on pause and stop: it goes to
    the desktop portal where there is no GNOME session manager, as here (a stand-in portal records the calls). The
    daemon's own suspend inhibitor (docs/reference.md §6) goes there too, and is held through the pause."""
    calls = tmp_path / "inhibit.log"
    portal = subprocess.Popen(["/usr/bin/python3", str(Path(__file__).parent / "inhibit_portal.py"), str(calls)],
                              stdout=subprocess.PIPE, text=True)
    assert portal.stdout.readline().strip() == "ready"
    window = Window(tmp_path)
    try:
        lines = lambda: calls.read_text().splitlines() if calls.exists() else []

        def held(flag):
            """How many inhibitors with `flag` (8 idle: the window's; 4 suspend: the daemon's) are held."""
            handles = {l.split()[2] for l in lines() if l.startswith("inhibit ") and int(l.split()[1]) & flag}
            return len(handles - {l.split()[1] for l in lines() if l.startswith("uninhibit ")})

        assert lines() == [], "nothing is inhibited while no workout runs"
        assert ctl("start", "-e", "2x(30s run, 30s walk)").returncode == 0
        wait_until(lambda: held(8) == 1, 10, "the window's idle inhibitor")
        wait_until(lambda: held(4) == 1, 10, "the daemon's suspend inhibitor")
        assert ctl("pause").returncode == 0
        wait_until(lambda: held(8) == 0, 10, "the idle inhibitor to be released on pause")
        assert held(4) == 1, "paused counts as running: the suspend stays inhibited"
        assert ctl("resume").returncode == 0
        wait_until(lambda: held(8) == 1, 10, "the idle inhibitor again")
        assert ctl("stop").returncode == 0
        wait_until(lambda: held(8) == 0 and held(4) == 0, 10, "both released on stop")
    finally:
        window.close()
        portal.terminate()
        portal.wait(timeout=10)


def test_with_no_daemon_to_reach_the_window_says_so_and_offers_retry(tmp_path):
    window = Window(tmp_path)
    try:
        window.open_plan("Tabata")
        window.press("push button", "Start Plan")
        window.wait("label", re.compile(r"The timer service \(intervald\) cannot be reached: .*", re.S))
        # A toast that stays, with Retry (which GTK 4.8 names by its label twice, as a dialog's responses).
        window.wait("push button", response("Retry"))
    finally:
        window.close()


@pytest.mark.parametrize("locale,skip", [("de_DE.UTF-8", "Überspringen"), ("fr_FR.UTF-8", "Passer"),
                                         ("es_ES.UTF-8", "Saltar")])
def test_the_window_speaks_the_users_language(tmp_path, activatable_daemon, locale, skip):
    if not has_locale(locale):
        pytest.skip(f"{locale} is not generated (scripts/setup-deps)")
    window = Window(tmp_path, env=in_language(locale))
    try:
        assert ctl("start", "-e", "2x(30s run, 30s walk)").returncode == 0
        window.wait("push button", skip)
        ctl("stop")
    finally:
        window.close()


def test_mpris_raise_opens_the_window_on_the_workout(tmp_path, activatable_daemon, activatable_window):
    assert ctl("start", "-e", "2x(30s run, 30s walk)").returncode == 0
    wait_until(lambda: busctl("status", "org.mpris.MediaPlayer2.intervald", check=False).returncode == 0, 5,
               "the player")
    busctl("call", "org.mpris.MediaPlayer2.intervald", "/org/mpris/MediaPlayer2", "org.mpris.MediaPlayer2", "Raise")
    window = opened_window(tmp_path)
    window.wait("label", "Run")
    wait_until(lambda: window.find("label", COUNTDOWN), 5, "the countdown")
    ctl("stop")


def test_a_click_on_a_cues_body_opens_the_window(tmp_path, activatable_daemon, activatable_window, notify_log):
    assert ctl("start", "-e", "2x(30s run, 30s walk)").returncode == 0
    notify_log.wait_for(1)
    press("default")  # dunst runs the default action on a click on the body; its menu offers it too
    window = opened_window(tmp_path)
    window.wait("label", "Next: Walk")
    ctl("stop")


def test_a_left_click_on_the_tray_item_opens_the_window(tmp_path, activatable_daemon, activatable_window):
    assert ctl("start", "-e", "2x(30s run, 30s walk)").returncode == 0
    item = f"org.kde.StatusNotifierItem-{name_owner_pid()}-1"
    wait_until(lambda: busctl("status", item, check=False).returncode == 0, 5, "the tray item")
    busctl("call", item, "/StatusNotifierItem", "org.kde.StatusNotifierItem", "Activate", "ii", "10", "10")
    window = opened_window(tmp_path)
    window.wait("label", "Next: Walk")
    assert timer_property("State") == '"running"', "with a window to open, the click does not pause"
    ctl("stop")


def test_a_search_result_starts_its_plan_and_opens_the_window(tmp_path, activatable_daemon, activatable_window):
    busctl("call", SERVICE, "/org/intervald/Timer1/SearchProvider", "org.gnome.Shell.SearchProvider2",
           "ActivateResult", "sasu", "plan:tabata", "1", "tabata", "0")
    window = opened_window(tmp_path)
    assert timer_property("PlanName") == '"Tabata"'
    window.wait("label", re.compile(r"Tabata · segment \d+ of 18"))
    ctl("stop")


@pytest.mark.skipif("INTERVALD_TEST_SCREENSHOT_DIR" not in os.environ,
                    reason="takes the docs' screenshots only when asked (scripts/window-screenshots)")
def test_screenshots_of_the_window(tmp_path, activatable_daemon):
    """The screenshots in README and docs/window.md, from the real window: the workout view in a work and a rest
    segment, a plan's page, the history with its chart, the calculator, the plan editor."""
    shots = Path(os.environ["INTERVALD_TEST_SCREENSHOT_DIR"])
    history = tmp_path / "state" / "intervald" / "history.jsonl"
    history.parent.mkdir(parents=True, exist_ok=True)
    now = int(time.time())
    with history.open("w") as lines:
        for days_ago, run, walk in [(40, 20, 10), (33, 24, 12), (26, 18, 9), (19, 30, 12), (15, 16, 8), (12, 32, 10),
                                    (8, 28, 14), (5, 24, 8), (2, 36, 12), (1, 20, 6)]:
            start = now - days_ago * 86_400
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S+0000", time.gmtime(start))
            lines.write(json.dumps({
                "id": f"w{days_ago}", "plan": "Galloway run/walk 3:1", "origin": "desktop", "start": stamp,
                "end": stamp, "start_wall_us": start * 1_000_000, "planned_us": (run + walk) * 60_000_000,
                "done_us": (run + walk) * 60_000_000, "segments_done": 12,
                "time_per_kind_us": {"run": run * 60_000_000, "walk": walk * 60_000_000},
                "result": "finished", "reason": None}) + "\n")
    window = Window(tmp_path)
    try:
        def shot(name, size="720x640"):
            subprocess.run(["dunstctl", "close-all"], check=True, timeout=10)  # the cue's notification covers it
            time.sleep(0.5)  # the last frame is drawn: a screenshot, not an assertion
            subprocess.run(["import", "-window", "root", "-crop", f"{size}+0+0", str(shots / name)], check=True,
                           timeout=30)

        assert ctl("start", "-e", "8x(1m run, 30s walk)").returncode == 0
        window.wait("label", "Run")
        shot("window-work.png")
        ctl("skip")
        window.wait("label", "Walk")
        shot("window-rest.png")
        ctl("stop")
        window.wait("label", "Workout Stopped")
        shot("window-finish.png")
        window.press("push button", "Done")
        window.menu("Preferences")
        window.usable("spin button", "Volume in percent")
        shot("window-preferences.png")
        window.press("push button", "Close", root=window.find("frame", "Preferences"))
        wait_until(lambda: window.app.get_child_count() == 1, 5, "Preferences to close")
        window.open_plan("Galloway run/walk 3:1")
        shot("window-plan.png")
        window.tab("History")
        window.wait("label", "Minutes per week")
        shot("window-history.png")
        window.tab("Calculator")
        window.type("Distance", "10")
        window.type("Pace or speed", "5:30")
        window.wait("label", "55:00")
        shot("window-calculator.png")
        assert ctl("start", "-e", "8x(1m run, 30s walk)").returncode == 0
        window.wait("label", "Run")
        narrow(window, window.frame, "Interval Timer")
        shot("window-narrow.png", "360x640")
        ctl("stop")
        window.tab("Plans")
        window.press("push button", "New Plan")
        text = window.usable("text", "Plan as text")
        assert text.get_editable_text_iface().set_text_contents(
            '# From the club sheet\nname "Hill repeats"\ncountdown 3s\n\n10m walk "Warm-up"\n'
            '6x {  # the long hill\n  90s run "Uphill" @ 5:00/km\n  2m walk "Recover"\n}\n5m walk "Cool-down"\n')
        window.wait("label", "36:00, 14 segments")
        subprocess.run(["xdotool", "mousemove", "800", "500"], check=True, timeout=10)  # no tooltip in the shot
        shot("window-editor.png", "1000x680")
        narrow(window, window.find("frame", "Plan Editor"), "Plan Editor")
        window.usable("text", "Label", root=window.find("list item", "Step 2.1"))
        shot("window-editor-narrow.png", "360x640")
    finally:
        window.close()


def test_about_names_the_application_its_version_and_its_licence(window):
    window.menu("About Interval Timer")
    window.wait("label", "0.1.0")
    window.wait("label", "The intervald developers")
    # The licence, on its Legal page.
    window.wait("label", re.compile(r".*the Apache License, Version 2\.0.*", re.S))


def test_when_the_daemon_dies_mid_workout_the_window_starts_it_again_and_shows_the_workout_resumed(window):
    assert ctl("start", "-e", "2x(30s run, 30s walk)").returncode == 0
    wait_until(window.countdown, 10, "the countdown")
    first = name_owner_pid(SERVICE)
    os.kill(first, 9)
    # The window activates the daemon again, which resumes the workout from its state file.
    resumed = wait_until(lambda: (name_owner_pid(SERVICE) or first) != first and name_owner_pid(SERVICE), 15,
                         "a new daemon")
    assert resumed != first
    assert timer_property("State") == '"running"'
    window.wait("label", "Run")
    wait_until(window.countdown, 5, "the countdown of the resumed workout")
    ctl("stop")


def test_a_workout_that_ends_shows_the_finish_page_with_its_time_per_kind_and_start_again(window):
    window.tab("Plans")
    window.type("One-line plan", "2x(1s run, 2s walk)")
    window.press("push button", "Start")
    window.wait("label", "Workout Finished", timeout=20)
    window.wait("label", "2 × (Run 0:01, Walk 0:02): 0:06 of 0:06, finished.")
    window.wait("label", "0:04")  # walk: 2 × 2 s
    window.wait("label", "0:02")  # run
    # Start Again runs the same plan; stopped, it ends on the finish page again, saying so.
    window.press("push button", "Start Again")
    wait_until(lambda: timer_property("State") == '"running"', 10, "the plan to run again")
    assert ctl("stop").returncode == 0
    window.wait("label", "Workout Stopped", timeout=10)
    window.wait("label", re.compile(r"2 × \(Run 0:01, Walk 0:02\): 0:0\d of 0:06, stopped by you\."))
    window.press("push button", "Done")


def test_a_one_line_plan_started_from_the_shell_can_be_started_again_from_the_finish_page(window):
    """Start Again was missing after `intervalctl start -e`: the window did not know the plan's text."""
    assert ctl("start", "-e", "2x(500ms run, 500ms walk)").returncode == 0
    window.wait("label", "Workout Finished", timeout=20)
    window.press("push button", "Start Again")
    wait_until(lambda: timer_property("State") == '"running"', 10, "the plan to run again")
    assert timer_property("PlanName") == '"2x(500ms run, 500ms walk)"'
    assert ctl("stop").returncode == 0


def test_the_german_finish_page_says_how_it_ended_and_the_distance_in_german(tmp_path, activatable_daemon):
    """A plan whose steps have paces: the finish page adds the distance run, with the decimal comma."""
    if not has_locale("de_DE.UTF-8"):
        pytest.skip("de_DE.UTF-8 is not generated (scripts/setup-deps)")
    window = Window(tmp_path, env=in_language("de_DE.UTF-8"))
    try:
        window.tab("Pläne")
        # 2 × (1 s at 36 km/h, 10 m, and 2 s at 6 km/h, 3.33 m): 26.67 m.
        window.type("Plan in einer Zeile", "2x(1s run @ 36 km/h, 2s walk @ 6 km/h)")
        window.press("push button", "Starten")
        window.wait("label", "Training beendet", timeout=20)
        # A one-line plan is named in words, not by its plan text with English kinds.
        window.wait("label", "2 × (Laufen 0:01, Gehen 0:02): 0:06 von 0:06, beendet.")
        distance = window.find("list item", "Strecke")
        assert distance is not None and window.find("label", "0,03 km (0,02 mi)", root=distance) is not None
        window.press("push button", "Fertig")
    finally:
        window.close()
