"""Starting a workout from the desktop, no terminal (docs/reference.md §8), through the consumers' own tools: the desktop entry
and its actions launched with `gapplication` (which D-Bus-activates the daemon and calls org.freedesktop.Application,
as desktops do) and with `gio launch` (which runs Exec=, as a desktop without D-Bus activation does), GNOME Shell's SearchProvider2 and KRunner's krunner1 called as those two call them,
with the package's files on XDG_DATA_DIRS. What goes wrong shows as a notification under dunst. GNOME Shell's own
overview search: test_gnome_shell.py."""
import configparser
import json
import os
import subprocess
import time

import pytest

from conftest import (BIN, REPO, SERVICE, busctl, ctl, desktop_required, install_desktop_files, name_owner_pid, press,
                      stop_daemon, wait_until)

pytestmark = desktop_required()

SEARCH_PATH = "/org/intervald/Timer1/SearchProvider"
SEARCH = "org.gnome.Shell.SearchProvider2"
RUNNER_PATH = "/org/intervald/Timer1/KRunner"
RUNNER = "org.kde.krunner1"
APPLICATION = "org.freedesktop.Application"
BUNDLED = sorted(path.stem for path in (REPO / "config" / "plans").glob("*.plan"))


@pytest.fixture
def share(tmp_path):
    return install_desktop_files(tmp_path / "share")


@pytest.fixture
def daemon_environment(share, tmp_path):
    """The activated daemon finds the bundled plans where the package puts them, and the user's in tmp_path."""
    return {"XDG_DATA_DIRS": str(share), "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "XDG_DATA_HOME": str(tmp_path / "data")}


def desktop_tool(share, *argv):
    return subprocess.run(list(argv), capture_output=True, text=True, timeout=30,
                          env={**os.environ, "XDG_DATA_DIRS": str(share)})


def call(path, interface, method, signature="", *args, check=True):
    result = busctl("--json=short", "call", SERVICE, path, interface, method,
                    *([signature, *map(str, args)] if signature else []), check=check)
    if result.returncode != 0:
        return result
    return json.loads(result.stdout)["data"] if result.stdout.strip() else []


def status():
    return json.loads(ctl("status", "--json").stdout)


def running(plan):
    return lambda: status()["state"] == "running" and status()["plan_name"] == plan


def stopped():
    ctl("stop")
    wait_until(lambda: status()["state"] == "idle", 5, "the workout to stop")


def test_the_windows_entry_is_visible_activatable_and_has_an_action_per_bundled_plan_and_the_daemons_hidden(share):
    daemon = share / "applications" / "org.intervald.Timer1.desktop"
    hidden = configparser.ConfigParser(interpolation=None, strict=True)
    hidden.optionxform = str
    hidden.read(daemon)
    assert hidden["Desktop Entry"]["NoDisplay"] == "true" and hidden["Desktop Entry"]["DBusActivatable"] == "true"
    assert subprocess.run(["desktop-file-validate", str(daemon)], timeout=30).returncode == 0
    path = share / "applications" / "org.intervald.IntervalTimer.desktop"
    validate = subprocess.run(["desktop-file-validate", str(path)], capture_output=True, text=True, timeout=30)
    assert validate.returncode == 0, validate.stdout + validate.stderr
    entry = configparser.ConfigParser(interpolation=None, strict=True)
    entry.optionxform = str
    entry.read(path)
    main = entry["Desktop Entry"]
    assert "NoDisplay" not in main and main["DBusActivatable"] == "true" and main["Name"] == "Interval Timer"
    actions = [action for action in main["Actions"].split(";") if action]
    assert sorted(actions) == sorted(BUNDLED + ["stop"])
    for name in BUNDLED:
        title = next(line.split('"')[1] for line in (REPO / "config" / "plans" / f"{name}.plan").read_text()
                     .splitlines() if line.startswith("name "))
        assert entry[f"Desktop Action {name}"]["Name"] == f"Start {title}"
        assert entry[f"Desktop Action {name}"]["Exec"].endswith(f"/interval-timer --start {name}")
    ini = configparser.ConfigParser()
    ini.read(share / "gnome-shell" / "search-providers" / "org.intervald.Timer1.search-provider.ini")
    provider = ini["Shell Search Provider"]
    assert (provider["DesktopId"], provider["BusName"], provider["ObjectPath"], provider["Version"]) == \
        ("org.intervald.IntervalTimer.desktop", SERVICE, SEARCH_PATH, "2")
    runner = subprocess.run(["desktop-file-validate", str(share / "krunner" / "dbusplugins" /
                                                          "org.intervald.Timer1.desktop")],
                            capture_output=True, text=True, timeout=30)
    assert runner.returncode == 0, runner.stdout


def test_gapplication_actions_start_their_plan_refuse_a_second_and_stop(activatable_daemon, share, notify_log):
    assert desktop_tool(share, "gapplication", "action", SERVICE, "tabata").returncode == 0
    wait_until(running("Tabata"), 10, "the Tabata action to start Tabata")

    # Starting replaces nothing: the second plan is refused, and the person is told why.
    refused = desktop_tool(share, "gapplication", "action", SERVICE, "hiit-30-30")
    assert "AlreadyRunning" in refused.stderr
    shown = wait_until(lambda: [n for n in notify_log.entries() if n["summary"] == "Could not start the workout"],
                       10, "a notification saying why")
    assert "“Tabata” is running." in shown[0]["body"]
    assert status()["plan_name"] == "Tabata"

    assert desktop_tool(share, "gapplication", "action", SERVICE, "stop").returncode == 0
    wait_until(lambda: status()["state"] == "idle", 5, "the stop action to stop it")

    # The start action takes a plan's name as its parameter, for scripts.
    assert desktop_tool(share, "gapplication", "action", SERVICE, "start", "'galloway-1-1'").returncode == 0
    wait_until(running("Galloway run/walk 1:1"), 10, "start('galloway-1-1')")
    stopped()


def test_launching_the_entry_offers_the_plans_then_repeats_the_last_one(activatable_daemon, share, notify_log):
    # No history: the plans, as buttons of a notification.
    assert desktop_tool(share, "gapplication", "launch", SERVICE).returncode == 0
    offer = wait_until(lambda: [n for n in notify_log.entries() if n["summary"] == "Interval Timer"], 10,
                       "the plans to be offered")
    assert "Choose a workout" in offer[0]["body"]
    press("plan:galloway-3-1")
    wait_until(running("Galloway run/walk 3:1"), 10, "the pressed plan to start")
    stopped()

    # Now the history has a plan: launching starts it again at once.
    assert desktop_tool(share, "gapplication", "launch", SERVICE).returncode == 0
    wait_until(running("Galloway run/walk 3:1"), 10, "the last plan to start again")
    stopped()


def test_without_dbus_activation_the_entrys_exec_line_starts_the_daemon(share, tmp_path):
    entry = share / "applications" / "org.intervald.Timer1.desktop"
    launched = subprocess.run(["gio", "launch", str(entry)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=30, env={**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"),
                                               "XDG_CONFIG_HOME": str(tmp_path / "config")})
    assert launched.returncode == 0
    try:
        wait_until(lambda: ctl("status").returncode == 0 and name_owner_pid(), 10, "Exec= to start intervald")
        assert os.readlink(f"/proc/{name_owner_pid()}/exe") == str((BIN / "intervald").resolve())
    finally:
        stop_daemon()


def test_the_search_provider_answers_as_gnome_shell_asks(activatable_daemon, share):
    assert call(SEARCH_PATH, SEARCH, "GetInitialResultSet", "as", 1, "tab") == [["plan:tabata"]]
    assert call(SEARCH_PATH, SEARCH, "GetInitialResultSet", "as", 2, "galloway", "3") == \
        [["plan:galloway-3-1", "plan:galloway-30-30"]]
    assert call(SEARCH_PATH, SEARCH, "GetSubsearchResultSet", "asas", 2, "plan:galloway-3-1", "plan:galloway-30-30",
                2, "galloway", "30") == [["plan:galloway-30-30"]]
    # The Shell splits what was typed at spaces; a one-line plan that parses is offered as typed.
    inline = "inline:8x(30s run, 30s walk)"
    assert call(SEARCH_PATH, SEARCH, "GetInitialResultSet", "as", 4, "8x(30s", "run,", "30s", "walk)") == [[inline]]
    assert call(SEARCH_PATH, SEARCH, "GetInitialResultSet", "as", 1, "zumba") == [[]]
    assert call(SEARCH_PATH, SEARCH, "GetInitialResultSet", "as", 1, "8x(30s") == [[]]

    # One meta per identifier, in order (the Shell drops all of them otherwise), even for one it never got.
    metas = call(SEARCH_PATH, SEARCH, "GetResultMetas", "as", 3, "plan:tabata", inline, "plan:nope")[0]
    assert [{key: value["data"] for key, value in meta.items()} for meta in metas] == [
        {"id": "plan:tabata", "name": "Start Tabata", "description": "12:00 · 18 intervals",
         "gicon": "org.intervald.Timer1"},
        {"id": inline, "name": "Start 8x(30s run, 30s walk)", "description": "8:00 · 16 intervals",
         "gicon": "org.intervald.Timer1"},
        {"id": "plan:nope", "name": "Plan not found", "description": "It was renamed or removed.",
         "gicon": "org.intervald.Timer1"},
    ]
    assert call(SEARCH_PATH, SEARCH, "ActivateResult", "sasu", inline, 4, "8x(30s", "run,", "30s", "walk)", 0) == []
    wait_until(running("8x(30s run, 30s walk)"), 10, "the one-line plan to start")
    stopped()


def test_krunner_matches_and_runs_as_krunner_does(activatable_daemon, share):
    assert call(RUNNER_PATH, RUNNER, "Actions") == [[]]
    matches = call(RUNNER_PATH, RUNNER, "Match", "s", "Galloway 30")[0]
    assert [match[:5] for match in matches] == [
        ["plan:galloway-30-30", "Start Galloway run/walk 30:30", "org.intervald.Timer1", 30, 0.7]]
    assert matches[0][5]["subtext"]["data"] == "40:00 · 56 intervals"
    exact = call(RUNNER_PATH, RUNNER, "Match", "s", "tabata")[0]
    assert [(match[0], match[3]) for match in exact] == [("plan:tabata", 100)]
    assert call(RUNNER_PATH, RUNNER, "Match", "s", "") == [[]]
    assert call(RUNNER_PATH, RUNNER, "Run", "ss", "plan:tabata", "") == []
    wait_until(running("Tabata"), 10, "Run to start Tabata")
    assert call(RUNNER_PATH, RUNNER, "Teardown") == []
    stopped()


def test_a_plan_saved_changed_or_removed_in_the_users_folder_is_what_the_next_search_finds(activatable_daemon, tmp_path):
    """The search provider and the KRunner plugin read the plans' folders at each query: a plan the window, a text
    editor or `cp` saves there is found at the next keystroke, with its total as it is now, and a removed one is not."""
    assert call(SEARCH_PATH, SEARCH, "GetInitialResultSet", "as", 1, "hill") == [[]]
    plans = tmp_path / "config" / "intervald" / "plans"
    plans.mkdir(parents=True)
    hills = plans / "hill-repeats.plan"
    hills.write_text('name "Hill repeats"\n10m walk\n6x(90s run "Uphill", 2m walk)\n')
    assert call(SEARCH_PATH, SEARCH, "GetInitialResultSet", "as", 1, "hill") == [["plan:hill-repeats"]]
    matches = call(RUNNER_PATH, RUNNER, "Match", "s", "hill repeats")[0]
    assert [(match[0], match[1]) for match in matches] == [("plan:hill-repeats", "Start Hill repeats")]
    assert matches[0][5]["subtext"]["data"] == "31:00 · 13 intervals"

    hills.write_text('name "Hill repeats"\n10m walk\n8x(90s run "Uphill", 2m walk)\n')
    metas = call(SEARCH_PATH, SEARCH, "GetResultMetas", "as", 1, "plan:hill-repeats")[0]
    assert metas[0]["description"]["data"] == "38:00 · 17 intervals"

    hills.unlink()
    assert call(SEARCH_PATH, SEARCH, "GetInitialResultSet", "as", 1, "hill") == [[]]
    assert call(RUNNER_PATH, RUNNER, "Match", "s", "hill repeats") == [[]]


def test_bad_requests_get_an_empty_answer_or_a_notification_never_a_stall(activatable_daemon, share, tmp_path,
                                                                          notify_log):
    plans = tmp_path / "config" / "intervald" / "plans"
    plans.mkdir(parents=True)
    (plans / "broken.plan").write_text('name "Broken"\n30s run\nzumba\n')

    # A plan file that does not parse is not offered, and starting it says where it is wrong.
    assert call(SEARCH_PATH, SEARCH, "GetInitialResultSet", "as", 1, "broken") == [[]]
    refused = desktop_tool(share, "gapplication", "action", SERVICE, "broken")
    assert "InvalidPlan" in refused.stderr
    shown = wait_until(lambda: [n for n in notify_log.entries() if "broken.plan:3:1: error" in n["body"]], 10,
                       "the located diagnostic as a notification")
    assert shown[0]["summary"] == "Could not start the workout"

    assert "InvalidPlan" in desktop_tool(share, "gapplication", "action", SERVICE, "nope").stderr
    wait_until(lambda: [n for n in notify_log.entries() if "No plan named 'nope'" in n["body"]], 10,
               "an unknown plan's notification")
    assert "No such search result" in call(SEARCH_PATH, SEARCH, "ActivateResult", "sasu", "plan:../x", 0, 0,
                                           check=False).stderr
    # Wrongly typed arguments are refused by the bus library before they reach the daemon's code.
    assert "Invalid" in call("/org/intervald/Timer1", APPLICATION, "ActivateAction", "s", "tabata",
                             check=False).stderr

    # A huge term is refused unread; a flood of searches is answered while a workout keeps its time.
    started = time.monotonic()
    assert call(SEARCH_PATH, SEARCH, "GetInitialResultSet", "as", 1, "x" * 100_000) == [[]]
    assert time.monotonic() - started < 5
    assert ctl("start", "-e", "3x(1s run, 1s walk)").returncode == 0
    for _ in range(20):
        assert call(SEARCH_PATH, SEARCH, "GetInitialResultSet", "as", 1, "galloway")[0]
    wait_until(lambda: status()["state"] == "idle", 15, "the short workout to finish on time")
    assert status()["state"] == "idle" and ctl("status").returncode == 0
