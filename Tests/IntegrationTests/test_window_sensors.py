"""The strap's heart rate on the window's workout page (docs/sensors.md, docs/window.md): under the digits while the
daemon hears the chosen strap through BlueZ (bluez.py's stand-in on a private system bus), said "Heart rate N bpm" to
a screen reader, inside a 360-pixel window, gone when the strap is. Driven through AT-SPI (window_harness.py)."""
import re
import shutil
from pathlib import Path

import pytest

from bluez import HEART_RATE_MEASUREMENT, bluez  # noqa: F401
from conftest import ctl, desktop_required, wait_until
from window_harness import (Atspi, accessibility_bus, narrow, window, window_environment)  # noqa: F401

pytestmark = [desktop_required(), pytest.mark.skipif(shutil.which("xdotool") is None,
                                                    reason="xdotool is not installed (scripts/setup-deps)")]

ADDRESS = "C0:FF:EE:12:34:56"
BIKE_ADDRESS = "F0:12:34:56:5A:1B"


@pytest.fixture
def strap(bluez):
    bluez.add_adapter()
    return bluez.add_heart_rate_strap("Polar H10 1A2B3C4D", ADDRESS)


@pytest.fixture
def daemon_config(tmp_path):
    path = Path(window_environment(tmp_path)["XDG_CONFIG_HOME"]) / "intervald" / "intervald.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'[notifications]\nsound = false\n\n[sensors]\nheart_rate = "{ADDRESS}"\n')
    return path


@pytest.fixture
def daemon_environment(tmp_path, bluez):
    return {"XDG_DATA_DIRS": window_environment(tmp_path)["XDG_DATA_DIRS"], "DBUS_SYSTEM_BUS_ADDRESS": bluez.address}


def test_the_heart_rate_shows_under_the_digits_inside_a_narrow_window_and_goes_with_the_strap(bluez, strap, window):
    assert ctl("start", "-e", 'hr<120 walk "Recover", 5m run').returncode == 0
    wait_until(lambda: bluez.calls("StartNotify"), 10, "the daemon to subscribe to the strap")
    assert bluez.notify(strap, HEART_RATE_MEASUREMENT, bytes([0x00, 131]))
    shown = window.wait("label", "Heart rate 131 bpm")
    digits = window.find("label", re.compile(r"^\d+:\d\d$"))
    assert shown.get_extents(Atspi.CoordType.SCREEN).y > digits.get_extents(Atspi.CoordType.SCREEN).y
    window.wait("label", re.compile(r"until heart rate below 120 · Done when you are ready · Next: Run"))
    narrow(window, window.frame, "Interval Timer")

    def inside():
        frame, box = (node.get_extents(Atspi.CoordType.SCREEN) for node in (window.frame, shown))
        return 0 < box.width and frame.x <= box.x and box.x + box.width <= frame.x + frame.width

    wait_until(inside, 5, "the heart rate inside the 360-pixel window")
    # Below the bound: the recovery ends, and the page says the run.
    assert bluez.notify(strap, HEART_RATE_MEASUREMENT, bytes([0x00, 115]))
    window.wait("label", "Heart rate 115 bpm")
    window.wait("label", "Run")

    def heart_rate_shown():
        label = window.find("label", re.compile(r"^Heart rate \d+ bpm$"))
        return label is not None and label.get_state_set().contains(Atspi.StateType.VISIBLE)

    assert heart_rate_shown()
    bluez.go_out_of_range(strap)
    wait_until(lambda: not heart_rate_shown(), 6, "the heart rate gone from the page")
    ctl("stop")


class TestABike:
    """A trainer's power and cadence under the digits, inside a 360-pixel window, and the step's target."""

    @pytest.fixture
    def bike(self, bluez):
        bluez.add_adapter()
        return bluez.add_bike("KICKR CORE 5A1B", BIKE_ADDRESS)

    @pytest.fixture
    def daemon_config(self, tmp_path):
        path = Path(window_environment(tmp_path)["XDG_CONFIG_HOME"]) / "intervald" / "intervald.toml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f'[notifications]\nsound = false\n\n[sensors]\nmachine = "{BIKE_ADDRESS}"\n')
        return path

    def test_the_bikes_power_shows_under_the_digits(self, bluez, bike, window):
        assert ctl("start", "-e", "5m work @ 220W").returncode == 0
        shown = window.wait("label", "Power 220 W, cadence 90 rpm", timeout=15)
        digits = window.find("label", re.compile(r"^\d+:\d\d$"))
        assert shown.get_extents(Atspi.CoordType.SCREEN).y > digits.get_extents(Atspi.CoordType.SCREEN).y
        narrow(window, window.frame, "Interval Timer")

        def inside():
            frame, box = (node.get_extents(Atspi.CoordType.SCREEN) for node in (window.frame, shown))
            return 0 < box.width and frame.x <= box.x and box.x + box.width <= frame.x + frame.width

        wait_until(inside, 5, "the power inside the 360-pixel window")

        def power_shown():
            label = window.find("label", re.compile(r"^Power \d+ W"))
            return label is not None and label.get_state_set().contains(Atspi.StateType.VISIBLE)

        bluez.go_out_of_range(bike)
        wait_until(lambda: not power_shown(), 6, "the power gone from the page with the bike")
        ctl("stop")
