"""The tray item (docs/reference.md §12): the StatusNotifierItem and its dbusmenu as every host reads and calls them,
driven over the real session bus. The hosts themselves (Plasma's system tray, xfce4-panel, waybar, GNOME's
AppIndicator extension) show it in test_tray_hosts.py."""
import json
import os
import re

import pytest

import tray_hosts
from conftest import (busctl, ctl, desktop_required, has_locale, in_language, name_owner_pid, owns_name,
                      wait_until)

pytestmark = [desktop_required()]

ITEM_PATH = "/StatusNotifierItem"
ITEM_INTERFACE = "org.kde.StatusNotifierItem"
MENU_PATH = "/MenuBar"
MENU_INTERFACE = "com.canonical.dbusmenu"


def item_service():
    """The tray item's name, as the daemon owns it while a workout exists."""
    return f"org.kde.StatusNotifierItem-{name_owner_pid()}-1"


def prop(name, service=None, path=ITEM_PATH, interface=ITEM_INTERFACE):
    return json.loads(busctl("--json=short", "get-property", service or item_service(), path, interface,
                             name).stdout)["data"]


def menu(method, signature, *args, check=True):
    result = busctl("--json=short", "call", "--", item_service(), MENU_PATH, MENU_INTERFACE, method, signature, *args,
                    check=check)
    if result.returncode != 0:
        return result
    return json.loads(result.stdout)["data"] if result.stdout.strip() else None


def item_call(method, signature, *args):
    return busctl("call", item_service(), ITEM_PATH, ITEM_INTERFACE, method, signature, *args)


def status():
    return json.loads(ctl("status", "--json").stdout)


def labels(layout):
    """The labels of the root's children in a GetLayout answer, in order."""
    _, (_, _, children) = layout
    return [child["data"][1]["label"]["data"] for child in children]


@pytest.fixture
def watcher(tmp_path):
    """KDE's StatusNotifierWatcher (kded5), which takes the item: the countdown is refreshed only then."""
    if tray_hosts.statusnotifierwatcher.available():
        pytest.skip(tray_hosts.statusnotifierwatcher.available())
    with tray_hosts.statusnotifierwatcher(os.environ, tmp_path / "watcher") as watcher:
        yield watcher


def test_the_item_shows_the_cue_and_the_time_left_each_second_and_is_gone_at_the_end(activatable_daemon, monitor,
                                                                                      watcher):
    # One monitor for both, so that their stamps are on one clock.
    cues = refreshes = monitor("type='signal'")
    assert ctl("start", "-e", 'name "Galloway"\n2x(4s run, 3s walk)').returncode == 0
    service = wait_until(lambda: owns_name(item_service()) and item_service(), 5, "the tray item's name")
    assert prop("Id") == "intervald"
    assert prop("Category") == "ApplicationStatus"
    assert prop("Status") == "Active"
    assert prop("Menu") == MENU_PATH
    assert prop("ItemIsMenu") is False
    # A build-tree daemon has no installed icons: no IconName, the pixmaps instead.
    assert prop("IconName") == ""
    pixmaps = prop("IconPixmap")
    assert [(w, h, len(pixels)) for w, h, pixels in pixmaps] == [(s, s, s * s * 4) for s in (22, 32, 48)]
    title = prop("Title")
    assert re.fullmatch(r"Run · 0:0[1-4] — next: Walk 0:03", title), title
    icon, tip_pixmaps, tip_title, tip_text = prop("ToolTip")
    assert (tip_title, tip_text) == (title, "Galloway · round 1 of 2")
    assert re.fullmatch(r"0:0[1-4]", prop("XAyatanaLabel"))
    assert prop("XAyatanaLabelGuide") == "0:00"

    cues.wait_for("Finished", timeout=20)
    wait_until(lambda: not owns_name(service), 5, "the tray item's name to be released")

    # Each second's refresh: NewTitle, NewToolTip and the label, never on a whole second of the segment (where the
    # cue and the countdown pips are); only a change's own update is right after its SegmentStarted.
    starts = [m["timestamp-realtime"] for m in cues.received("SegmentStarted")]
    assert len(starts) == 4
    titles = [m["timestamp-realtime"] for m in refreshes.received("NewTitle")]
    labels_seen = [m["payload"]["data"][0] for m in refreshes.received("XAyatanaNewLabel")]
    assert labels_seen[:4] == ["0:04", "0:03", "0:02", "0:01"]
    assert "0:00" not in labels_seen
    between = []
    for t in titles:
        start = max(s for s in starts if s <= t)
        offset = (t - start) % 1_000_000
        if t - start > 50_000:
            between.append(offset)
    assert len(between) >= 8, between
    for offset in between:
        assert 50_000 <= offset <= 950_000, f"a refresh {offset} µs after a whole second of its segment"
    assert refreshes.received("NewIcon"), "the icon changed from work to rest"
    assert not watcher.registered_items()


def test_without_a_watcher_nothing_is_refreshed_between_changes(activatable_daemon, monitor):
    """No watcher took the item, so no host shows it: the daemon does not wake each second for nobody."""
    signals = monitor("type='signal'")
    assert ctl("start", "-e", "4s run, 3s walk").returncode == 0
    signals.wait_for("Finished", timeout=15)
    assert len(signals.received("XAyatanaNewLabel")) == 2, "only each change's own update"
    assert len(signals.received("NewTitle")) == 2


def test_the_menu_pauses_resumes_skips_and_stops(activatable_daemon, monitor):
    cues = monitor(f"type='signal',path='/org/intervald/Timer1'")
    menu_signals = monitor(f"type='signal',path='{MENU_PATH}'")
    assert ctl("start", "-e", "3x(30s run, 30s walk)").returncode == 0
    wait_until(lambda: owns_name(item_service()), 5, "the tray item")
    revision, layout = menu("GetLayout", "iias", "0", "-1", "0")
    assert labels((revision, layout)) == ["Pause", "Skip", "Stop", "Open Interval Timer"]
    assert menu("AboutToShow", "i", "0") == [False]
    assert menu("AboutToShowGroup", "ai", "3", "1", "2", "9") == [[], [9]]
    assert prop("Version", path=MENU_PATH, interface=MENU_INTERFACE) == 3

    menu("Event", "isvu", "1", "clicked", "s", "", "0")
    wait_until(lambda: status()["state"] == "paused", 5, "the menu's Pause to pause")
    updated = menu_signals.wait_for("ItemsPropertiesUpdated")[0]["payload"]["data"][0]
    assert updated[0][0] == 1 and updated[0][1]["label"]["data"] == "Resume"
    assert labels(menu("GetLayout", "iias", "0", "-1", "0")) == ["Resume", "Skip", "Stop", "Open Interval Timer"]
    assert re.fullmatch(r"Run · 0:[23]\d — paused", prop("Title"))

    # libdbusmenu's hosts send groups; an id that is no item comes back as an error, the rest act.
    assert menu("EventGroup", "a(isvu)", "2", "1", "clicked", "s", "", "0", "42", "clicked", "s", "", "0") == [[42]]
    wait_until(lambda: status()["state"] == "running", 5, "the menu's Resume to resume")
    menu("Event", "isvu", "2", "clicked", "s", "", "0")
    wait_until(lambda: status()["segment_index"] == 1, 5, "the menu's Skip to skip")
    failed = menu("Event", "isvu", "7", "clicked", "s", "", "0", check=False)
    assert failed.returncode != 0 and "No menu item 7" in failed.stderr
    menu("Event", "isvu", "3", "hovered", "s", "", "0")
    assert status()["state"] == "running", "only a click acts"

    menu("Event", "isvu", "3", "clicked", "s", "", "0")
    stopped = cues.wait_for("Stopped")[0]
    assert stopped["payload"]["data"][-1] == "user"
    wait_until(lambda: not owns_name(item_service()), 5, "the item to go with the workout")


def test_a_left_click_pauses_where_there_is_no_window_and_a_middle_click_resumes(activatable_daemon):
    assert ctl("start", "-e", "2m run").returncode == 0
    wait_until(lambda: owns_name(item_service()), 5, "the tray item")
    # The test bus cannot start the window (no org.intervald.IntervalTimer service file): Activate pauses instead.
    item_call("Activate", "ii", "10", "10")
    wait_until(lambda: status()["state"] == "paused", 5, "a left click to pause")
    assert prop("Title").endswith(" — paused")
    item_call("SecondaryActivate", "ii", "10", "10")
    wait_until(lambda: status()["state"] == "running", 5, "a middle click to resume")
    item_call("Scroll", "is", "1", "vertical")
    item_call("ContextMenu", "ii", "0", "0")
    assert status()["state"] == "running"
    assert ctl("stop").returncode == 0


def test_the_tray_setting_turns_it_off(activatable_daemon, daemon_config):
    daemon_config.write_text("[notifications]\nsound = false\n[tray]\nenabled = false\n")
    assert ctl("start", "-e", "1m run").returncode == 0
    wait_until(lambda: status()["state"] == "running", 5, "the workout")
    assert not owns_name(item_service())
    assert ctl("stop").returncode == 0


@desktop_required()
@pytest.mark.skipif(not has_locale("de_DE.UTF-8"), reason="needs the de_DE.UTF-8 locale")
class TestTheTrayInGerman:
    @pytest.fixture
    def daemon_environment(self):
        return in_language("de_DE.UTF-8")

    def test_the_menu_and_the_title_are_german(self, activatable_daemon):
        assert ctl("start", "-e", "2x(30s run, 1m walk)").returncode == 0
        wait_until(lambda: owns_name(item_service()), 5, "the tray item")
        assert labels(menu("GetLayout", "iias", "0", "-1", "0")) == \
            ["Anhalten", "Überspringen", "Beenden", "Intervall-Timer öffnen"]
        assert re.fullmatch(r"Laufen · 0:[23]\d — danach: Gehen 1:00", prop("Title")), prop("Title")
        assert prop("ToolTip")[3] == "2x(30s run, 1m walk) · Runde 1 von 2"
        assert ctl("stop").returncode == 0
