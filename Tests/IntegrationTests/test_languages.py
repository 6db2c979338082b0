"""Cues in the runner's language (docs/reference.md §9): with a German, French or Spanish locale, the daemon's notifications
and buttons under dunst, `intervalctl status`, `plan show` (with decimal commas) and its errors are in that
language, from the compiled catalogs of po/, while `--json` stays byte-identical to the English run."""
import json
import os
from pathlib import Path

import pytest

from conftest import (LOCALE_DIR, REPO, ctl, desktop_required, has_locale, history_activity, in_language, press,
                      wait_until, write_history)

pytestmark = pytest.mark.skipif(
    not all(has_locale(name) for name in ("de_DE.UTF-8", "fr_FR.UTF-8", "es_ES.UTF-8"))
    or not Path(LOCALE_DIR, "de", "LC_MESSAGES", "intervald.mo").exists(),
    reason="needs the de_DE, fr_FR and es_ES locales (scripts/setup-deps) and scripts/build-mo .build/locale")


def test_plan_show_is_german_with_decimal_commas_and_json_is_the_same_bytes():
    plan = str(REPO / "config" / "plans" / "paced-5k.plan")
    german = ctl("plan", "show", plan, env=in_language("de_DE.UTF-8"))
    assert german.returncode == 0, german.stderr
    # A bundled plan's name is ours, so it is translated as its labels are; --json keeps the plan's own.
    assert german.stdout.startswith("5-km-Intervalle im Tempo — 45:12, 15 Abschnitte\n"), german.stdout
    for line in ["Gesamt           45:12", "Laufen           24:12  54 %", "Strecke          6,93 km (4,31 mi)",
                 "Mittleres Tempo  6:31/km (10:30/mi), 9,2 km/h (5,7 mph)"]:
        assert line in german.stdout.splitlines()
    assert "für 5 km: 6 volle Runden + 0:12 von Runde 7 (5:00 pro Runde)" in german.stdout
    english = ctl("plan", "show", plan, env=in_language("C.UTF-8"))
    assert "Distance  " in english.stdout and "6.93 km" in english.stdout
    assert json.loads(ctl("plan", "show", "--json", plan).stdout)["name"] == "Paced 5K intervals"
    assert ctl("plan", "show", "--json", plan, env=in_language("de_DE.UTF-8")).stdout == \
        ctl("plan", "show", "--json", plan, env=in_language("C.UTF-8")).stdout
    # The plan language is the same in every locale: a decimal point parses, a comma does not.
    assert ctl("plan", "check", "-", input="4x(1.5m run, 30s walk)\n", env=in_language("de_DE.UTF-8")).returncode == 0
    distance = ctl("plan", "show", "-", input="for 1.5km { 1m run @ 6:00/km, 1m walk @ 10.5 km/h }\n",
                   env=in_language("de_DE.UTF-8"))
    assert distance.returncode == 0, distance.stderr
    assert "Strecke          1,50 km (0,93 mi)" in distance.stdout.splitlines()
    assert ctl("plan", "check", "-", input="for 1,5km { 1m run }\n", env=in_language("de_DE.UTF-8")).returncode != 0


def test_the_bundled_plans_names_are_german_in_the_listing_and_their_own_in_json(tmp_path):
    data = tmp_path / "share"
    (data / "intervald").mkdir(parents=True)
    (data / "intervald" / "plans").symlink_to(REPO / "config" / "plans")
    bundled = {"XDG_DATA_DIRS": str(data), "XDG_CONFIG_HOME": str(tmp_path / "config"),
               "XDG_DATA_HOME": str(tmp_path / "none")}
    german = ctl("plans", env={**bundled, **in_language("de_DE.UTF-8")})
    assert german.returncode == 0, german.stderr
    rows = {line.split()[0]: line for line in german.stdout.splitlines()}
    assert rows["c25k-week1"].endswith("Couch to 5K — Woche 1"), german.stdout
    assert rows["galloway-30-30"].endswith("Galloway Laufen/Gehen 30:30"), german.stdout
    assert rows["tabata"].endswith("Tabata"), german.stdout
    listed = json.loads(ctl("plans", "--json", env={**bundled, **in_language("de_DE.UTF-8")}).stdout)
    titles = {entry["name"]: entry["title"] for entry in listed}
    assert titles["c25k-week1"] == "Couch to 5K — week 1"


def test_calc_takes_a_decimal_comma_in_german_as_the_windows_calculator_does():
    """`intervalctl calc 10,5km in 55:00` was refused in German though the window took "10,5"; the answer is German."""
    german = ctl("calc", "10,5km in 55:00", env=in_language("de_DE.UTF-8"))
    assert german.returncode == 0, german.stderr
    assert german.stdout == "5:14/km, 11,5 km/h\n"
    assert ctl("calc", "10,5 km", "in", "55:00", env=in_language("de_DE.UTF-8")).stdout == german.stdout
    assert ctl("calc", "10.5km in 55:00", env=in_language("C.UTF-8")).stdout == "5:14/km, 11.5 km/h\n"


def test_a_diagnostic_is_german_and_still_located(tmp_path):
    plan = tmp_path / "bad.plan"
    plan.write_text('name "Hügel"\n4x { 30sx run; 30s walk }\n')
    checked = ctl("plan", "check", str(plan), env=in_language("de_DE.UTF-8"))
    assert checked.returncode == 65
    assert checked.stderr.splitlines() == [
        f"{plan}:2:8: Fehler: unbekannte Zeiteinheit 'sx' (ms, s, m oder h erwartet)",
        "4x { 30sx run; 30s walk }",
        "       ^",
    ]


def test_errors_are_in_french_and_spanish_with_their_typography():
    french = ctl("start", "nope", env=in_language("fr_FR.UTF-8"))
    assert french.returncode == 1
    assert french.stderr.startswith("intervalctl\u00a0: erreur\u00a0: aucun programme nommé «\u00a0nope\u00a0» (cherché dans ")
    spanish = ctl("start", "-e", "8x(30s run, 30s walk)", "nope", env=in_language("es_ES.UTF-8"))
    assert spanish.returncode == 64
    assert "Indica un PLAN o -e EXPR, no ambos." in spanish.stderr


def test_the_history_and_fit_refusals_are_german(tmp_path):
    """`intervalctl history`'s totals listed kind ids ("walk 0:13, run 0:01, warmup 0:00") where the window says
    display names, and FIT refusals were English."""
    german = in_language("de_DE.UTF-8")
    write_history(tmp_path / "state", {"run": 1_000_000, "walk": 13_000_000, "warmup": 400_000})
    history = ctl("history", env={**german, "XDG_STATE_HOME": str(tmp_path / "state")})
    assert history.returncode == 0, history.stderr
    assert history.stdout.splitlines()[-1] == "1 Training, 0:14: Gehen 0:13, Laufen 0:01, Aufwärmen 0:00"
    # The one-line plan is named in words, not by its plan text.
    assert "2 × (Laufen 1:00, Gehen 1:00)" in history.stdout and "2x(" not in history.stdout
    env = {**german, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    activity = history_activity(tmp_path)
    refused = ctl("plan", "import", str(activity), env=env)
    assert (refused.returncode, refused.stderr) == (
        65, f"{activity}: Fehler: die Datei ist eine aufgezeichnete Aktivität (was eine Uhr nach einem Lauf speichert), "
        "kein Training\n")
    workout = tmp_path / "w.fit"
    assert ctl("plan", "export", "-e", "2x(1m run, 1m walk)", "-o", str(workout)).returncode == 0
    header = bytearray(workout.read_bytes())
    header[12] ^= 0x01
    workout.write_bytes(header)
    damaged = ctl("plan", "import", str(workout), env=env)
    assert (damaged.returncode, damaged.stderr) == (
        65, f"{workout}: Fehler: die Datei ist beschädigt: die Prüfsumme (CRC) ihres Kopfs passt nicht zum Kopf\n")
    assert not (tmp_path / "config").exists()


@desktop_required()
class TestTheDaemonInGerman:
    @pytest.fixture
    def daemon_environment(self):
        return in_language("de_DE.UTF-8")

    def test_cues_buttons_and_status_are_german(self, activatable_daemon, notify_log):
        started = ctl("start", "-e", "2x(30s run, 30s walk)", env=in_language("de_DE.UTF-8"))
        assert started.returncode == 0, started.stderr
        assert started.stdout.startswith("2x(30s run, 30s walk) gestartet (2:00, 4 Abschnitte)")
        cue = notify_log.wait_for(1)[0]
        assert (cue["summary"], cue["body"]) == ("Laufen · 30 s", "Danach: Gehen 30 s · Runde 1 von 2")
        status = ctl("status", env=in_language("de_DE.UTF-8")).stdout
        assert status.startswith("läuft · 2x(30s run, 30s walk) · Laufen noch 0:")
        machine = json.loads(ctl("status", "--json", env=in_language("de_DE.UTF-8")).stdout)
        assert (machine["state"], machine["segment_label"]) == ("running", "Run")
        press("stop")
        offered = Path(os.environ["INTERVALD_TEST_DESKTOP_DIR"], "press.offered").read_text()
        assert "#Beenden (Laufen · 30 s)" in offered and "#Anhalten" in offered and "#Überspringen" in offered
        wait_until(lambda: ctl("status").stdout.strip() == "idle", 5, "the German Stop button to stop it")

    def test_the_refusal_to_start_while_a_workout_runs_is_german_and_said_once(self, activatable_daemon):
        german = in_language("de_DE.UTF-8")
        assert ctl("start", "-e", "10m run", env=german).returncode == 0
        try:
            refused = ctl("start", "-e", "8x(30s run, 30s walk)", env=german)
            assert (refused.returncode, refused.stdout) == (1, "")
            assert refused.stderr == (
                "intervalctl: Fehler: „10m run“ läuft.\n"
                "intervalctl: Tipp: „intervalctl start --replace …“ beendet es und startet den neuen Plan.\n")
        finally:
            ctl("stop")


@desktop_required()
class TestAnEnglishDaemonAndAGermanTerminal:
    @pytest.fixture
    def daemon_environment(self):
        return in_language("C.UTF-8")

    def test_the_refusal_to_start_is_said_in_the_terminals_language_not_the_daemons(self, activatable_daemon):
        # The daemon said "“10m run” is running." in its own English to a German terminal.
        german = in_language("de_DE.UTF-8")
        assert ctl("start", "-e", "10m run").returncode == 0
        try:
            refused = ctl("start", "-e", "8x(30s run, 30s walk)", env=german)
            assert (refused.returncode, refused.stdout) == (1, "")
            assert refused.stderr.startswith("intervalctl: Fehler: „10m run“ läuft.\n"), refused.stderr
            english = ctl("start", "-e", "8x(30s run, 30s walk)")
            assert english.stderr.startswith("intervalctl: error: “10m run” is running.\n"), english.stderr
        finally:
            ctl("stop")
