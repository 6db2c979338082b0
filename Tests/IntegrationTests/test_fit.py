"""Plans as FIT workouts and the history as FIT activities and CSV (docs/fit.md), read by an independent decoder:
fitdecode from PyPI (MIT; scripts/setup-deps installs it), which checks every CRC as it reads."""
import csv
import io
import json
import time
from pathlib import Path

import fitdecode
import pytest

from conftest import REPO, call, ctl, desktop_required, has_locale, history_activity, in_language, wait_until

PLANS = sorted((REPO / "config" / "plans").glob("*.plan"))
DATA = Path(__file__).with_name("data") / "fit"


def read_fit(path):
    """The data messages of a FIT file as (name, {field: value}), by fitdecode (a bad CRC raises)."""
    with fitdecode.FitReader(str(path), check_crc=fitdecode.CrcCheck.RAISE) as reader:
        return [(frame.name, {field.name: field.value for field in frame.fields})
                for frame in reader if isinstance(frame, fitdecode.FitDataMessage)]


def workout_seconds(steps):
    """The time a workout's steps take, repeats expanded as a watch runs them; None when a distance bounds a repeat."""
    totals = []  # the time of each step so far, by index
    for step in steps:
        kind = step["duration_type"]
        if kind == "time":
            totals.append(step["duration_time"])
        elif kind in ("repeat_until_steps_cmplt", "repeat_until_time"):
            first = step["duration_step"]
            once = sum(totals[first:])
            repeated = once * step["repeat_steps"] if kind == "repeat_until_steps_cmplt" else step["target_value"] / 1000
            totals[first:] = [repeated] + [0] * (len(totals) - first - 1)
            totals.append(0)
        else:
            return None
    return sum(totals)


def shown(*args, input=None, env=None):
    result = ctl("plan", "show", "--json", *args, input=input, env=env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def flat(items):
    """A plan's JSON items as comparable rows: type, kind, label, time, count, bound; the pace in s/km rounded."""
    rows = []
    for item in items:
        pace = item.get("pace")
        rows.append((item["type"], item.get("kind"), item.get("label"), item["duration_us"], item.get("count"),
                     item.get("limit_us"), item.get("limit_m"), round(pace["seconds_per_km"]) if pace else None))
        rows += flat(item.get("items", []))
    return rows


@pytest.mark.parametrize("plan", PLANS, ids=lambda path: path.stem)
def test_every_bundled_plan_is_the_workout_the_mapping_says_and_comes_back_as_the_same_plan(plan, tmp_path):
    out = tmp_path / "workout.fit"
    exported = ctl("plan", "export", str(plan), "--format", "fit", "-o", str(out))
    assert exported.returncode == 0, exported.stderr
    messages = read_fit(out)
    original = shown(str(plan))
    assert messages[0][0] == "file_id" and messages[0][1]["type"] == "workout"
    workout = next(fields for name, fields in messages if name == "workout")
    steps = [fields for name, fields in messages if name == "workout_step"]
    assert workout["wkt_name"] == original["name"]
    assert workout["num_valid_steps"] == len(steps)
    assert [step["message_index"] for step in steps] == list(range(len(steps)))
    for step in steps:
        if step["duration_type"] == "time":
            assert step["intensity"] in ("active", "rest", "warmup", "cooldown", "recovery")
            assert step["notes"] and step["wkt_step_name"]
    seconds = workout_seconds(steps)
    if seconds is not None:
        assert round(seconds * 1_000_000) == original["duration_us"]
    else:
        assert any(step["duration_type"] == "repeat_until_distance" for step in steps)

    imported = ctl("plan", "import", str(out), "-o", "-")
    assert imported.returncode == 0, imported.stderr
    back = shown("-", input=imported.stdout)
    assert back["name"] == original["name"]
    assert back["duration_us"] == original["duration_us"]
    assert back["segment_count"] == original["segment_count"]
    assert flat(back["items"]) == flat(original["items"])


def test_every_couch_to_5k_day_is_a_workout_file_named_by_its_day(tmp_path):
    share = tmp_path / "share"
    (share / "intervald").mkdir(parents=True)
    (share / "intervald" / "programs").symlink_to(REPO / "config" / "programs")
    env = {"XDG_DATA_DIRS": str(share), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "XDG_DATA_HOME": str(tmp_path / "none"), "XDG_STATE_HOME": str(tmp_path / "state")}
    exported = ctl("program", "export", "c25k", "-o", str(tmp_path / "watch"), env=env)
    assert exported.returncode == 0, exported.stderr
    files = sorted((tmp_path / "watch").iterdir())
    program = json.loads(ctl("program", "show", "c25k", "--json", env=env).stdout)
    assert len(files) == len(program["days"]) == 27
    assert (tmp_path / "watch" / "Couch to 5K W3D2.fit") in files
    for day in program["days"]:
        week, number = day["day"].split(".")
        path = tmp_path / "watch" / f"Couch to 5K W{week}D{number}.fit"
        steps = [fields for name, fields in read_fit(path) if name == "workout_step"]
        assert round(workout_seconds(steps) * 1_000_000) == day["duration_us"], path.name
        back = ctl("plan", "import", str(path), "-o", "-")
        assert back.returncode == 0, back.stderr
        assert shown("-", input=back.stdout)["duration_us"] == day["duration_us"]
    one = ctl("program", "export", "c25k", "--day", "9.3", "-o", str(tmp_path / "one"), env=env)
    assert one.returncode == 0, one.stderr
    assert [path.name for path in (tmp_path / "one").iterdir()] == ["Couch to 5K W9D3.fit"]


def test_garmin_workouts_are_imported_into_the_plans_folder(tmp_path):
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    imported = ctl("plan", "import", str(DATA / "garmin-connect-intervals.fit"), env=env)
    assert imported.returncode == 0, imported.stderr
    path = tmp_path / "config" / "intervald" / "plans" / "intervals-5x1km.plan"
    assert imported.stdout.strip() == f"Imported Intervals 5x1km as {path}"
    plan = shown(str(path))
    # 10 min warm-up, 5 × (1 km at 5:00/km, 2 min), 5 min cool-down.
    assert plan["duration_us"] == (10 + 5 * 7 + 5) * 60_000_000
    assert [row[1] for row in flat(plan["items"])] == ["warmup", None, "work", "recovery", "cooldown"]
    again = ctl("plan", "import", str(DATA / "garmin-connect-intervals.fit"), "--name", "Track Tuesday", env=env)
    assert again.returncode == 0, again.stderr
    assert shown(str(path.with_name("track-tuesday.plan")))["name"] == "Track Tuesday"
    big = ctl("plan", "import", str(DATA / "garmin-watch-big-endian.fit"), "-o", "-")
    assert big.returncode == 0, big.stderr
    assert shown("-", input=big.stdout)["duration_us"] == 6 * 60_000_000


def test_what_is_not_a_workout_is_refused_and_nothing_is_written(tmp_path):
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    good = (DATA / "garmin-connect-intervals.fit").read_bytes()
    damaged = bytearray(good)
    damaged[40] ^= 0xFF
    cases = {
        "damaged.fit": (bytes(damaged), "the file is damaged: its CRC does not match its contents"),
        "cut.fit": (good[:100], "the file is incomplete, a copy that stopped before its end"),
        "text.fit": (b"8x(30s run, 30s walk)\n", "not a FIT file"),
    }
    for name, (content, reason) in cases.items():
        (tmp_path / name).write_bytes(content)
        result = ctl("plan", "import", str(tmp_path / name), env=env)
        assert result.returncode == 65, (name, result.stderr)
        assert result.stderr.startswith(f"{tmp_path / name}: error: ") and reason in result.stderr, result.stderr
    assert not (tmp_path / "config").exists()


#: Workouts as Garmin Connect writes them and as Garmin's FIT SDK's samples are described (written by
#: data/fit/make_garmin_workouts.py), and the plan each is: a heart rate in bpm ends its step itself (hr<125); a custom
#: heart-rate range in bpm and a power range in watts are targets (@ 140-150bpm, @ 300-310W); open steps where no clock
#: ends a step (the Lap button, a distance without a pace, a heart rate as a percentage of an unknown maximum,
#: calories, power), with what a watch would have waited for, and the targets it cannot follow, in the label.
IMPORTED = {
    "garmin-open-step.fit": ['open warmup "Warm up"', '10m work "Run"'],
    "garmin-connect-track.fit": [
        "open warmup", "6x {", "  0.4km work", '  1m30s recovery "Walk"', "}",
        "hr<125 cooldown"],
    "garmin-connect-sensors.fit": [
        '10m warmup "Warm-up · heart rate zone 2"', '20m work "Tempo" @ 140-150bpm', 'open work "Burn · until 200 kcal"',
        'open recovery "Recovery · until power below 150 W"',
        'open work "Climb · until heart rate above 80% of maximum"', '2m work "Quick feet · cadence 85–90"',
        "hr<125 cooldown"],
    "sdk-workout-individual-steps.fit": [
        '1m warmup "_A_ · heart rate zone 2"', '0.5km work "B1_ · power zone 5"', '0.5km work "B2_ · power zone 3"',
        'hr<125 cooldown "_C_ · power zone 1"'],
    "sdk-workout-repeat-steps.fit": [
        '1m warmup "_A_ · heart rate zone 2"', "3x {", '  0.5km work "B1_ · power zone 5"',
        '  0.5km work "B2_ · power zone 3"', "}", 'hr<125 cooldown "_C_ · power zone 1"'],
    "sdk-workout-custom-target-values.fit": [
        '1m warmup "_A_ · heart rate 50–60% of maximum"', '0.5km work "B1_" @ 300-310W', '0.5km work "B2_" @ 260-270W',
        'hr<125 cooldown "_C_" @ 220-230W'],
}


def plan_lines(text):
    """A plan text's items, after its name and the blank line."""
    lines = text.splitlines()
    assert lines[0].startswith("name ") and lines[1] == "", text
    return lines[2:]


def test_heart_rates_as_a_percentage_of_the_maximum_become_bpm_with_the_settings_maximum(tmp_path):
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    (tmp_path / "config" / "intervald").mkdir(parents=True)
    (tmp_path / "config" / "intervald" / "intervald.toml").write_text("[sensors]\nmax_heart_rate = 190\n")
    sensors = ctl("plan", "import", str(DATA / "garmin-connect-sensors.fit"), "-o", "-", env=env)
    assert sensors.returncode == 0, sensors.stderr
    # 80 % of 190 is 152.
    assert 'hr>152 work "Climb"' in plan_lines(sensors.stdout), sensors.stdout
    custom = ctl("plan", "import", str(DATA / "sdk-workout-custom-target-values.fit"), "-o", "-", env=env)
    assert custom.returncode == 0, custom.stderr
    # 50–60 % of 190.
    assert plan_lines(custom.stdout)[0] == '1m warmup "_A_" @ 95-114bpm', custom.stdout


@pytest.mark.parametrize("name", IMPORTED)
def test_workouts_with_steps_no_clock_ends_are_imported_with_open_steps(name, tmp_path):
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    imported = ctl("plan", "import", str(DATA / name), env=env)
    assert imported.returncode == 0, imported.stderr
    (path,) = (tmp_path / "config" / "intervald" / "plans").iterdir()
    assert imported.stdout == f"Imported {shown(str(path))['name']} as {path}\n"
    text = path.read_text()
    assert plan_lines(text) == IMPORTED[name], text
    show = ctl("plan", "show", str(path), env=env)
    assert show.returncode == 0, show.stderr
    for label in [line.split('"')[1] for line in IMPORTED[name] if '"' in line]:
        assert label in show.stdout, show.stdout
    # Written as a FIT workout again and imported again: the same plan, labels with their conditions too.
    out = tmp_path / "again.fit"
    exported = ctl("plan", "export", str(path), "-o", str(out), env=env)
    assert exported.returncode == 0, exported.stderr
    again = ctl("plan", "import", str(out), "-o", "-", env=env)
    assert again.returncode == 0, again.stderr
    assert again.stdout == text


@pytest.mark.parametrize("name, refusal", [
    ("garmin-connect-repeat-until-hr.fit",
     "step 6 (Repeat): repeats until heart rate below 120 bpm, which only a watch's sensor can tell"),
    ("sdk-workout-repeat-greater-than-step.fit",
     "step 4 (Rep): repeats until heart rate above 80% of maximum, which only a watch's sensor can tell"),
])
def test_a_repeat_until_a_heart_rate_is_refused_naming_the_step_and_the_value(name, refusal, tmp_path):
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    result = ctl("plan", "import", str(DATA / name), env=env)
    assert (result.returncode, result.stdout, result.stderr) == (65, "", f"{DATA / name}: error: {refusal}\n")
    assert not (tmp_path / "config").exists(), "nothing written"


@pytest.mark.skipif(not has_locale("de_DE.UTF-8"), reason="needs the de_DE.UTF-8 locale")
def test_a_refusal_and_an_imported_condition_are_in_the_users_language(tmp_path):
    german = in_language("de_DE.UTF-8")
    refused = ctl("plan", "import", str(DATA / "garmin-connect-repeat-until-hr.fit"), "-o", "-", env=german)
    assert refused.returncode == 65
    assert refused.stderr == (
        f"{DATA / 'garmin-connect-repeat-until-hr.fit'}: Fehler: Schritt 6 (Repeat): wird wiederholt, bis Herzfrequenz "
        "unter 120 bpm, was nur der Sensor einer Uhr erkennen kann\n"), refused.stderr
    imported = ctl("plan", "import", str(DATA / "garmin-connect-sensors.fit"), "-o", "-", env=german)
    assert imported.returncode == 0, imported.stderr
    assert 'open work "Climb · bis Herzfrequenz über 80 % des Maximums"' in imported.stdout, imported.stdout


def test_open_and_distance_steps_go_out_as_the_duration_types_a_watch_reads(tmp_path):
    plan = "open warmup, 6x(0.4km run, 90s walk), 0.4km run @ 5:00/km, open cooldown"
    out = tmp_path / "track.fit"
    exported = ctl("plan", "export", "-e", plan, "-o", str(out))
    assert exported.returncode == 0, exported.stderr
    steps = [fields for name, fields in read_fit(out) if name == "workout_step"]
    assert [step["duration_type"] for step in steps] == [
        "open", "distance", "time", "repeat_until_steps_cmplt", "distance", "open"]
    warmup, run, walk, repeat, paced, cooldown = steps
    assert (warmup["intensity"], warmup["duration_value"], warmup["target_type"]) == ("warmup", None, "open")
    assert (run["duration_distance"], run["target_type"], run["notes"]) == (400.0, "open", "run")
    assert walk["duration_time"] == 90.0
    assert (repeat["duration_step"], repeat["repeat_steps"]) == (1, 6)
    # 5:00/km is 3.333 m/s: a band of 2 % either side.
    assert paced["duration_distance"] == 400.0 and paced["target_type"] == "speed"
    assert (paced["custom_target_speed_low"], paced["custom_target_speed_high"]) == (3.267, 3.4)
    assert (cooldown["intensity"], cooldown["duration_value"]) == ("cooldown", None)
    back = ctl("plan", "import", str(out), "-o", "-")
    assert back.returncode == 0, back.stderr
    assert plan_lines(back.stdout) == [
        "open warmup", "6x {", "  0.4km run", "  1m30s walk", "}", "0.4km run @ 5:00/km", "open cooldown"]


def bundled_plans(tmp_path):
    """An environment whose named plans are the bundled ones (found in XDG_DATA_DIRS) and none of the user's yet."""
    data = tmp_path / "share"
    (data / "intervald").mkdir(parents=True)
    (data / "intervald" / "plans").symlink_to(REPO / "config" / "plans")
    return {"XDG_DATA_DIRS": str(data), "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "XDG_DATA_HOME": str(tmp_path / "none")}


def test_an_import_never_hides_a_bundled_plan_or_makes_a_second_of_a_name(tmp_path):
    """Tabata exported and imported again wrote ~/.config/intervald/plans/tabata.plan without a word, hiding the
    bundled Tabata (its comments and countdown lost); a second import wrote tabata-2.plan, "Tabata" too."""
    env = bundled_plans(tmp_path)
    bundled = tmp_path / "share" / "intervald" / "plans" / "tabata.plan"
    exported = ctl("plan", "export", "tabata", "--format", "fit", "-o", str(tmp_path / "t.fit"), env=env)
    assert exported.returncode == 0, exported.stderr
    refused = ctl("plan", "import", str(tmp_path / "t.fit"), env=env)
    assert (refused.returncode, refused.stdout) == (1, "")
    assert refused.stderr == (f"intervalctl: error: a plan named “Tabata” exists already ({bundled}); "
                              "import it under another name with --name NAME\n")
    assert not (tmp_path / "config").exists(), "nothing written"
    assert json.loads(ctl("plan", "show", "tabata", "--json", env=env).stdout)["countdown_us"] == 3_000_000
    # Under a name of its own it is imported; that name is then taken too, letter case aside.
    mine = ctl("plan", "import", str(tmp_path / "t.fit"), "--name", "Tabata at home", env=env)
    assert mine.returncode == 0, mine.stderr
    own = tmp_path / "config" / "intervald" / "plans" / "tabata-at-home.plan"
    assert mine.stdout == f"Imported Tabata at home as {own}\n"
    again = ctl("plan", "import", str(tmp_path / "t.fit"), "--name", "TABATA AT HOME", env=env)
    assert again.returncode == 1 and f"“TABATA AT HOME” exists already ({own})" in again.stderr, again.stderr
    assert [path.name for path in own.parent.iterdir()] == [own.name]
    # -o writes where it is told, whatever the name.
    assert ctl("plan", "import", str(tmp_path / "t.fit"), "-o", "-", env=env).stdout.startswith('name "Tabata"')


def test_fit_refusals_say_what_the_file_is_or_that_it_is_damaged(tmp_path):
    """A recorded run was refused as "of FIT file type 4, not a workout (5)"; a damaged header is said to be one."""
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    activity = ctl("plan", "import", str(history_activity(tmp_path)), env=env)
    assert activity.returncode == 65
    assert activity.stderr.endswith(
        "error: the file is a recorded activity (what a watch saves after a run), not a workout\n"), activity.stderr
    workout = tmp_path / "w.fit"
    assert ctl("plan", "export", "-e", "2x(1m run, 1m walk)", "-o", str(workout)).returncode == 0
    header = bytearray(workout.read_bytes())
    header[12] ^= 0x01
    (tmp_path / "header.fit").write_bytes(header)
    damaged = ctl("plan", "import", str(tmp_path / "header.fit"), env=env)
    assert (damaged.returncode, damaged.stderr) == (
        65, f"{tmp_path / 'header.fit'}: error: the file is damaged: its header's CRC does not match the header\n")
    assert not (tmp_path / "config").exists()


def test_a_name_too_long_for_a_watch_is_shortened_and_said(tmp_path):
    name = "Saturday long run with strides and a very easy finish"
    result = ctl("plan", "export", "-e", f'name "{name}"\n30m run', "-o", str(tmp_path / "w.fit"))
    assert result.returncode == 0, result.stderr
    assert f"intervalctl: note: The workout's name “{name}” is shortened to" in result.stderr
    workout = next(fields for kind, fields in read_fit(tmp_path / "w.fit") if kind == "workout")
    assert name.startswith(workout["wkt_name"]) and len(workout["wkt_name"].encode()) <= 48
    # Without -o the file is named after the plan, with what a watch's FAT cannot hold replaced.
    default = ctl("plan", "export", "-e", 'name "Run/walk 1:1"\n2x(1m run, 1m walk)', cwd=tmp_path)
    assert default.returncode == 0, default.stderr
    assert (tmp_path / "Run-walk 1-1.fit").exists()
    text = ctl("plan", "export", "-e", "2x(1m run, 1m walk)", "--format", "plan", "-o", "-")
    assert text.stdout.strip().endswith("}") and "2x {" in text.stdout


@desktop_required()
def test_the_history_goes_out_as_fit_activities_and_csv(activatable_daemon, tmp_path):
    state = tmp_path / "state"
    started = ctl("start", "-e", 'name "Short one"\n2x(200ms run, 300ms walk)')
    assert started.returncode == 0, started.stderr
    history = state / "intervald" / "history.jsonl"
    wait_until(lambda: history.exists() and history.read_text().endswith("\n"), 10, "the history record")
    record = json.loads(history.read_text().splitlines()[-1])
    env = {"XDG_STATE_HOME": str(state)}
    exported = ctl("history", "export", "--format", "fit", "-o", str(tmp_path / "log"), env=env)
    assert exported.returncode == 0, exported.stderr
    files = list((tmp_path / "log").iterdir())
    assert len(files) == 1 and files[0].name.endswith(" Short one.fit")
    messages = read_fit(files[0])
    assert messages[0][1]["type"] == "activity"
    laps = [fields for name, fields in messages if name == "lap"]
    assert [round(lap["total_timer_time"] * 1000) for lap in laps] == [200, 300, 200, 300]
    assert [lap["start_time"] for lap in laps] == sorted(lap["start_time"] for lap in laps)
    session = next(fields for name, fields in messages if name == "session")
    assert round(session["total_timer_time"] * 1_000_000) == record["done_us"] == 1_000_000
    assert session["num_laps"] == 4 and session["sport"] == "running"
    assert int(session["start_time"].timestamp()) == record["start_wall_us"] // 1_000_000
    assert any(name == "activity" for name, _ in messages)

    table = ctl("history", "export", "--format", "csv", "-o", "-", env=env)
    assert table.returncode == 0, table.stderr
    rows = list(csv.DictReader(io.StringIO(table.stdout, newline="")))
    assert len(rows) == 1
    row = rows[0]
    assert row["plan"] == "Short one" and row["result"] == "finished"
    assert int(row["done_us"]) == record["done_us"] and int(row["start_wall_us"]) == record["start_wall_us"]
    assert row["time_per_kind_us"] == "run=400000;walk=600000"
    assert row["start"] == record["start"]


def test_a_treadmills_readings_go_out_as_record_fields_with_each_laps_and_the_sessions_distance_and_speeds(tmp_path):
    """A treadmill's workout as the daemon records it (docs/reference.md §5: `machine`, `machine_summary`), without a
    machine here: its readings in the activity's records, in FIT's units, each lap's and the session's distance and
    speeds from them; the CSV's columns and the history's line from its summary."""
    state = tmp_path / "state"
    (state / "intervald").mkdir(parents=True)
    start = 1795806000000000
    minute = 60_000_000
    samples = [(1_000, 12.0, 3), (30_000, 12.5, 100), (59_000, 12.0, 200), (61_000, 6.0, 203), (119_000, 6.0, 300)]
    record = {"id": "t1", "plan": "1m run, 1m walk", "origin": "", "start": "2026-11-27T18:00:00+01:00",
              "end": "2026-11-27T18:02:00+01:00", "start_wall_us": start, "planned_us": 2 * minute,
              "done_us": 2 * minute, "segments_done": 2, "time_per_kind_us": {"run": minute, "walk": minute},
              "result": "finished", "reason": None, "text": "1m run, 1m walk", "end_wall_us": start + 2 * minute,
              "segments": [
                  {"index": 0, "kind": "run", "label": "Run", "start_wall_us": start,
                   "end_wall_us": start + minute, "paused_us": 0,
                   "machine_summary": {"distance": 200, "avg_speed": 12.17, "max_speed": 12.5}},
                  {"index": 1, "kind": "walk", "label": "Walk", "start_wall_us": start + minute,
                   "end_wall_us": start + 2 * minute, "paused_us": 0,
                   "machine_summary": {"distance": 100, "avg_speed": 6, "max_speed": 6}}],
              "pauses": [],
              "machine": [{"ms": ms, "speed": speed, "distance": metres} for ms, speed, metres in samples],
              "machine_summary": {"distance": 300, "avg_speed": 9.7, "max_speed": 12.5}}
    (state / "intervald" / "history.jsonl").write_text(json.dumps(record) + "\n")
    env = {"XDG_STATE_HOME": str(state)}

    exported = ctl("history", "export", "--format", "fit", "-o", str(tmp_path / "log"), env=env)
    assert exported.returncode == 0, exported.stderr
    (path,) = (tmp_path / "log").iterdir()
    messages = read_fit(path)
    records = [fields for name, fields in messages if name == "record" and fields.get("speed") is not None]
    assert [fields["speed"] for fields in records] == pytest.approx([3.333, 3.472, 3.333, 1.667, 1.667])
    assert [fields["distance"] for fields in records] == pytest.approx([3, 100, 200, 203, 300])
    assert all(fields.get("power") is None and fields.get("heart_rate") is None for fields in records)
    assert [int(fields["timestamp"].timestamp()) for fields in records] == [start // 1_000_000 + ms // 1000
                                                                           for ms, _, _ in samples]
    laps = [fields for name, fields in messages if name == "lap"]
    assert [lap["total_distance"] for lap in laps] == pytest.approx([200, 100])
    assert [lap["avg_speed"] for lap in laps] == pytest.approx([3.381, 1.667])
    assert [lap["max_speed"] for lap in laps] == pytest.approx([3.472, 1.667])
    (session,) = [fields for name, fields in messages if name == "session"]
    assert (session["total_distance"], session["avg_speed"], session["max_speed"]) == pytest.approx((300, 2.694, 3.472))
    assert session.get("avg_power") is None and session.get("avg_cadence") is None

    table = ctl("history", "export", "--format", "csv", "-o", "-", env=env)
    (row,) = csv.DictReader(io.StringIO(table.stdout, newline=""))
    assert (row["distance"], row["avg_speed"], row["max_speed"], row["avg_power"]) == ("300", "9.70", "12.50", "")
    listed = ctl("history", env=env).stdout
    assert "9.7 km/h avg · 0.30 km" in listed, listed


@desktop_required()
def test_a_training_log_gets_what_was_done_with_its_skips_and_its_pause(activatable_daemon, tmp_path):
    """Galloway 30:30 skipped twice and stopped after seconds was an activity of 332 s, laps of 300, 30 and 2 s, ending
    minutes after the workout did, and a pause was in its timer time: the history kept the plan's offsets."""
    history = tmp_path / "state" / "intervald" / "history.jsonl"
    began = time.time()
    started = ctl("start", str(REPO / "config" / "plans" / "galloway-30-30.plan"))
    assert started.returncode == 0, started.stderr
    for _ in range(2):
        assert ctl("skip").returncode == 0
    time.sleep(1)  # a second of the walk, done
    assert ctl("pause").returncode == 0
    paused = time.monotonic()
    time.sleep(1.5)  # the pause: real time that must not count as training
    assert ctl("resume").returncode == 0
    pause = time.monotonic() - paused
    time.sleep(1)
    assert ctl("stop").returncode == 0
    ended = time.time()
    record = json.loads(history.read_text().splitlines()[-1])
    # The warm-up, skipped at once, then the run, skipped at once (not played: no entry of its own), then the walk.
    assert [segment["kind"] for segment in record["segments"]][-1] == "walk"
    assert [segment["index"] for segment in record["segments"]][-1] == 2
    (recorded_pause,) = record["pauses"]
    assert abs((recorded_pause["end_wall_us"] - recorded_pause["start_wall_us"]) / 1e6 - pause) < 0.3
    assert record["done_us"] < (ended - began - pause + 0.3) * 1e6

    exported = ctl("history", "export", "--format", "fit", "-o", str(tmp_path / "log"),
                   env={"XDG_STATE_HOME": str(tmp_path / "state")})
    assert exported.returncode == 0, exported.stderr
    (path,) = (tmp_path / "log").iterdir()
    messages = read_fit(path)
    session = next(fields for name, fields in messages if name == "session")
    laps = [fields for name, fields in messages if name == "lap"]
    elapsed = record["end_wall_us"] / 1e6 - record["start_wall_us"] / 1e6
    assert abs(session["total_elapsed_time"] - elapsed) < 0.01 and elapsed < ended - began + 0.1
    assert abs(session["total_timer_time"] - record["done_us"] / 1e6) < 0.01
    assert abs(session["total_elapsed_time"] - session["total_timer_time"] - pause) < 0.3
    assert session["timestamp"].timestamp() <= ended + 1, "the session ends when the workout did"
    assert abs(sum(lap["total_timer_time"] for lap in laps) - session["total_timer_time"]) < 0.01
    walk = laps[-1]
    assert abs(walk["total_elapsed_time"] - walk["total_timer_time"] - pause) < 0.3, "the pause is in the walk's lap"
    assert walk["total_timer_time"] < 3, "a lap as long as it was done, not the plan's 30 s"
    timer_events = [fields["event_type"] for name, fields in messages if name == "event"]
    assert timer_events == ["start", "stop_all", "start", "stop_all"]

    table = ctl("history", "export", "--format", "csv", "-o", "-", env={"XDG_STATE_HOME": str(tmp_path / "state")})
    row = next(csv.DictReader(io.StringIO(table.stdout, newline="")))
    assert int(row["end_wall_us"]) == record["end_wall_us"]
    assert abs(int(row["paused_us"]) / 1e6 - pause) < 0.3
    assert row["segments_us"].split(";")[-1].startswith("walk=")
