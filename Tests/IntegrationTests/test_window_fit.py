"""The window and FIT (docs/fit.md): a plan exported as a FIT workout, a FIT workout imported, the history exported as
CSV and FIT activities, and Send to Watch with a test watch: a volume image with a GARMIN folder, loop-mounted in the
window's own mount namespace while it runs (as udisks mounts a watch plugged in), seen through GIO's volume monitor.
The image is ext2: the kernels of these machines have no vfat, and the window looks at the folder, not the file
system."""
import csv
import datetime
import io
import json

from pathlib import Path

import fitdecode
import pytest

from conftest import wait_until
from test_window_editor import choose, own_plans
from window_harness import (Window, accessibility_bus, in_window_namespace, read_menu, response,  # noqa: F401
                            root_required, watch_window, xdotool_required)

DATA = Path(__file__).with_name("data") / "fit"

pytestmark = xdotool_required


def workout_name(path):
    with fitdecode.FitReader(str(path)) as reader:
        for frame in reader:
            if isinstance(frame, fitdecode.FitDataMessage) and frame.name == "workout":
                return frame.get_value("wkt_name")
    return None


def menu_items(window):
    """The names of the Plan Menu's items."""
    return read_menu(window, "Plan Menu", "Export…", lambda: [item.get_name() for item in window.all("menu item")])


@root_required
def test_a_plan_goes_to_a_watch_file_and_a_mounted_watch_and_a_fit_workout_comes_back(tmp_path, activatable_daemon):
    with watch_window(tmp_path) as (window, image, mount_point):
        window.open_plan("Tabata")
        items = menu_items(window)
        assert "Export as FIT Workout…" in items and "Send to Watch" not in items, items

        # Export as FIT Workout… writes the workout where the file chooser says.
        exported = tmp_path / "out" / "Tabata.fit"
        exported.parent.mkdir()
        window.menu("Export as FIT Workout…", "Plan Menu")
        choose(window, "Export as a FIT Workout", exported, "Export")
        wait_until(exported.exists, 10, "the exported workout")
        assert workout_name(exported) == "Tabata"

        # A watch is plugged in: Send to Watch appears, and puts the workout in GARMIN/NewFiles.
        in_window_namespace(window, "mount", "-o", "loop", str(image), str(mount_point))
        wait_until(lambda: "Send to Watch" in menu_items(window), 10, "Send to Watch in the plan menu")
        window.menu("Send to Watch", "Plan Menu")
        window.wait("label", "Sent “Tabata” to FORERUNNER. Unplug the watch to load the workout.")
        sent = in_window_namespace(window, "cat", str(mount_point / "GARMIN" / "NewFiles" / "Tabata.fit")).stdout
        (tmp_path / "sent.fit").write_bytes(sent)
        assert workout_name(tmp_path / "sent.fit") == "Tabata"

        # A program's day goes too, named as `intervalctl program export` names it.
        window.press("push button", "Back")
        window.press("push button", "Couch to 5K")
        window.press("push button", "Send to Watch")

        def new_files():
            listing = in_window_namespace(window, "ls", "-1", str(mount_point / "GARMIN" / "NewFiles")).stdout.decode()
            return listing.splitlines()

        wait_until(lambda: "Couch to 5K W1D1.fit" in new_files(), 10, "the day's workout on the watch")
        assert not any(name.endswith(".new") for name in new_files()), new_files()
        # Its toast waits behind Tabata's until that one's time is up.
        window.wait("label", "Sent “Couch to 5K · Week 1, Day 1” to FORERUNNER. Unplug the watch to load the workout.",
                    timeout=30)

        # Unplugged: Send to Watch is gone again.
        in_window_namespace(window, "umount", str(mount_point))
        window.press("push button", "Back")
        window.open_plan("Tabata")
        wait_until(lambda: "Send to Watch" not in menu_items(window), 10, "Send to Watch gone")

        # A FIT workout from Garmin Connect imported as a plan; one that cannot be played (a repeat until a heart
        # rate) is refused, saying why.
        window.press("push button", "Back")
        window.press("push button", "Import…")
        choose(window, "Import a Plan", DATA / "garmin-connect-repeat-until-hr.fit", "Import")
        window.wait("label", "“garmin-connect-repeat-until-hr.fit” is not a workout intervald can import")
        window.press("push button", response("OK"))
        window.press("push button", "Import…")
        choose(window, "Import a Plan", DATA / "garmin-connect-intervals.fit", "Import")
        imported = own_plans(tmp_path) / "intervals-5x1km.plan"
        wait_until(imported.exists, 10, "the imported plan")
        assert imported.read_text().startswith('name "Intervals 5x1km"\n')
        window.wait("label", "Imported “Intervals 5x1km”", timeout=30)  # perhaps behind the watch's toasts


def test_the_history_page_exports_a_csv_file_and_fit_activities(tmp_path, activatable_daemon):
    state = tmp_path / "state" / "intervald"
    state.mkdir(parents=True)
    galloway = Path(__file__).parents[2] / "config" / "plans" / "galloway-30-30.plan"
    records = [
        {"id": "a1", "plan": "Galloway run/walk 30:30", "origin": str(galloway), "start": "2026-11-27T18:00:00+01:00",
         "end": "2026-11-27T18:10:05+01:00", "start_wall_us": 1795806000000000, "planned_us": 2400000000,
         "done_us": 600000000, "segments_done": 10, "time_per_kind_us": {"run": 240000000, "walk": 360000000},
         "result": "stopped", "reason": "user"},
        {"id": "a2", "plan": "8x(20s work, 10s rest)", "origin": "", "start": "2026-11-28T07:00:00+01:00",
         "end": "2026-11-28T07:04:00+01:00", "start_wall_us": 1795845600000000, "planned_us": 240000000,
         "done_us": 240000000, "segments_done": 16, "time_per_kind_us": {"work": 160000000, "rest": 80000000},
         "result": "finished", "text": "8x(20s work, 10s rest)"},
    ]
    (state / "history.jsonl").write_text("".join(json.dumps(record) + "\n" for record in records))
    window = Window(tmp_path)
    try:
        window.tab("History")
        table = tmp_path / "out" / "history.csv"
        table.parent.mkdir()
        window.menu("Export as CSV…", "Export")
        choose(window, "Export the History as CSV", table, "Export")
        wait_until(table.exists, 10, "the CSV file")
        rows = list(csv.DictReader(io.StringIO(table.read_text(), newline="")))
        assert [row["id"] for row in rows] == ["a1", "a2"] and rows[0]["done_us"] == "600000000"
        window.wait("label", "Exported 2 workouts")

        folder = tmp_path / "activities"
        folder.mkdir()
        window.menu("Export for a Training Log…", "Export")
        choose(window, "Export for a Training Log", folder, "Export")
        wait_until(lambda: len(list(folder.glob("*.fit"))) == 2, 10, "two activity files")
        laps = {}
        for path in folder.glob("*.fit"):
            with fitdecode.FitReader(str(path)) as reader:
                laps[path.name] = [frame.get_value("total_timer_time") for frame in reader
                                   if isinstance(frame, fitdecode.FitDataMessage) and frame.name == "lap"]
        # Galloway stopped at 10:00: its warm-up and the segments after it, the last one cut where it stopped.
        assert laps["2026-11-27 18-00 Galloway run-walk 30-30.fit"] == [300.0] + [30.0] * 8 + [60.0]
        assert laps["2026-11-28 07-00 8x(20s work, 10s rest).fit"] == [20.0, 10.0] * 8
    finally:
        window.close()


@root_required
def test_a_garmin_folder_made_or_removed_on_a_mounted_volume_is_noticed(tmp_path, activatable_daemon):
    """A GARMIN folder made on a volume already mounted went unnoticed until the volume was mounted again (GIO's volume
    monitor says nothing of folders); one removed left Send to Watch offered."""
    with watch_window(tmp_path) as (window, image, mount_point):
        window.open_plan("Tabata")
        in_window_namespace(window, "mount", "-o", "loop", str(image), str(mount_point))
        wait_until(lambda: "Send to Watch" in menu_items(window), 10, "Send to Watch in the plan menu")
        in_window_namespace(window, "rmdir", str(mount_point / "GARMIN"))
        wait_until(lambda: "Send to Watch" not in menu_items(window), 10, "Send to Watch gone with the folder")
        in_window_namespace(window, "mkdir", str(mount_point / "GARMIN"))
        wait_until(lambda: "Send to Watch" in menu_items(window), 10, "Send to Watch back with a new GARMIN folder")
        window.menu("Send to Watch", "Plan Menu")
        window.wait("label", "Sent “Tabata” to FORERUNNER. Unplug the watch to load the workout.")


def test_the_window_answers_while_a_long_export_writes(tmp_path, activatable_daemon):
    """The History page's exports wrote on the GTK thread: a long history's hundreds of files, each fsync'd, froze the
    window until the last was written."""
    count = 1000
    state = tmp_path / "state" / "intervald"
    state.mkdir(parents=True)
    start = datetime.datetime(2026, 11, 27, 18, tzinfo=datetime.timezone.utc)
    # Each its own hour, so each its own file ("2026-11-27 18-00 8x(20s work, 10s rest).fit").
    (state / "history.jsonl").write_text("".join(json.dumps(
        {"id": f"w{index}", "plan": "8x(20s work, 10s rest)", "origin": "",
         "start": (start - datetime.timedelta(hours=index)).isoformat(), "end": "",
         "start_wall_us": int((start - datetime.timedelta(hours=index)).timestamp()) * 1_000_000,
         "planned_us": 240000000, "done_us": 240000000, "segments_done": 16, "time_per_kind_us": {"work": 160000000, "rest": 80000000}, "result": "finished",
         "text": "8x(20s work, 10s rest)"}) + "\n" for index in range(count)))
    window = Window(tmp_path)
    try:
        window.tab("History")
        folder = tmp_path / "activities"
        folder.mkdir()
        window.menu("Export for a Training Log…", "Export")
        choose(window, "Export for a Training Log", folder, "Export")
        wait_until(lambda: list(folder.glob("*.fit")), 30, "the export to begin")
        # The window takes a click and shows its result while the files are still being written.
        window.tab("Calculator")
        assert len(list(folder.glob("*.fit"))) < count, "the window answered only once the export was done"
        # Every one is written all the same. (Its toast, which the CSV export's test reads, is gone before a walk of
        # this window, with its 200 history rows, reaches it.)
        wait_until(lambda: len(list(folder.glob("*.fit"))) == count, 120, f"{count} activity files")
    finally:
        window.close()
