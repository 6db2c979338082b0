"""`intervalctl watch` (docs/fit.md, "Sending to a watch"): a watch GIO shows only as a URI, with GARMIN inside a
top-level "Internal Storage" folder (gvfs's localtest backend, gvfs_watch.py), listed, and given a plan, a program's
day and a program's week through GIO copies; a copy that fails leaves nothing behind and says why; with a second watch
(a volume with GARMIN at its root, loop-mounted as udisks mounts one), --watch chooses."""
import json
import os
import subprocess

import pytest

from conftest import BIN, REPO, ctl, desktop_required, history_activity, wait_until
from gvfs_watch import GARMIN, available, localtest_watch
from test_fit import DATA, read_fit
from window_harness import root_required

pytestmark = [
    desktop_required(), root_required,
    pytest.mark.skipif(not available(), reason="gvfsd and gvfsd-localtest are not installed (scripts/setup-deps)"),
]


@pytest.fixture
def env(tmp_path):
    """The bundled programs, state and settings of the test's own, and a temporary folder of its own: what is made
    there (the local copy of each workout) must be gone after."""
    share = tmp_path / "share"
    (share / "intervald").mkdir(parents=True)
    (share / "intervald" / "programs").symlink_to(REPO / "config" / "programs")
    (share / "intervald" / "plans").symlink_to(REPO / "config" / "plans")
    (tmp_path / "tmp").mkdir()
    return {"XDG_DATA_DIRS": str(share), "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "XDG_DATA_HOME": str(tmp_path / "none"), "XDG_STATE_HOME": str(tmp_path / "state"),
            "TMPDIR": str(tmp_path / "tmp")}


def said(stderr):
    """What intervalctl said on stderr, without what GIO's gvfs client warns of where the metadata store that a deleted
    file's metadata is removed from is missing (the test bus has only its own service directory; a desktop's starts
    it). The volume monitors' services (udisks2, MTP, …) are missing here too: intervalctl keeps what gvfs says of
    them out of stderr (docs/fit.md), so no line of theirs is left out here."""
    return "".join(line for line in stderr.splitlines(keepends=True) if line.strip() and "GVFS-WARNING" not in line)


def workout_name(path):
    return next(fields["wkt_name"] for name, fields in read_fit(path) if name == "workout")


def test_a_uri_only_watch_is_listed_and_gets_a_plan_a_program_day_and_a_week(tmp_path, env):
    none = ctl("watch", env=env)
    assert (none.returncode, none.stdout, said(none.stderr)) == (1, "", "No watch is connected.\n")

    with localtest_watch(tmp_path) as storage:
        listed = ctl("watch", env=env)
        assert listed.returncode == 0, listed.stderr
        # Its name as GIO shows it, the GARMIN folder inside its storage folder, and no free space said by the backend.
        assert listed.stdout == f"localtest  {GARMIN}  free space unknown\n"
        [entry] = json.loads(ctl("watch", "--json", env=env).stdout)
        assert entry == {"name": "localtest", "location": GARMIN, "uri": "localtest:///Internal%20Storage/GARMIN",
                         "free_bytes": None}
        # A shell completes `--watch` with the names (what the completion scripts ask; intervalctl-desktop answers).
        completed = ctl("---completion", "watch", "send", "--", "--watch", "0", "0", env=env)
        assert (completed.returncode, completed.stdout) == (0, "localtest\n"), completed.stderr

        new_files = storage / "GARMIN" / "NewFiles"
        sent = ctl("watch", "send", "tabata", env=env)
        assert sent.returncode == 0, sent.stderr
        assert sent.stdout.splitlines() == [
            f"Sent “Tabata” as {GARMIN}/NewFiles/Tabata.fit",
            "Sent “Tabata” to localtest. Unplug the watch to load the workout.",
        ]
        assert workout_name(new_files / "Tabata.fit") == "Tabata"

        # A file of that name is replaced (deleted, then copied: MTP cannot overwrite).
        (new_files / "Tabata.fit").write_bytes(b"an older workout")
        assert ctl("watch", "send", "-e", "2x(1m run, 1m walk)", "tabata", env=env).returncode == 64
        again = ctl("watch", "send", "tabata", env=env)
        assert again.returncode == 0, again.stderr
        assert workout_name(new_files / "Tabata.fit") == "Tabata"

        # A FIT workout goes as it is, a step intervald cannot time included (the watch runs it); an activity is no
        # workout.
        fit = ctl("watch", "send", str(DATA / "garmin-open-step.fit"), env=env)
        assert fit.returncode == 0, fit.stderr
        assert (new_files / "garmin-open-step.fit").read_bytes() == (DATA / "garmin-open-step.fit").read_bytes()
        activity = ctl("watch", "send", str(history_activity(tmp_path)), env=env)
        assert activity.returncode == 65 and "a recorded activity" in activity.stderr, activity.stderr

        # The program's next day, a day, and a week: named as `program export` names them.
        day = ctl("watch", "send", "--program", "c25k", env=env)
        assert day.returncode == 0, day.stderr
        assert day.stdout.endswith("Unplug the watch to load the workout.\n")
        chosen = ctl("watch", "send", "--program", "c25k", "--day", "2.3", env=env)
        assert chosen.returncode == 0, chosen.stderr
        week = ctl("watch", "send", "--program", "c25k", "--week", "3", env=env)
        assert week.returncode == 0, week.stderr
        assert week.stdout.splitlines()[-1] == "Sent 3 workouts to localtest. Unplug the watch to load the workouts."
        names = ["Couch to 5K W1D1.fit", "Couch to 5K W2D3.fit", "Couch to 5K W3D1.fit", "Couch to 5K W3D2.fit",
                 "Couch to 5K W3D3.fit", "Tabata.fit", "garmin-open-step.fit"]
        assert sorted(path.name for path in new_files.iterdir()) == names
        for name in names[:5]:
            assert workout_name(new_files / name).startswith("Couch to 5K"), name
        no_week = ctl("watch", "send", "--program", "c25k", "--week", "10", env=env)
        assert (no_week.returncode, said(no_week.stderr)) == (1, "intervalctl: error: Couch to 5K has no week 10 (it has 9)\n")

        # An invalid plan sends nothing (and is said before any watch is looked for).
        invalid = ctl("watch", "send", "-e", "3x(30sx run)", env=env)
        assert invalid.returncode == 65 and "error: unknown duration unit 'sx'" in invalid.stderr
        assert sorted(path.name for path in new_files.iterdir()) == names
    # Each workout's local copy is gone.
    assert list((tmp_path / "tmp").iterdir()) == []


def test_a_copy_that_fails_leaves_nothing_on_the_watch_and_says_why(tmp_path, env):
    with localtest_watch(tmp_path, fail_writes=True) as storage:
        failed = ctl("watch", "send", "tabata", env=env)
        assert failed.returncode == 1
        assert said(failed.stderr) == (f"intervalctl: error: Could not copy “Tabata.fit” to localtest ({GARMIN}/NewFiles): "
                                 "Injected error. Nothing of it was left on the watch.\n")
        assert failed.stdout == ""
        # The copy had created the file when its write failed: it was deleted.
        assert list((storage / "GARMIN" / "NewFiles").iterdir()) == []
    assert list((tmp_path / "tmp").iterdir()) == []


def test_with_two_watches_watch_names_the_one_to_send_to(tmp_path, env):
    """A watch as USB storage (GARMIN at its root, a path) beside the URI-only one: both listed, a send without --watch
    refused with their names, and --watch choosing."""
    content = tmp_path / "usb-content"
    (content / "GARMIN").mkdir(parents=True)
    image = tmp_path / "usb.img"
    subprocess.run(["mkfs.ext2", "-q", "-F", "-L", "FORERUNNER", "-d", str(content), str(image), "8M"], check=True,
                   capture_output=True)
    home = tmp_path / "home"
    mount_point = home / "FORERUNNER"
    mount_point.mkdir(parents=True)
    # A mount namespace that outlives each command: intervalctl runs in it through nsenter.
    holder = subprocess.Popen(["unshare", "-m", "--propagation", "private", "sleep", "infinity"])
    try:
        def inside(*command):
            return subprocess.run(["nsenter", "-t", str(holder.pid), "-m", "--", *command], capture_output=True,
                                  text=True, timeout=30, env={**os.environ, **env, "HOME": str(home)})

        wait_until(lambda: inside("true").returncode == 0, 10, "the mount namespace")
        assert inside("mount", "-o", "loop", str(image), str(mount_point)).returncode == 0
        with localtest_watch(tmp_path) as storage:
            intervalctl = str(BIN / "intervalctl")
            listed = inside(intervalctl, "watch")
            assert listed.returncode == 0, listed.stderr
            lines = listed.stdout.splitlines()
            assert len(lines) == 2, lines
            assert any(line.startswith(f"FORERUNNER  {mount_point}/GARMIN  ") and line.endswith(" free")
                       for line in lines), lines
            assert f"localtest   {GARMIN}  free space unknown" in lines
            refused = inside(intervalctl, "watch", "send", "tabata")
            assert refused.returncode == 1
            assert "Several watches are connected (" in refused.stderr and "--watch NAME" in refused.stderr
            chosen = inside(intervalctl, "watch", "send", "tabata", "--watch", "FORERUNNER")
            assert chosen.returncode == 0, chosen.stderr
            assert inside("ls", str(mount_point / "GARMIN" / "NewFiles")).stdout == "Tabata.fit\n"
            assert not (storage / "GARMIN" / "NewFiles").exists()
            unknown = inside(intervalctl, "watch", "send", "tabata", "--watch", "Edge")
            assert unknown.returncode == 1 and "No watch named “Edge” is connected" in unknown.stderr
    finally:
        subprocess.run(["nsenter", "-t", str(holder.pid), "-m", "--", "umount", str(mount_point)], capture_output=True)
        holder.kill()
        holder.wait(timeout=10)
