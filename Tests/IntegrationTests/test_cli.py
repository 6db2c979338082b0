"""intervalctl's plan commands, run as a user runs them: output, diagnostics and exit codes (docs/reference.md §2)."""
import json
import os
import stat
import subprocess
import threading

from conftest import BIN, REPO, ctl

PLANS = REPO / "config" / "plans"


def test_galloway_shows_a_forty_minute_total():
    result = ctl("plan", "show", str(PLANS / "galloway-30-30.plan"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "Galloway run/walk 30:30 — 40:00, 56 segments"
    assert "Total   40:00" in result.stdout or "Total  40:00" in result.stdout


def test_named_plans_resolve_through_xdg_data_dirs(tmp_path):
    data = tmp_path / "share"
    (data / "intervald").mkdir(parents=True)
    (data / "intervald" / "plans").symlink_to(PLANS)
    env = {"XDG_DATA_DIRS": str(data), "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "none")}
    shown = ctl("plan", "show", "galloway-30-30", env=env)
    assert shown.returncode == 0, shown.stderr
    assert "40:00" in shown.stdout.splitlines()[0]
    listed = ctl("plans", env=env)
    assert listed.returncode == 0
    names = [line.split()[0] for line in listed.stdout.splitlines()]
    assert {"galloway-30-30", "galloway-1-1", "galloway-3-1", "hiit-30-30", "tabata", "c25k-week1", "paced-5k"} <= set(names)
    missing = ctl("plan", "show", "no-such-plan", env=env)
    assert missing.returncode == 1
    assert missing.stderr.startswith("intervalctl: error: no plan named 'no-such-plan'")


def test_distance_bounded_repeat_is_solved():
    result = ctl("plan", "show", "-e", "for 5km(4m run @ 5:30/km, 1m walk @ 10:00/km)")
    assert result.returncode == 0, result.stderr
    assert "for 5 km: 6 full rounds + 0:12 of round 7" in result.stdout
    assert "Total         30:12" in result.stdout
    assert "Distance      5.00 km (3.11 mi)" in result.stdout


def test_json_is_stable_and_complete():
    result = ctl("plan", "show", "--json", "-e", "name \"T\"\n2x(30s run @ 5:00/km, 30s walk @ 10:00/km)")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["name"] == "T"
    assert data["duration_us"] == 120_000_000
    assert data["segment_count"] == 4
    assert data["distance_m"] == 300.0
    assert data["items"][0]["type"] == "repeat"
    assert data["items"][0]["count"] == 2
    assert [i["kind"] for i in data["items"][0]["items"]] == ["run", "walk"]
    assert result.stderr == ""


def test_stdin_plans():
    result = ctl("plan", "show", "-", input="3x(1m run, 1m walk)\n")
    assert result.returncode == 0
    assert "6:00" in result.stdout.splitlines()[0]


def test_invalid_plans_exit_65_with_located_diagnostics(tmp_path):
    bad = tmp_path / "galloway.plan"
    bad.write_text("name \"G\"\n5m walk\n4x { 30sx run; 30s walk }\n")
    good = PLANS / "tabata.plan"
    result = ctl("plan", "check", str(bad), str(good))
    assert result.returncode == 65
    assert result.stderr == (
        f"{bad}:3:8: error: unknown duration unit 'sx' (expected ms, s, m or h)\n"
        "4x { 30sx run; 30s walk }\n"
        "       ^\n"
    )
    assert f"{good}: ok: Tabata, 12:00, 18 segments" in result.stdout
    inline = ctl("plan", "show", "-e", "3x(30s run")
    assert inline.returncode == 65
    assert inline.stderr.startswith("<inline>:1:11: error: expected ')' to close the group opened at 1:3")


def test_every_bundled_plan_is_valid():
    result = ctl("plan", "check", *sorted(str(p) for p in PLANS.glob("*.plan")))
    assert result.returncode == 0, result.stderr
    assert len(result.stdout.splitlines()) >= 6


def test_binary_and_huge_inputs_never_crash(tmp_path):
    blob = tmp_path / "blob.plan"
    blob.write_bytes(bytes(range(256)) * 4096)
    result = ctl("plan", "check", str(blob))
    assert result.returncode == 65
    assert result.stderr.startswith(f"{blob}:1:1: error: ")
    big = tmp_path / "big.plan"
    # 2.2 MB, 240,000 segments: far past any real plan (a debug build shows it in about 10 s; the parser's linear time
    # at scale is PlanScaleTests's, its throughput the benchmark's).
    big.write_text("1ms run, 1ms walk\n" * 120_000)
    result = ctl("plan", "show", str(big), timeout=120)
    assert result.returncode == 0, result.stderr
    assert "240000 segments" in result.stdout.splitlines()[0]
    deep = ctl("plan", "show", "-", input="2x(" * 100_000)
    assert deep.returncode == 65
    assert "groups nest deeper than the limit of 32" in deep.stderr


def test_usage_errors_exit_64():
    missing = ctl("plan", "show")
    assert missing.returncode == 64
    assert missing.stderr.startswith("intervalctl: error: Give a PLAN, -e EXPR, or '-' for standard input.\nUsage: ")
    assert ctl("plan", "show", "-e", "1s run", "some.plan").returncode == 64
    assert ctl("no-such-command").returncode == 64


def test_check_goes_on_past_an_unreadable_file():
    result = ctl("plan", "check", "/nonexistent/a.plan", str(PLANS / "tabata.plan"))
    assert result.returncode == 1
    assert result.stderr == "intervalctl: error: cannot read '/nonexistent/a.plan': no such file\n"
    assert "tabata.plan: ok: Tabata" in result.stdout


def test_calc_solves_time_distance_or_pace():
    """`intervalctl calc`: the third of time, distance and pace from the other two, as the plan language writes them."""
    assert ctl("calc", "10mi", "@", "9:00/mi").stdout == "1:30:00\n"
    assert ctl("calc", "5km in 25:00").stdout == "5:00/km, 12.0 km/h\n"
    assert ctl("calc", "5 km in 25:00").stdout == "5:00/km, 12.0 km/h\n", "as people type a distance"
    assert ctl("calc", "45:00 @ 5:30/km").stdout == "8.18 km\n"
    splits = ctl("calc", "5km", "in", "26:15", "--splits")
    assert splits.returncode == 0
    assert splits.stdout.splitlines() == ["5:15/km, 11.4 km/h", "1 km   5:15", "2 km  10:30", "3 km  15:45",
                                          "4 km  21:00", "5 km  26:15"]
    solved = json.loads(ctl("calc", "3mi @ 8:00/mi", "--json", "--splits").stdout)
    assert (solved["solved"], solved["time_us"], solved["mph"]) == ("time", 1_440_000_000, 7.5)
    assert [split["time_us"] for split in solved["splits"]] == [480_000_000, 960_000_000, 1_440_000_000]


def test_calc_refuses_bad_input_with_a_located_error():
    one = ctl("calc", "5km")
    assert one.returncode == 65 and one.stdout == ""
    assert one.stderr.startswith("<calc>:1:4: error: give two of a distance")
    typo = ctl("calc", "5km", "in", "25:0")
    assert typo.returncode == 65
    assert typo.stderr.splitlines()[1:] == ["5km in 25:0", "          ^"]
    assert ctl("calc").returncode == 64
    endless = ctl("calc", "1000000km @ 0.0001 m/s")
    assert (endless.returncode, endless.stderr) == (65, "intervalctl: error: That run cannot be solved.\n")


def test_a_pipe_a_fifo_and_dev_null_are_read_as_files_are(tmp_path):
    """They said "permission denied", as root too: the file was checked, not read."""
    piped = ctl("plan", "show", "/dev/stdin", input="10s run\n")
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout.splitlines()[0] == "stdin — 0:10, 1 segment"
    fifo = tmp_path / "fifo.plan"
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_text, args=("5s walk\n",))
    writer.start()
    from_fifo = ctl("plan", "show", str(fifo))
    writer.join(timeout=10)
    assert from_fifo.returncode == 0 and from_fifo.stdout.startswith("fifo — 0:05, 1 segment"), from_fifo.stderr
    empty = ctl("plan", "check", "/dev/null")
    assert empty.returncode == 65
    assert "/dev/null:1:1: error: the plan has no steps" in empty.stdout + empty.stderr
    assert "permission denied" not in empty.stderr
    folder = ctl("plan", "show", str(tmp_path))
    assert folder.returncode == 1 and f"cannot read '{tmp_path}': it is a directory" in folder.stderr


def test_exported_files_and_folders_follow_the_umask(tmp_path):
    """They were 0600 in folders of 0700 whatever the umask."""
    share = tmp_path / "share"
    (share / "intervald").mkdir(parents=True)
    (share / "intervald" / "programs").symlink_to(REPO / "config" / "programs")
    out = tmp_path / "watch" / "week"
    exported = subprocess.run(
        ["sh", "-c", 'umask 022; exec "$0" program export c25k --day 1.1 -o "$1"', str(BIN / "intervalctl"), str(out)],
        capture_output=True, text=True, timeout=30,
        env={**os.environ, "XDG_DATA_DIRS": str(share), "XDG_CONFIG_HOME": str(tmp_path / "config"),
             "XDG_DATA_HOME": str(tmp_path / "none"), "XDG_STATE_HOME": str(tmp_path / "state")})
    assert exported.returncode == 0, exported.stderr
    files = list(out.iterdir())
    assert files and all(stat.S_IMODE(f.stat().st_mode) == 0o644 for f in files), [oct(f.stat().st_mode) for f in files]
    assert stat.S_IMODE(out.stat().st_mode) == 0o755 and stat.S_IMODE(out.parent.stat().st_mode) == 0o755
