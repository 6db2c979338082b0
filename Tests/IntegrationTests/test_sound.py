"""Cues you hear (docs/reference.md §4b): intervald and `intervalctl run` play their cues through libcanberra into a private
PulseAudio whose sink records every sample, and the recording is checked against the cues' schedule."""
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from audio import RATE, PrivatePulse, frequency, loud_span, onsets, pulseaudio_missing, write_tone
from conftest import (BIN, LOCALE_DIR, REPO, BusMonitor, attach_if_failed, desktop_required, has_locale, in_language,
                      wait_until)

pytestmark = [desktop_required(), pytest.mark.skipif(pulseaudio_missing() is not None,
                                                     reason=pulseaudio_missing() or "")]

#: How late a sound's onset may be against its cue's schedule. The audio server's buffering alone is tens of ms;
#: precision is measured by Benchmarks/perceived_timing.py, this only catches a sound that is missing or far off.
LATE_S = 0.15
#: The recording places an onset to within one of the sink's blocks (42.7 ms).
EARLY_S = 0.06


@pytest.fixture
def pulse(request):
    server = PrivatePulse()
    yield server
    attach_if_failed(request, f"{server.name} log", server.log)
    server.close()


@pytest.fixture
def sound_daemon(pulse, tmp_path):
    """Starts intervald with the settings the test writes, its sounds going to the private PulseAudio; stops it."""
    daemons = []

    def start(settings="", env=None):
        config = tmp_path / "intervald.toml"
        config.write_text("[notifications]\nsound = false\n" + settings)
        log = open(tmp_path / "intervald.log", "w")
        env = {**pulse.env, "XDG_STATE_HOME": str(tmp_path / "state"),
               "XDG_DATA_DIRS": f"{REPO / 'config'}:/usr/share", **(env or {})}
        daemon = subprocess.Popen([str(BIN / "intervald"), "--config", str(config), "--log-level", "debug"],
                                  env=env, stderr=log)
        daemons.append(daemon)
        subprocess.run(["gdbus", "wait", "--session", "--timeout", "10", "org.intervald.Timer1"], check=True)
        return daemon

    yield start
    for daemon in daemons:
        daemon.terminate()
        daemon.wait(timeout=10)


def ctl(*args, env=None):
    return subprocess.run([str(BIN / "intervalctl"), *args], capture_output=True, text=True, timeout=30, env=env)


def signal_times(monitor, member):
    return [m["timestamp-realtime"] / 1e6 for m in monitor.received(member)]


def near(onset_times, expected):
    return [t for t in onset_times if expected - EARLY_S <= t <= expected + LATE_S]


def test_every_cue_is_heard_near_its_deadline_with_countdown_pips(pulse, sound_daemon):
    sound_daemon()
    signals = BusMonitor("type='signal',path='/org/intervald/Timer1'")
    calls = BusMonitor("type='method_call',interface='org.freedesktop.Notifications',member='Notify'")
    try:
        assert ctl("start", "-e", "countdown 300ms; 3x(1s run, 1s walk)").returncode == 0
        finished = signals.wait_for("Finished", timeout=15)
        starts = signal_times(signals, "SegmentStarted")
        end = finished[0]["timestamp-realtime"] / 1e6
        pulse.wait_until_recorded(end + 1.0)
        samples, clock = pulse.recording(since=starts[0] - 0.5)
        heard = onsets(samples, clock)
        assert len(starts) == 6
        pips = [change - 0.3 for change in starts[1:] + [end]]
        for index, cue in enumerate(starts):
            assert len(near(heard, cue)) == 1, f"segment {index}: no sound near its cue; heard {heard}"
        for index, pip in enumerate(pips):
            assert len(near(heard, pip)) == 1, f"countdown pip {index}: not heard; heard {heard}"
        assert len(near(heard, end)) == 1, "the finish was not heard"
        assert len(heard) == 6 + 6 + 1, f"a sound for each cue, pip and the finish, nothing else: {heard}"
        # Work and rest sounds differ (a rising and a falling second note), and the pips are higher still.
        onset = {cue: near(heard, cue)[0] for cue in starts}
        second_note = [frequency(samples, clock, onset[cue] + 0.15) for cue in starts]
        assert all(f > 800 for f in second_note[0::2]), f"run: the work sound rises, got {second_note}"
        assert all(f < 600 for f in second_note[1::2]), f"walk: the rest sound falls, got {second_note}"
        assert all(frequency(samples, clock, near(heard, pip)[0] + 0.01) > 1100 for pip in pips)
        # The notification asks the server not to play a sound of its own.
        notifies = calls.wait_for("Notify", 6)
        hints = notifies[0]["payload"]["data"][6]
        assert hints.get("suppress-sound", {}).get("data") is True, hints
        assert "sound-name" not in hints
    finally:
        signals.close()
        calls.close()


def test_disabled_sound_is_silent(pulse, sound_daemon):
    sound_daemon("[sound]\nenabled = false\n")
    signals = BusMonitor("type='signal',path='/org/intervald/Timer1'")
    try:
        started = time.time()
        assert ctl("start", "-e", "countdown 200ms; 2x(500ms run, 500ms walk)").returncode == 0
        end = signals.wait_for("Finished", timeout=15)[0]["timestamp-realtime"] / 1e6
        pulse.wait_until_recorded(end + 1.0)
        samples, clock = pulse.recording(since=started)
        assert loud_span(samples, clock) is None, "enabled = false must play nothing"
    finally:
        signals.close()


def test_stop_cuts_the_sound_and_nothing_plays_after_it(pulse, sound_daemon, tmp_path):
    tone = tmp_path / "long.wav"
    write_tone(tone, 2, 440, 12000 / 32767)
    sound_daemon(f'[sound]\nwork = "{tone}"\n')
    signals = BusMonitor("type='signal',path='/org/intervald/Timer1'")
    try:
        # A 2 s sound at the start; pips due 1, 2 and 3 s before the change at 4 s.
        assert ctl("start", "-e", "countdown 3s; 4s run, 4s walk").returncode == 0
        begun = signals.wait_for("SegmentStarted")[0]["timestamp-realtime"] / 1e6
        wait_until(lambda: pulse.recorded_until() > begun + 0.5, 10, "half a second of sound")
        assert ctl("stop").returncode == 0
        stopped = signals.wait_for("Stopped")[0]["timestamp-realtime"] / 1e6
        pulse.wait_until_recorded(begun + 5.0)
        samples, clock = pulse.recording(since=begun - 0.2)
        span = loud_span(samples, clock)
        assert span is not None and span[0] < stopped, "the work sound played until the stop"
        assert span[1] < stopped + LATE_S, f"sound went on {span[1] - stopped:.3f} s after Stop"
    finally:
        signals.close()


def test_intervalctl_run_plays_its_cues_and_silent_does_not(pulse):
    env = {**pulse.env, "XDG_DATA_DIRS": f"{REPO / 'config'}:/usr/share"}
    started = time.time()
    run = ctl("run", "--no-notifications", "-e", "2x(400ms run, 400ms walk)", env=env)
    assert run.returncode == 0, run.stderr
    pulse.wait_until_recorded(time.time() + 1.0)
    samples, clock = pulse.recording(since=started)
    heard = onsets(samples, clock)
    assert len(heard) == 5, f"four changes and the finish: {heard}"
    spacing = [b - a for a, b in zip(heard, heard[1:4])]
    assert all(abs(s - 0.4) < 0.1 for s in spacing), spacing

    started = time.time()
    assert ctl("run", "--silent", "--no-notifications", "-e", "2x(300ms run, 300ms walk)", env=env).returncode == 0
    pulse.wait_until_recorded(time.time() + 1.0)
    assert loud_span(*pulse.recording(since=started)) is None, "--silent must play nothing"


def test_intervalctl_run_of_one_second_segments_is_heard_as_seven_separate_sounds(pulse):
    """Issue 27's report: `run -e '3x(1s run, 1s walk)'`, notifications on as typed, makes 7 sounds (6 changes and
    the finish), each its own onset after quiet, a second apart: none lost at the start, none merged, and the finish
    not cut by the process's exit."""
    env = {**pulse.env, "XDG_DATA_DIRS": f"{REPO / 'config'}:/usr/share"}
    started = time.time()
    run = ctl("run", "-e", "3x(1s run, 1s walk)", env=env)
    assert run.returncode == 0, run.stderr
    pulse.wait_until_recorded(time.time() + 1.5)
    heard = onsets(*pulse.recording(since=started))
    assert len(heard) == 7, f"six changes and the finish, each after quiet: {heard}"
    spacing = [round(b - a, 3) for a, b in zip(heard, heard[1:])]
    assert all(abs(gap - 1.0) < 0.1 for gap in spacing), spacing


def test_test_sound_plays_every_cue_sound(pulse):
    env = {**pulse.env, "XDG_DATA_DIRS": f"{REPO / 'config'}:/usr/share"}
    started = time.time()
    result = ctl("test-sound", env=env)
    assert result.returncode == 0, result.stderr
    assert [line.split(":")[0] for line in result.stdout.splitlines()] == ["work", "rest", "countdown", "finish"]
    pulse.wait_until_recorded(time.time() + 0.5)
    assert len(onsets(*pulse.recording(since=started))) >= 4


def test_test_sound_says_there_is_no_audio_server_when_there_is_none(tmp_path):
    """It said libcanberra's "Invalid state", run into the next line."""
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime), "PULSE_SERVER": f"unix:{runtime / 'pulse' / 'native'}",
           "XDG_DATA_DIRS": f"{REPO / 'config'}:/usr/share"}
    result = ctl("test-sound", env=env)
    assert result.returncode == 1
    said = [line for line in result.stderr.splitlines() if "could not be played" in line]
    assert said == [f"{cue}: intervald-{cue} could not be played: No audio server"
                    for cue in ("work", "rest", "countdown", "finish")], result.stderr


def test_test_sound_says_when_speech_dispatcher_cannot_be_reached(pulse, tmp_path):
    """A voice that failed said nothing of why; the window asked whether speech-dispatcher was installed."""
    # An address of its own that nothing serves: libspeechd starts no speech-dispatcher for an address it is given.
    env = {**pulse.env, "XDG_DATA_DIRS": f"{REPO / 'config'}:/usr/share",
           "SPEECHD_ADDRESS": f"unix_socket:{tmp_path / 'nothing.sock'}"}
    result = ctl("test-sound", "--voice", env=env)
    assert result.returncode == 1
    assert "voice: could not be spoken: speech-dispatcher could not be reached" in result.stderr, result.stderr


def test_no_audio_server_then_a_restarting_one_leave_the_workout_on_time_and_sound_returns(pulse, sound_daemon,
                                                                                          tmp_path):
    pulse.stop()
    sound_daemon()
    signals = BusMonitor("type='signal',path='/org/intervald/Timer1'")
    try:
        assert ctl("start", "-e", "40x(500ms run, 500ms walk)").returncode == 0
        signals.wait_for("SegmentStarted", 3)
        pulse.start()
        wait_until(lambda: (tmp_path / "intervald.log").read_text().count("Sound is back.") == 1, 10,
                   "sound to come back with the server")
        changes = len(signals.received("SegmentStarted"))
        signals.wait_for("SegmentStarted", changes + 2)
        pulse.stop()  # the user's sound server restarts
        signals.wait_for("SegmentStarted", changes + 4)
        pulse.start()
        wait_until(lambda: (tmp_path / "intervald.log").read_text().count("Sound is back.") == 2, 10,
                   "sound to come back with the restarted server")
        restarted = time.time()
        changes = len(signals.received("SegmentStarted"))
        signals.wait_for("SegmentStarted", changes + 3)
        cues = [t for t in signal_times(signals, "SegmentStarted") if t > restarted]
        pulse.wait_until_recorded(cues[-1] + 0.5)
        samples, clock = pulse.recording(since=restarted)
        heard = onsets(samples, clock)
        for cue in cues:
            assert len(near(heard, cue)) == 1, f"the cue at {cue} was not heard after the restart: {heard}"
        ctl("stop")
        signals.wait_for("Stopped")
        # The cues kept their schedule through it all: every change 500 ms after the one before.
        times = signal_times(signals, "SegmentStarted")
        spacing = [b - a for a, b in zip(times, times[1:])]
        assert all(abs(s - 0.5) < 0.05 for s in spacing), spacing
        log = (tmp_path / "intervald.log").read_text()
        failures = log.count("No audio server answers") + log.count("Failed to play a sound")
        assert failures == 2, f"one line per outage, not one per cue:\n{log}"
    finally:
        signals.close()


def test_with_no_audio_server_a_connection_is_not_tried_at_every_cue(pulse, sound_daemon, tmp_path):
    """A failing connection costs canberra about as much CPU as the rest of the cue; with no audio server it is tried
    again at most every 5 s, and only after a sound's instant, never at each cue (docs/reference.md §6)."""
    pulse.stop()
    sound_daemon()
    signals = BusMonitor("type='signal',path='/org/intervald/Timer1'")
    try:
        assert ctl("start", "-e", "16x(200ms run)").returncode == 0
        signals.wait_for("Finished")
        assert len(signals.received("SegmentStarted")) == 16
        log = (tmp_path / "intervald.log").read_text()
        # At start-up, and perhaps once more (before: once more for every cue and the finish).
        assert 1 <= log.count("Connecting to the audio server.") <= 2, log
        assert log.count("No audio server answers") == 1, log
    finally:
        signals.close()


@pytest.mark.skipif(shutil.which("speech-dispatcher") is None, reason="speech-dispatcher is not installed")
def test_voice_speaks_when_on_and_not_when_off(pulse):
    env = {**pulse.env, "XDG_DATA_DIRS": f"{REPO / 'config'}:/usr/share"}
    started = time.time()
    assert ctl("run", "--silent", "--no-notifications", "-e", "1s run, 1s walk", env=env).returncode == 0
    pulse.wait_until_recorded(time.time() + 1.0)
    assert loud_span(*pulse.recording(since=started)) is None, "no voice unless asked"
    assert not (pulse.runtime / "speech-dispatcher").exists(), "speech-dispatcher is not even started"

    started = time.time()
    assert ctl("run", "--silent", "--voice", "--no-notifications", "-e", "1s run, 1s walk", env=env).returncode == 0
    # Speech-dispatcher (autospawned in the private runtime directory, so it plays into the private server) says
    # "Run, 1 second", "Walk, 1 second" and "Workout done, 2 seconds": about three seconds of speech.
    def spoken():
        samples, clock = pulse.recording(since=started)
        loud = sum(1 for value in samples if abs(value) > 1500)
        return loud / RATE > 0.5 and loud_span(samples, clock)

    first, _ = wait_until(spoken, 20, "half a second of speech")
    assert first - started < 5, "the first phrase starts within seconds, speech-dispatcher's start-up included"


def maps_speech_library(daemon):
    return "/libspeechd.so" in Path(f"/proc/{daemon.pid}/maps").read_text()


def test_the_speech_library_is_loaded_only_when_the_voice_is_on(pulse, sound_daemon):
    # The default: sounds on, the voice off. A whole workout's cues are played and no speech library is mapped.
    daemon = sound_daemon("")
    signals = BusMonitor("type='signal',path='/org/intervald/Timer1'")
    try:
        assert ctl("start", "-e", "1s run, 1s walk").returncode == 0
        signals.wait_for("Finished", timeout=15)
        assert not maps_speech_library(daemon), "libspeechd mapped with the voice off"
    finally:
        signals.close()
    daemon.terminate()
    daemon.wait(timeout=10)
    # With the voice on, the daemon connects to speech-dispatcher at start-up: the library is loaded then.
    daemon = sound_daemon("[sound]\nvoice = true\n")
    wait_until(lambda: maps_speech_library(daemon), 10, "libspeechd to be loaded for the voice")


@pytest.mark.skipif(shutil.which("speech-dispatcher") is None, reason="speech-dispatcher is not installed")
def test_the_daemons_voice_lands_on_each_change(pulse, sound_daemon):
    sound_daemon("[sound]\nenabled = false\nvoice = true\n")
    signals = BusMonitor("type='signal',path='/org/intervald/Timer1'")
    try:
        assert ctl("start", "-e", "3s run, 3s walk, 3s run, 3s walk").returncode == 0
        end = signals.wait_for("Finished", timeout=30)[0]["timestamp-realtime"] / 1e6
        changes = signal_times(signals, "SegmentStarted")[1:] + [end]
        pulse.wait_until_recorded(end + 3)
        samples, clock = pulse.recording(since=changes[0] - 2)
        # A phrase begins after a pause longer than the ones between its words.
        phrases = onsets(samples, clock, silence_s=0.25)
        for change in changes:
            nearest = min(phrases, key=lambda t: abs(t - change), default=None)
            assert nearest is not None and abs(nearest - change) < 0.4, \
                f"the phrase for the change at {change:.2f} began at {nearest}: {phrases}"
    finally:
        signals.close()


def speech_heard(pulse, since, seconds):
    """Waits until `seconds` of loud samples were recorded since `since`: speech, with the sounds off."""
    def heard():
        samples, _ = pulse.recording(since=since)
        return sum(1 for value in samples if abs(value) > 1500) / RATE > seconds
    wait_until(heard, 30, f"{seconds} s of speech")


@pytest.mark.skipif(shutil.which("speech-dispatcher") is None, reason="speech-dispatcher is not installed")
@pytest.mark.skipif(not Path(LOCALE_DIR, "de", "LC_MESSAGES", "intervald.mo").exists() or not has_locale("de_DE.UTF-8"),
                    reason="needs the de_DE locale and scripts/build-mo .build/locale")
def test_a_german_workout_is_spoken_by_a_german_voice(pulse, sound_daemon, tmp_path):
    sound_daemon("[sound]\nenabled = false\nvoice = true\n", env=in_language("de_DE.UTF-8"))
    signals = BusMonitor("type='signal',path='/org/intervald/Timer1'")
    try:
        started = time.time()
        assert ctl("start", "-e", "2s run, 2s walk").returncode == 0
        signals.wait_for("Finished", timeout=15)
        speech_heard(pulse, started, 0.5)
        log = tmp_path / "intervald.log"
        # speech-dispatcher listed a German voice (espeak-ng's), looked up in the background.
        wait_until(lambda: "The voice speaks the language." in log.read_text(), 30, "the voices to be looked up")
        assert "language=de" in log.read_text() and "No voice for the language" not in log.read_text()
    finally:
        signals.close()


@pytest.mark.skipif(shutil.which("speech-dispatcher") is None, reason="speech-dispatcher is not installed")
def test_a_language_without_a_voice_is_logged_once_and_spoken_in_english(pulse, sound_daemon, tmp_path):
    sound_daemon('[sound]\nenabled = false\nvoice = true\nvoice-language = "zz"\n')
    log = tmp_path / "intervald.log"
    missing = "No voice for the language, speaking English."
    signals = BusMonitor("type='signal',path='/org/intervald/Timer1'")
    try:
        # The voices are looked up once the daemon has connected to speech-dispatcher.
        assert ctl("start", "-e", "1s run").returncode == 0
        signals.wait_for("Finished", timeout=15)
        wait_until(lambda: missing in log.read_text(), 30, "the voices to be looked up")
        started = time.time()
        assert ctl("start", "-e", "2s run, 2s walk").returncode == 0
        signals.wait_for("Finished", timeout=15, count=2)
        speech_heard(pulse, started, 0.5)
        assert log.read_text().count(missing) == 1, log.read_text()
    finally:
        signals.close()


def test_a_missing_sound_file_is_logged_once_and_the_other_sounds_play(pulse, sound_daemon, tmp_path):
    sound_daemon('[sound]\nwork = "/nonexistent/horn.oga"\n')
    signals = BusMonitor("type='signal',path='/org/intervald/Timer1'")
    try:
        assert ctl("start", "-e", "3x(400ms run, 400ms walk)").returncode == 0
        end = signals.wait_for("Finished", timeout=15)[0]["timestamp-realtime"] / 1e6
        walks = signal_times(signals, "SegmentStarted")[1::2]
        pulse.wait_until_recorded(end + 1.0)
        heard = onsets(*pulse.recording(since=walks[0] - 1))
        for walk in walks:
            assert len(near(heard, walk)) == 1, f"the rest sound at {walk} was not heard: {heard}"
        log = (tmp_path / "intervald.log").read_text()
        assert log.count("Failed to load a sound") == 1, log
        assert "Failed to play a sound" not in log and "Sound is back" not in log, log
    finally:
        signals.close()
