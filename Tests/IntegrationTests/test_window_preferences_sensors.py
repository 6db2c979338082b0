"""Preferences' Sensors and Machine groups (docs/window.md, docs/sensors.md), driven through AT-SPI as a person with a
screen reader would (window_harness.py), against BlueZ's D-Bus API on a private system bus (bluez.py's stand-in): the
straps and machines BlueZ knows listed with their kind in words, one chosen by its row and forgotten by its button as
`intervalctl sensors use` and `forget` write the file, Scan finding a strap that comes into range while it looks, no
Bluetooth said in a sentence, and the machine's ceilings set in spin buttons."""
import contextlib
import re
import shutil
import subprocess

import pytest

from bluez import FITNESS_MACHINE_TREADMILL, bluez  # noqa: F401
from conftest import desktop_required, wait_until
from window_harness import (Atspi, Window, accessibility_bus, click, controls_without_a_name,  # noqa: F401
                            daemon_config, daemon_environment)

pytestmark = [desktop_required(), pytest.mark.skipif(shutil.which("xdotool") is None,
                                                    reason="xdotool is not installed (scripts/setup-deps)")]

STRAP = ("Polar H10 1A2B3C4D", "C0:FF:EE:12:34:56")
TREADMILL = ("Horizon 7.0AT 9F3E", "F1:E2:D3:C4:B5:A6")
#: A row's check: the strap's, or the machine's. (GTK 4.8 gives a check button no action to AT-SPI: it is clicked.)
CHOICE = "check box"


@contextlib.contextmanager
def preferences_window(tmp_path, system_bus):
    """The window, reaching `system_bus` (the stand-in's address) as its system bus, with Preferences open."""
    window = Window(tmp_path, env={"DBUS_SYSTEM_BUS_ADDRESS": system_bus})
    try:
        window.menu("Preferences")
        window.wait("frame", "Preferences")
        yield window
    finally:
        window.close()


@pytest.fixture
def preferences(tmp_path, bluez, activatable_daemon):
    with preferences_window(tmp_path, bluez.address) as window:
        yield window


def choose(window, name):
    """Clicks the check of the row named `name`, as a person does: the wheel over Preferences scrolls it onto the
    screen first (the test screen is 400 pixels high)."""
    check = window.usable(CHOICE, name)
    frame = window.find("frame", "Preferences").get_extents(Atspi.CoordType.SCREEN)
    height = int(subprocess.run(["xdotool", "getdisplaygeometry"], capture_output=True, text=True,
                                check=True).stdout.split()[1])

    def on_screen():
        box = check.get_extents(Atspi.CoordType.SCREEN)
        if 0 <= box.y and box.y + box.height <= min(height, frame.y + frame.height):
            return True
        wheel = "5" if box.y > 0 else "4"
        subprocess.run(["xdotool", "mousemove", str(frame.x + frame.width // 2), str(frame.y + frame.height // 2),
                        "click", wheel], check=True, timeout=10)
        return False

    wait_until(on_screen, 10, f"{name}'s row on the screen")
    click(check)


def test_the_strap_and_the_treadmill_are_listed_by_kind_and_the_strap_chosen_and_forgotten(
        tmp_path, bluez, activatable_daemon, daemon_config):
    bluez.add_adapter()
    bluez.add_heart_rate_strap(*STRAP, battery=85)
    bluez.add_device(*TREADMILL, [FITNESS_MACHINE_TREADMILL])
    with preferences_window(tmp_path, bluez.address) as preferences:
        preferences.wait("label", f"heart-rate strap · {STRAP[1]} · not connected · battery 85 %")
        preferences.wait("label", f"treadmill · {TREADMILL[1]} · not connected")
        strap = preferences.usable(CHOICE, STRAP[0])
        treadmill = preferences.usable(CHOICE, TREADMILL[0])
        assert not strap.get_state_set().contains(Atspi.StateType.CHECKED)
        choose(preferences, STRAP[0])
        wait_until(lambda: daemon_config.read_text() == f'[notifications]\nsound = false\n\n[sensors]\n'
                   f'heart_rate = "{STRAP[1]}"\n', 10, "the strap's address written as [sensors] heart_rate")
        wait_until(lambda: strap.get_state_set().contains(Atspi.StateType.CHECKED), 5, "the strap checked")
        # The treadmill is a choice of another kind: choosing it leaves the strap chosen.
        choose(preferences, TREADMILL[0])
        wait_until(lambda: f'machine = "{TREADMILL[1]}"\n' in daemon_config.read_text(), 10, "the treadmill written")
        assert f'heart_rate = "{STRAP[1]}"\n' in daemon_config.read_text()
        assert strap.get_state_set().contains(Atspi.StateType.CHECKED)
        assert treadmill.get_state_set().contains(Atspi.StateType.CHECKED)
        preferences.press("push button", f"Forget {STRAP[0]}")
        wait_until(lambda: "heart_rate" not in daemon_config.read_text(), 10, "the strap taken out of the file")
        wait_until(lambda: not strap.get_state_set().contains(Atspi.StateType.CHECKED), 5, "the strap unchecked")
        assert f'machine = "{TREADMILL[1]}"\n' in daemon_config.read_text()
        assert controls_without_a_name(preferences, preferences.find("frame", "Preferences")) == []


def test_scan_finds_a_strap_that_comes_into_range_while_it_looks(tmp_path, bluez, activatable_daemon):
    bluez.add_adapter()
    with preferences_window(tmp_path, bluez.address) as preferences:
        preferences.wait("label", "No heart-rate strap, treadmill or bike is known; Scan looks for them.")
        preferences.press("push button", "Scan")
        wait_until(lambda: bluez.calls("StartDiscovery"), 10, "the discovery to start")
        # Its progress shows while it looks, and the window goes on answering.
        preferences.wait("label", "Looking for sensors for 10 s…")
        preferences.wait(None, "Scanning")
        assert not preferences.find("push button", "Scan").get_state_set().contains(Atspi.StateType.SENSITIVE)
        bluez.add_heart_rate_strap(*STRAP)
        preferences.wait(CHOICE, STRAP[0], timeout=30)
        preferences.usable("push button", "Scan")
        assert [call.method for call in bluez.calls() if call.method.endswith("Discovery")] == \
            ["StartDiscovery", "StopDiscovery"]


@pytest.mark.parametrize("bluetooth,sentence", [
    ("no adapter", "Bluetooth is not available: this computer has no Bluetooth adapter."),
    ("off", "Bluetooth is off: turn it on to use a sensor."),
    ("no system bus", re.compile(r"Bluetooth is not available: the system bus cannot be reached \(.+\)\.")),
])
def test_without_bluetooth_the_group_says_so_in_a_sentence(tmp_path, bluez, activatable_daemon, bluetooth, sentence):
    address = bluez.address
    if bluetooth == "off":
        bluez.add_adapter(powered=False)
        bluez.add_heart_rate_strap(*STRAP)
    elif bluetooth == "no system bus":
        address = f"unix:path={tmp_path / 'no-system-bus'}"
    with preferences_window(tmp_path, address) as window:
        window.wait("label", sentence)
        assert window.find(CHOICE, STRAP[0]) is None


def test_the_machines_top_speed_and_power_are_written_in_their_units(preferences, daemon_config):
    speed = preferences.usable("spin button", "Top speed of a treadmill, in km/h")
    assert speed.get_value_iface().get_current_value() == 16
    assert (speed.get_value_iface().get_minimum_value(), speed.get_value_iface().get_maximum_value()) == (1, 30)
    preferences.set_number("Top speed of a treadmill, in km/h", 12.5)
    wait_until(lambda: "[machine]\nmax_speed = 12.5\n" in daemon_config.read_text(), 10, "the top speed written")
    power = preferences.usable("spin button", "Top power of a bike, in watts")
    assert power.get_value_iface().get_current_value() == 400
    preferences.set_number("Top power of a bike, in watts", 250)
    wait_until(lambda: daemon_config.read_text().endswith("[machine]\nmax_speed = 12.5\nmax_power = 250\n"), 10,
               "the top power written under it")
