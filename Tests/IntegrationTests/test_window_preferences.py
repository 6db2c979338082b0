"""Preferences (docs/window.md, docs/settings.md), driven through AT-SPI as a person with a screen reader would,
against the real daemon: one line of the settings file changed and applied by the running daemon, numbers committed
whole, sounds chosen by name and played, the voice spoken, in the user's language, and what they change heard at the
next cue in a recording of a real PulseAudio (window_harness.py has the window's harness)."""
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from audio import RATE, THRESHOLD, PrivatePulse, loud_span, pulseaudio_missing, tone_levels, write_tone
from conftest import (BusMonitor, attach_if_failed, ctl, desktop_required, has_locale, in_language, name_owner_pid,
                      wait_until)
from window_harness import (Atspi, Window, accessibility_bus, click, controls_without_a_name,  # noqa: F401
                            daemon_config, daemon_environment, key, text_of, timer_property, window,
                            window_environment)

pytestmark = desktop_required()


@pytest.mark.parametrize("locale,preferences,volume", [
    ("de_DE.UTF-8", "Einstellungen", "Lautstärke in Prozent"), ("fr_FR.UTF-8", "Préférences", "Volume en pourcentage"),
    ("es_ES.UTF-8", "Preferencias", "Volumen en porcentaje")])
def test_preferences_speak_the_users_language(tmp_path, locale, preferences, volume):
    if not has_locale(locale):
        pytest.skip(f"{locale} is not generated (scripts/setup-deps)")
    window = Window(tmp_path, env=in_language(locale))
    try:
        window.menu(preferences)
        window.usable("spin button", volume)
    finally:
        window.close()


SETTINGS = """# My settings.
[notifications]
sound = false   # the daemon plays the cues

[sound]
# Loud enough outdoors.
volume = 100
duck = 400
mystery = "kept"

[hooks]
on-cue = ["true", "{label}"]
"""


def test_preferences_change_one_line_of_the_settings_and_the_running_daemon_applies_it(window, daemon_config, tmp_path):
    daemon_config.write_text(SETTINGS)
    assert ctl("start", "-e", "10m run").returncode == 0
    daemon = name_owner_pid()
    tray = f"org.kde.StatusNotifierItem-{daemon}-1"
    wait_until(lambda: name_owner_pid(tray), 10, "the tray item")
    window.menu("Preferences")
    # The file's problem is shown, not overwritten unseen.
    window.wait("label", re.compile(r".*intervald\.toml:8: duck: expected a percentage from 0 to 100.*"))
    volume = window.usable("spin button", "Volume in percent")
    assert volume.get_value_iface().get_current_value() == 100
    window.set_number("Volume in percent", 40)
    wait_until(lambda: "volume = 40\n" in daemon_config.read_text(), 10, "the volume to be written")
    assert daemon_config.read_text() == SETTINGS.replace("volume = 100", "volume = 40")
    log = tmp_path / "intervald.log"
    wait_until(lambda: "reason=the file changed" in log.read_text(), 10, "the daemon to read the file again")
    # The tray item goes as its switch is turned off, the workout going on.
    window.press("check box", "Show the workout in the tray")
    wait_until(lambda: name_owner_pid(tray) is None, 10, "the tray item to go")
    assert daemon_config.read_text() == SETTINGS.replace("volume = 100", "volume = 40") + "\n[tray]\nenabled = false\n"
    assert timer_property("State") == '"running"'
    assert name_owner_pid() == daemon


@pytest.mark.skipif(shutil.which("xdotool") is None, reason="xdotool is not installed (scripts/setup-deps)")
def test_preferences_vibration_beside_the_cue_sounds_turns_the_haptics_off_in_the_file(window, daemon_config):
    window.menu("Preferences")
    window.wait("label", "Vibration")
    switch = window.usable("check box", "Vibrate at each change")
    assert switch.get_state_set().contains(Atspi.StateType.CHECKED), "on by default"
    window.press("check box", "Vibrate at each change")
    wait_until(lambda: daemon_config.read_text() == "[notifications]\nsound = false\n\n[haptics]\nenabled = false\n",
               10, "the switch to be written as [haptics] enabled = false")


def test_preferences_numbers_are_spin_buttons_with_their_ranges_committed_whole(window, daemon_config):
    """Volume: select all, type 150: the field turned red without saying the range, and the file said `volume = 15`."""
    window.menu("Preferences")
    preferences = window.wait("frame", "Preferences")
    window.wait("label", "1 to 100", root=preferences)
    window.wait("label", "-100 (slowest) to 100 (fastest)", root=preferences)
    volume = window.usable("spin button", "Volume in percent")
    assert volume.get_value_iface().get_maximum_value() == 100
    click(volume, left=10)  # into its text, not onto its − and + buttons
    wait_until(lambda: volume.get_state_set().contains(Atspi.StateType.FOCUSED), 5, "the volume to have the focus")
    key("ctrl+a")
    subprocess.run(["xdotool", "type", "--delay", "20", "40"], check=True, timeout=10)
    wait_until(lambda: text_of(volume) == "40", 5, "40 typed")
    assert "volume" not in daemon_config.read_text(), "nothing written while typing"
    key("Tab")
    wait_until(lambda: "volume = 40\n" in daemon_config.read_text(), 5, "the volume to be written as the focus left")
    click(volume, left=10)
    key("ctrl+a")
    subprocess.run(["xdotool", "type", "--delay", "20", "150"], check=True, timeout=10)
    wait_until(lambda: text_of(volume) == "150", 5, "150 typed")
    assert "volume = 40\n" in daemon_config.read_text(), "nothing written while typing"
    key("Return")
    # Committed whole, and within its range.
    wait_until(lambda: "volume = 100\n" in daemon_config.read_text(), 5, "the volume to be written")
    wait_until(lambda: text_of(volume) == "100", 5, "the field to show what was written")
    # The daemon's own knob is not among what a runner changes.
    advanced = window.wait("list", "Advanced", root=preferences)
    window.wait("spin button", "Seconds an idle timer service waits before it exits", root=advanced)


@pytest.mark.skipif(shutil.which("xdotool") is None, reason="xdotool is not installed (scripts/setup-deps)")
def test_preferences_choose_sounds_by_name_and_say_when_one_cannot_play(window, daemon_config):
    """Sounds were raw IDs (`intervald-work`), and a sound that failed to play said nothing in the window."""
    daemon_config.write_text('[notifications]\nsound = false\n\n[sound]\nrest = "/nowhere/cue.oga"\n')
    window.menu("Preferences")
    preferences = window.wait("frame", "Preferences")
    work = window.usable("combo box", "Sound of a change to work", root=preferences)
    window.wait("label", "Work tone", root=work)
    rest = window.usable("combo box", "Sound of a change to rest", root=preferences)
    window.wait("label", "File cue.oga", root=rest)
    click(work)
    # The list opens on the sound chosen, intervald's four first; the Bell is below them (the test screen is too
    # short to show it, so the keyboard chooses it).
    window.usable("label", "Finish chime")
    for name in ("Down", "Down", "Down", "Down", "Return"):
        key(name)
    wait_until(lambda: 'work = "bell"' in daemon_config.read_text(), 5, "the bell to be written")
    window.wait("label", "Bell", root=work)
    # Speaking a sample is a button, not a row that leads elsewhere.
    window.usable("push button", re.compile(r"Speak.*"), root=preferences)
    assert controls_without_a_name(window, preferences) == []
    window.press("push button", "Play Sound of a change to rest", root=preferences)
    window.wait("label", re.compile(r"File cue\.oga could not be played: .+"), root=preferences)


@pytest.mark.skipif(shutil.which("speech-dispatcher") is None, reason="speech-dispatcher is not installed")
def test_preferences_play_and_speak_say_there_is_no_audio_server_when_there_is_none(tmp_path, activatable_daemon):
    """With no audio server, Play said libcanberra's "Invalid state", and Speak asked whether speech-dispatcher was
    installed while it was installed and running."""
    # A runtime directory of the window's own: no audio server's socket in it, and the speech-dispatcher that Speak
    # starts there is this test's alone (found by its socket's path, and stopped).
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    window = Window(tmp_path, env={"XDG_RUNTIME_DIR": str(runtime),
                                   "PULSE_SERVER": f"unix:{runtime / 'pulse' / 'native'}"})
    try:
        window.menu("Preferences")
        preferences = window.wait("frame", "Preferences")
        window.press("push button", "Play Sound of a change to work", root=preferences)
        window.wait("label", "Work tone could not be played: No audio server", root=preferences)
        window.press("push button", re.compile(r"Speak.*"), root=preferences)
        # speech-dispatcher takes the phrase and never begins it: the window says why after its 15 s.
        window.wait("label", "The sample could not be spoken: No audio server", timeout=30, root=preferences)
        assert speech_dispatchers_in(runtime), "speech-dispatcher was reached: it runs for this runtime directory"
    finally:
        window.close()
        stop_speech_dispatchers_in(runtime)


def speech_dispatchers_in(runtime):
    """The speech-dispatcher processes whose socket is in `runtime` (on their command line)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and str(runtime).encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            pass
    return found


def stop_speech_dispatchers_in(runtime):
    for pid in speech_dispatchers_in(runtime):
        os.kill(pid, signal.SIGTERM)
    # Stuck on an audio output that never opened, it may not heed SIGTERM.
    try:
        wait_until(lambda: not speech_dispatchers_in(runtime), 5, "speech-dispatcher to exit")
    except AssertionError:
        for pid in speech_dispatchers_in(runtime):
            os.kill(pid, signal.SIGKILL)


#: Silence recorded after a sound's last loud sample that shows it has ended (longer than any gap within it).
QUIET_AFTER_A_SOUND_S = 0.2


def loudness(pulse, since):
    """Seconds of loud samples recorded since wall time `since`."""
    samples, _ = pulse.recording(since=since)
    return sum(1 for value in samples if abs(value) > THRESHOLD) / RATE


@pytest.mark.skipif(pulseaudio_missing() is not None, reason=pulseaudio_missing() or "")
@pytest.mark.skipif(shutil.which("speech-dispatcher") is None, reason="speech-dispatcher is not installed")
class TestPreferencesHeard:
    """What Preferences change is heard at the running workout's next cue, in a recording of a real PulseAudio."""

    TONE_HZ = 660

    @pytest.fixture
    def pulse(self, request):
        server = PrivatePulse()
        yield server
        attach_if_failed(request, f"{server.name} log", server.log)
        server.close()

    @pytest.fixture
    def daemon_environment(self, tmp_path, pulse):
        """The activated daemon plays into the private PulseAudio (and autospawns speech-dispatcher beside it)."""
        keys = ("XDG_RUNTIME_DIR", "HOME", "PULSE_SERVER")
        return {"XDG_DATA_DIRS": window_environment(tmp_path)["XDG_DATA_DIRS"], **{k: pulse.env[k] for k in keys}}

    def cue_level(self, pulse, cue):
        """The work tone's loudest level (dB) in the second after a cue, read once the tone has ended in the recording.
        The next cue may come within the tone's second (a skip does not cut it short), and a tone still sounding would
        mix into that cue's level: the caller skips only after this returns."""

        def played_out():
            samples, clock = pulse.recording(since=cue)
            span = loud_span(samples, clock)
            return span is not None and clock.time(len(samples) - 1) > span[1] + QUIET_AFTER_A_SOUND_S

        wait_until(played_out, 10, "the cue's tone to end")
        samples, clock = pulse.recording(since=cue - 0.5)
        return max(db for _, db in tone_levels(samples, clock, self.TONE_HZ, cue, cue + 0.9))

    def test_the_volume_the_sounds_and_the_voice_set_in_preferences_are_the_next_cues(self, window, daemon_config,
                                                                                       pulse, tmp_path):
        tone = tmp_path / "tone.wav"
        write_tone(tone, 1, self.TONE_HZ, 0.5)
        settings = f'[notifications]\nsound = false\n\n[sound]\nvolume = 100\nwork = "{tone}"\nrest = "{tone}"\n'
        daemon_config.write_text(settings)
        log = tmp_path / "intervald.log"
        signals = BusMonitor("type='signal',path='/org/intervald/Timer1'")
        try:
            assert ctl("start", "-e", "1m run, 1m walk, 1m run, 1m walk").returncode == 0
            first = signals.wait_for("SegmentStarted")[0]["timestamp-realtime"] / 1e6
            first_level = self.cue_level(pulse, first)
            window.menu("Preferences")
            window.set_number("Volume in percent", 25)
            wait_until(lambda: "volume = 25\n" in daemon_config.read_text(), 10, "the volume to be written")
            assert daemon_config.read_text() == settings.replace("volume = 100", "volume = 25"), "only that line"
            wait_until(lambda: log.read_text().count("reason=the file changed") >= 1, 10, "the daemon to read it")
            assert ctl("skip").returncode == 0
            second = signals.wait_for("SegmentStarted", count=2)[1]["timestamp-realtime"] / 1e6
            levels = [first_level, self.cue_level(pulse, second)]
            # 25 %: 20·log10(0.25) = -12.04 dB, from the next cue on.
            assert abs(levels[1] - levels[0] + 12.04) < 1.5, levels

            # The sounds off: the next change is silent.
            window.press("check box", "Play cue sounds")
            wait_until(lambda: re.search(r"\[sound\][^\[]*\nenabled = false\n", daemon_config.read_text()), 10,
                       "the switch to be written")
            # Read again by the monitor when the write settles; `reload` makes sure it is in use before the skip.
            assert ctl("reload").returncode == 0
            assert ctl("skip").returncode == 0
            third = signals.wait_for("SegmentStarted", count=3)[2]["timestamp-realtime"] / 1e6
            pulse.wait_until_recorded(third + 1.2)
            assert loudness(pulse, third) == 0, "no sound"

            # The voice on: what plays at the next change is speech.
            window.press("check box", "Speak each change")
            wait_until(lambda: "voice = true" in daemon_config.read_text(), 10, "the voice to be written")
            assert ctl("reload").returncode == 0
            assert ctl("skip").returncode == 0
            fourth = signals.wait_for("SegmentStarted", count=4)[3]["timestamp-realtime"] / 1e6
            wait_until(lambda: loudness(pulse, fourth) > 0.5, 30, "half a second of speech")
            assert timer_property("State") == '"running"'
        finally:
            signals.close()
            ctl("stop")
