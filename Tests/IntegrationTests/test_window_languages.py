"""The window in German, French and Spanish across its pages (docs/window.md, "Accessibility and languages"): every
page and dialog walked in German for words a German reader should not meet, and the texts of the layout files and of
the code in French and Spanish (window_harness.py has the window's harness; each page's own file tests it in German
too)."""
import gettext
import json
import re
import subprocess
import time
from pathlib import Path

import pytest

from conftest import LOCALE_DIR, ctl, desktop_required, has_locale, in_language, wait_until
from window_harness import (Atspi, Window, accessibility_bus, daemon_config, gi, history_line,  # noqa: F401
                            window_environment)

pytestmark = desktop_required()


#: The kinds' IDs (plan language) that the window names by their display names ("Laufen" for run).
KIND_IDS = {"run", "walk", "work", "rest", "jog", "sprint", "easy", "hard", "recover", "recovery", "warmup",
            "cooldown", "stretch", "bike", "row", "swim"}
#: Plan language as a whole text: durations with kinds, repeats, labels in quotes, paces (`8x(1m run "Jog", …)`).
PLAN_SOURCE = re.compile(r'(?:\s*(?:\d+x\s*[({]|[)}]|,|\d+(?::\d\d)?(?:ms|s|m|h)?\s+[a-z]+|"[^"]*"|@\s*[\d:.,]+\s*'
                         r'(?:/km|/mi|km/h|mph)|for\s+\S+|…))+\s*')


class ShownWords:
    """What the window shows that a German reader should not meet: an English text of the catalog left untranslated,
    a kind's ID where its name belongs, plan language where a description belongs, a D-Bus error's name or a
    compiler's diagnostic where a sentence belongs."""

    def __init__(self, window, plan_names):
        catalog = gettext.translation("intervald", LOCALE_DIR, ["de"])._catalog  # msgid → msgstr
        self.english = {}
        # A German word may be spelled as an English one ("Pause" is Rest's name, and the English for Pausieren).
        german = {msgstr for msgstr in catalog.values() if isinstance(msgstr, str)}
        self.german = german
        for msgid, msgstr in catalog.items():
            if isinstance(msgid, str) and msgid and msgstr != msgid:
                pattern = re.escape(msgid)
                for placeholder in set(re.findall(r"\\\{\w+\\\}", pattern)):
                    pattern = pattern.replace(placeholder, ".+")
                self.english[msgid] = re.compile(pattern, re.S)
        self.window = window
        self.plan_names = set(plan_names)
        self.found = set()

    def walk(self, where):
        """Reads every text of every open window of the application (its pages not shown included)."""
        for index in range(self.window.app.get_child_count()):
            frame = self.window.app.get_child_at_index(index)
            for node in self.window.matches(root=frame):
                try:
                    role, text = node.get_role_name(), node.get_name() or ""
                except gi.repository.GLib.Error:
                    continue
                if role in ("text", "entry", "spin button") or not text.strip() or text in self.plan_names:
                    continue  # what a person types, and the names of plans, are theirs
                if text in self.german:
                    continue
                for msgid, pattern in self.english.items():
                    if pattern.fullmatch(text):
                        self.found.add((where, "untranslated", role, text))
                words = set(re.findall(r"[a-z]+", text))
                if role == "label" and words & KIND_IDS and not re.search(r"\d+x\(|\d+s [a-z]", text):
                    self.found.add((where, "kind ID", role, text))
                if role == "label" and re.search(r"\d+(?:ms|s|m|h)\s+[a-z]+", text) and PLAN_SOURCE.fullmatch(text):
                    self.found.add((where, "plan source", role, text))
                if re.search(r"\borg\.[\w.]*Error\b|<inline>:\d+:\d+: error", text):
                    self.found.add((where, "a D-Bus error name or a compiler's diagnostic", role, text))


def end_windows_but_the_main_one(window):
    """Closes the application's other windows as their own close key does (Escape in each, given the focus)."""
    for x_window in subprocess.run(["xdotool", "search", "--pid", str(window.pid)], capture_output=True,
                                   text=True).stdout.split():
        name = subprocess.run(["xdotool", "getwindowname", x_window], capture_output=True, text=True).stdout.strip()
        if name not in ("Interval Timer", "interval-timer", ""):
            subprocess.run(["xdotool", "windowfocus", "--sync", x_window, "key", "Escape"], capture_output=True,
                           timeout=10)
    wait_until(lambda: window.app.get_child_count() == 1, 5, "the other windows to close")


class TestGermanThroughout:
    """The window in German, every page and dialog walked (spec §17): "Danach: All out", "run, work", "(user)" and a
    program's days in plan language were each found by a person, one page at a time."""

    @pytest.fixture
    def daemon_environment(self, tmp_path):
        return {"XDG_DATA_DIRS": window_environment(tmp_path)["XDG_DATA_DIRS"], "LC_ALL": "de_DE.UTF-8",
                "LANGUAGE": "", "INTERVALD_LOCALEDIR": LOCALE_DIR}

    def test_every_page_and_dialog_in_german_names_kinds_and_describes_plans(self, tmp_path, activatable_daemon):
        if not has_locale("de_DE.UTF-8"):
            pytest.skip("de_DE.UTF-8 is not generated (scripts/setup-deps)")
        de = gettext.translation("intervald", LOCALE_DIR, ["de"]).gettext
        history = Path(window_environment(tmp_path)["XDG_STATE_HOME"]) / "intervald" / "history.jsonl"
        history.parent.mkdir(parents=True)
        now = int(time.time())
        history.write_text(
            history_line("Tabata", now - 86_400, "finished",
                         kinds={"warmup": 120_000_000, "work": 160_000_000, "rest": 80_000_000})
            + json.dumps({**json.loads(history_line("Couch to 5K · Week 1, Day 1", now - 3600, "stopped", "user",
                                                    kinds={"walk": 300_000_000, "run": 60_000_000})),
                          "program": "c25k", "day": "1.1"}) + "\n")
        bundled = {"XDG_DATA_DIRS": window_environment(tmp_path)["XDG_DATA_DIRS"]}
        plans = json.loads(ctl("plans", "--json", env=bundled).stdout)
        window = Window(tmp_path, env=in_language("de_DE.UTF-8"))
        shown = ShownWords(window, [plan["title"] for plan in plans])
        try:
            assert ctl("start", "tabata", env=bundled).returncode == 0
            wait_until(window.countdown, 10, "the countdown")
            shown.walk("workout, running")
            assert ctl("pause").returncode == 0
            window.wait("push button", de("Resume"))
            shown.walk("workout, paused")
            assert ctl("stop").returncode == 0
            window.wait("push button", de("Done"))
            shown.walk("finish page")
            window.press("push button", de("Done"))
            window.tab(de("Plans"))
            window.press("push button", "Tabata")
            window.usable("push button", de("Start Plan"))
            shown.walk("a plan's page")
            window.press("push button", de("Back"))
            window.press("push button", "Couch to 5K")
            window.wait("label", "Woche 1")
            shown.walk("a program's page")
            window.press("push button", de("Back"))
            window.tab(de("History"))
            window.wait("label", re.compile(".*Couch to 5K.*"))
            shown.walk("history")
            window.tab(de("Calculator"))
            shown.walk("calculator")
            window.menu(de("Preferences"))
            preferences = window.wait("frame", de("Preferences"))
            shown.walk("preferences")
            window.press("push button", re.compile("Schließen|Close"), root=preferences)  # GTK's own word
            wait_until(lambda: window.app.get_child_count() == 1, 5, "Preferences to close")
            window.menu(de("Keyboard Shortcuts"))
            window.wait("label", de("Skip to the next interval"))
            shown.walk("keyboard shortcuts")
            end_windows_but_the_main_one(window)
            window.tab(de("Plans"))
            window.press("push button", de("New Plan"))
            window.wait("frame", de("Plan Editor"))
            window.usable("text", de("Plan as text"))
            shown.walk("the plan editor")
            end_windows_but_the_main_one(window)
            window.menu(de("About Interval Timer"))
            window.wait("label", "0.1.0")
            shown.walk("about")
        finally:
            window.close()
        assert not shown.found, "\n".join(" | ".join(item) for item in sorted(shown.found))


@pytest.mark.parametrize("locale, words", [
    ("fr_FR.UTF-8", {"tabs": ["Séance", "Plans", "Historique", "Calculatrice"],
                     "idle": "Aucun entraînement en cours", "choose": "Choisir un plan", "start": "Démarrer le plan",
                     "back": "Retour", "steps": "Étapes", "totals": "Totaux", "preferences": "Préférences",
                     "sounds": "Jouer les sons des signaux"}),
    ("es_ES.UTF-8", {"tabs": ["Entrenamiento", "Planes", "Historial", "Calculadora"],
                     "idle": "Ningún entrenamiento en curso", "choose": "Elegir un plan", "start": "Empezar el plan",
                     "back": "Atrás", "steps": "Pasos", "totals": "Totales", "preferences": "Preferencias",
                     "sounds": "Reproducir los sonidos de aviso"}),
])
def test_the_window_speaks_french_and_spanish_from_its_layout_files_and_its_code(tmp_path, locale, words):
    """The texts of ui/*.ui (tabs, the idle page, buttons) and those set from Swift (a plan's rows, Preferences)."""
    if not has_locale(locale):
        pytest.skip(f"{locale} is not generated (scripts/setup-deps)")
    window = Window(tmp_path, env=in_language(locale))
    try:
        for tab in words["tabs"]:
            window.wait("page tab", tab)
        window.wait("label", words["idle"])
        # "Choose a Plan" is the window's show-page action: it leads to the Plans page.
        window.press("push button", words["choose"])
        plans = window.find("page tab", words["tabs"][1])
        wait_until(lambda: plans.get_state_set().contains(Atspi.StateType.SELECTED), 10, "the Plans page")
        window.press("push button", "Tabata")
        window.usable("push button", words["start"])
        window.wait("list", words["steps"])
        window.wait("list", words["totals"])
        window.press("push button", words["back"])
        window.menu(words["preferences"])
        window.wait("check box", words["sounds"])
    finally:
        window.close()
