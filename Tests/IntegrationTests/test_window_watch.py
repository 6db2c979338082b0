"""The window's Send to Watch (docs/window.md) with a watch that GIO shows only as a URI, GARMIN inside a top-level
"Internal Storage" folder, as it shows an MTP watch (gvfs's localtest backend: gvfs_watch.py): found, given a plan, a
program's day and a program's week, gone when it is unmounted; a copy that fails says why and leaves nothing; with a
second watch (USB storage, loop-mounted in the window's mount namespace), each offered by its name."""
import pytest

from conftest import wait_until
from gvfs_watch import GARMIN, URI, available, gio, gvfsd, mount
from test_window_fit import menu_items, workout_name
from window_harness import (Window, accessibility_bus, in_window_namespace, response, root_required,  # noqa: F401
                            watch_window, xdotool_required)

pytestmark = [
    xdotool_required, root_required,
    pytest.mark.skipif(not available(), reason="gvfsd and gvfsd-localtest are not installed (scripts/setup-deps)"),
]

WEEK_2 = ["Couch to 5K W2D1.fit", "Couch to 5K W2D2.fit", "Couch to 5K W2D3.fit"]


def listing(folder):
    return sorted(path.name for path in folder.iterdir()) if folder.exists() else []


def test_a_uri_only_watch_gets_a_plan_a_week_and_a_day_and_its_items_go_when_it_is_unmounted(tmp_path,
                                                                                            activatable_daemon):
    (tmp_path / "tmp").mkdir()
    with gvfsd(tmp_path) as storage:
        window = Window(tmp_path, env={"TMPDIR": str(tmp_path / "tmp")})
        try:
            window.open_plan("Tabata")
            assert "Send to Watch" not in menu_items(window)
            mount()
            new_files = storage / "GARMIN" / "NewFiles"
            wait_until(lambda: "Send to Watch" in menu_items(window), 10, "Send to Watch in the plan menu")
            window.menu("Send to Watch", "Plan Menu")
            window.wait("label", "Sent “Tabata” to localtest. Unplug the watch to load the workout.")
            assert workout_name(new_files / "Tabata.fit") == "Tabata"

            window.press("push button", "Back")
            window.press("push button", "Couch to 5K")
            window.press("push button", "Send Week 2 to Watch")
            # The files are read once the toast says they are sent: a file shows in the folder as soon as its copy
            # begins. (Its toast waits behind Tabata's.)
            window.wait("label", "Sent 3 workouts to localtest. Unplug the watch to load the workouts.", timeout=30)
            assert listing(new_files) == WEEK_2 + ["Tabata.fit"]
            assert [workout_name(new_files / name) for name in WEEK_2] == [
                "Couch to 5K · Week 2, Day 1", "Couch to 5K · Week 2, Day 2", "Couch to 5K · Week 2, Day 3"]
            window.press("push button", "Send to Watch")  # the first day's
            window.wait("label", "Sent “Couch to 5K · Week 1, Day 1” to localtest. Unplug the watch to load the workout.",
                        timeout=30)
            assert workout_name(new_files / "Couch to 5K W1D1.fit") == "Couch to 5K · Week 1, Day 1"

            # Unmounted while the window is open: every Send to Watch goes.
            gio("mount", "-u", URI)
            wait_until(lambda: not window.find("push button", "Send to Watch")
                       and not window.find("push button", "Send Week 1 to Watch"), 10,
                       "the program's Send to Watch gone")
            window.press("push button", "Back")
            window.open_plan("Tabata")
            assert "Send to Watch" not in menu_items(window)
            # Each workout's local copy is gone.
            assert list((tmp_path / "tmp").iterdir()) == []
        finally:
            window.close()


def test_a_send_that_fails_says_why_and_leaves_nothing_on_the_watch(tmp_path, activatable_daemon):
    with gvfsd(tmp_path, fail_writes=True) as storage:
        window = Window(tmp_path)
        try:
            mount()
            window.open_plan("Tabata")
            wait_until(lambda: "Send to Watch" in menu_items(window), 10, "Send to Watch in the plan menu")
            window.menu("Send to Watch", "Plan Menu")
            window.wait("label", "The workout was not sent to the watch")
            window.wait("label", f"Could not copy “Tabata.fit” to localtest ({GARMIN}/NewFiles): Injected error. "
                                 "Nothing of it was left on the watch.")
            # The copy had created the file when its write failed: it was deleted.
            assert listing(storage / "GARMIN" / "NewFiles") == []
            window.press("push button", response("OK"))
        finally:
            window.close()


def test_with_two_watches_each_is_offered_by_its_name(tmp_path, activatable_daemon):
    with gvfsd(tmp_path) as storage, watch_window(tmp_path) as (window, image, mount_point):
        mount()
        in_window_namespace(window, "mount", "-o", "loop", str(image), str(mount_point))
        window.open_plan("Tabata")
        wait_until(lambda: {"Send to FORERUNNER", "Send to localtest"} <= set(menu_items(window)), 10,
                   "an item per watch in the plan menu")
        assert "Send to Watch" not in menu_items(window)
        window.menu("Send to localtest", "Plan Menu")
        window.wait("label", "Sent “Tabata” to localtest. Unplug the watch to load the workout.")
        assert listing(storage / "GARMIN" / "NewFiles") == ["Tabata.fit"]

        # A day's Send to Watch is a menu of the watches.
        window.press("push button", "Back")
        window.press("push button", "Couch to 5K")
        window.open_menu("Send to Watch")
        window.press("push button", "Send to FORERUNNER")

        def on_usb_watch():
            folder = mount_point / "GARMIN" / "NewFiles"
            return in_window_namespace(window, "sh", "-c", f"ls '{folder}' 2>/dev/null || true").stdout.decode()

        # Its name is what is read (a toast behind Tabata's can be gone before a walk of this page, loaded, finds it).
        wait_until(lambda: on_usb_watch() == "Couch to 5K W1D1.fit\n", 30, "day 1 on FORERUNNER")
        assert listing(storage / "GARMIN" / "NewFiles") == ["Tabata.fit"]
