"""A private PulseAudio whose sink writes every sample to a file in real time, and what was heard in it.

The pipe sink (use_system_clock_for_timing) writes 48 kHz mono s16le samples as its clock plays them, one block
(4096 bytes, 42.7 ms here) at the start of the block's period, so sample i was played at the sink's start +
i/48000 s. A reader thread notes the wall clock at each read; the earliest (read time - samples before the read /
rate) is the sink's start on the wall clock, which lines up onsets with bus signals' timestamps. The server mixes a
new sound into whole blocks, so an onset is placed to within a block. Shared by the sound tests and Benchmarks/perceived_timing.py.
"""
import array
import math
import os
import select
import shutil
import signal
import struct
import subprocess
import tempfile
import threading
import time
import wave
from pathlib import Path

RATE = 48000
#: |amplitude| above this is sound; intervald's cues peak near 0.6 of full scale, speech well above this too.
THRESHOLD = 1500
#: A sound begins after at least this much silence.
SILENCE_S = 0.04


def pulseaudio_missing():
    """Why a private PulseAudio cannot run here, or None."""
    for tool in ("pulseaudio", "pactl"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (apt-get install pulseaudio pulseaudio-utils)"
    return None


def pipewire_missing():
    """Why a private PipeWire with its pulse server cannot run here, or None."""
    for tool in ("pipewire", "pipewire-pulse", "wireplumber", "pactl"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (apt-get install pipewire pipewire-pulse wireplumber pulseaudio-utils)"
    return None


class PrivatePulse:
    """A PulseAudio of its own in a 0700 runtime directory; `env` points clients (libcanberra, speech-dispatcher)
    at it. Stop it with close(), which also stops a speech-dispatcher that clients autospawned there."""

    name = "PulseAudio"

    def __init__(self, timeout=10):
        self.dir = Path(tempfile.mkdtemp(prefix="intervald-pulse."))
        self.runtime = self.dir / "runtime"
        self.runtime.mkdir(mode=0o700)
        self.home = self.dir / "home"
        self.home.mkdir()
        self.env = {**os.environ, "XDG_RUNTIME_DIR": str(self.runtime), "HOME": str(self.home),
                    "PULSE_SERVER": f"unix:{self.runtime / 'pulse' / 'native'}"}
        self.env.pop("PULSE_SINK", None)
        self.timeout = timeout
        self.runs = 0
        self.server = None
        self.start()

    def start(self):
        """Starts the server (again, after stop()) with a fresh recording."""
        self.runs += 1
        fifo = self.dir / f"sink{self.runs}.fifo"
        os.mkfifo(fifo)
        self.samples = bytearray()
        self.reads = []  # (wall clock, bytes before the read)
        self.lock = threading.Lock()
        # Read and write: the open does not wait for the sink, and a sink that closes the pipe while idle is no end.
        self.fifo = os.open(fifo, os.O_RDWR)
        self.reading = threading.Event()
        self.reading.set()
        self.reader = threading.Thread(target=self._read, args=(self.fifo, self.reading, self.samples, self.reads,
                                                                self.lock), daemon=True)
        self.reader.start()
        self.log = self.dir / f"{self.name.lower()}.log"
        self.server = self._launch(fifo)
        deadline = time.monotonic() + self.timeout
        while subprocess.run(["pactl", "info"], env=self.env, capture_output=True).returncode != 0:
            if time.monotonic() > deadline or self.server.poll() is not None:
                raise AssertionError(f"{self.name} did not start: {self.log.read_text()}")
            time.sleep(0.05)
        self._add_sink(fifo)
        # PipeWire's session manager takes a moment to accept a new default.
        while subprocess.run(["pactl", "set-default-sink", "out"], env=self.env, capture_output=True).returncode != 0:
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.name} refused the recording sink as the default: {self.log.read_text()}")
            time.sleep(0.05)

    def _launch(self, fifo):
        """Starts the server with the recording sink; returns its process."""
        return subprocess.Popen(
            ["pulseaudio", "--daemonize=no", "--exit-idle-time=-1", "-n", "--log-target=stderr",
             f"--load=module-pipe-sink sink_name=out file={fifo} format=s16le rate={RATE} channels=1 "
             "use_system_clock_for_timing=yes",
             "--load=module-native-protocol-unix"],
            env=self.env, stdout=subprocess.DEVNULL, stderr=open(self.log, "a"))

    def _add_sink(self, fifo):
        """Adds the recording sink once the server answers (PulseAudio loaded it at its start)."""

    def stop(self):
        """Stops the server, as a crash or a restart of the user's sound server would."""
        if self.server is None:
            return
        self.server.terminate()
        self.server.wait(timeout=10)
        self.server = None
        self.reading.clear()
        self.reader.join(timeout=5)
        os.close(self.fifo)

    @staticmethod
    def _read(fifo, reading, samples, reads, lock):
        while reading.is_set():
            if not select.select([fifo], [], [], 0.1)[0]:
                continue
            chunk = os.read(fifo, 65536)
            now = time.time()
            with lock:
                reads.append((now, len(samples)))
                samples += chunk

    def _spawned_here(self):
        marker = str(self.runtime).encode()
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit() and int(entry.name) != os.getpid():
                try:
                    if marker in (entry / "cmdline").read_bytes():
                        found.append(int(entry.name))
                except OSError:
                    pass
        return [pid for pid in found if self.server is None or pid != self.server.pid]

    def clock(self, skip=0):
        """What wall-clock time each recorded sample (from sample `skip` on) was played at."""
        with self.lock:
            return SampleClock(list(self.reads), skip)

    def recorded_until(self):
        """The wall-clock time up to which the recording reaches."""
        with self.lock:
            if not self.reads:
                return 0.0
            t, before = self.reads[-1]
            return t + (len(self.samples) - before) / 2 / RATE

    def wait_until_recorded(self, wall_time, timeout=10):
        """Waits until the recording covers `wall_time` (a time.time() value)."""
        deadline = time.monotonic() + timeout
        while self.recorded_until() < wall_time:
            if time.monotonic() > deadline:
                raise AssertionError("the sink stopped writing samples")
            time.sleep(0.02)

    def recording(self, since=None):
        """The samples as signed 16-bit integers (from wall time `since` on), and their SampleClock."""
        with self.lock:
            data = bytes(self.samples[: len(self.samples) // 2 * 2])
        samples = array.array("h")
        samples.frombytes(data)
        skip = 0
        if since is not None:
            skip = max(self.clock().index(since), 0)
        return samples[skip:], self.clock(skip)

    def close(self):
        """Stops the server and a speech-dispatcher that a client autospawned for this runtime directory (found by
        its socket path on its command line, so that no other process is touched)."""
        for pid in self._spawned_here():
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


class PrivatePipeWire(PrivatePulse):
    """PipeWire, WirePlumber and PipeWire's pulse server of their own, in the same kind of runtime directory, with the
    same recording sink (pipewire-pulse's module-pipe-sink). That sink writes only while something plays: a test
    keeps a stream playing throughout what it measures."""

    name = "PipeWire"

    def _launch(self, fifo):
        log = open(self.log, "a")
        # Informational messages too (a client's connection and its end): the log goes with a failure's report.
        env = {**self.env, "PIPEWIRE_DEBUG": "3"}
        (self.runtime / "pipewire-0").unlink(missing_ok=True)  # an earlier run's, after a restart
        self.helpers = [subprocess.Popen(["pipewire"], env=env, stdout=subprocess.DEVNULL, stderr=log)]
        # The session manager and the pulse server connect to PipeWire once: not before its socket is there.
        deadline = time.monotonic() + self.timeout
        while not (self.runtime / "pipewire-0").exists():
            if time.monotonic() > deadline or self.helpers[0].poll() is not None:
                raise AssertionError(f"PipeWire did not start: {self.log.read_text()}")
            time.sleep(0.02)
        self.helpers.append(subprocess.Popen(["wireplumber"], env=env, stdout=subprocess.DEVNULL, stderr=log))
        return subprocess.Popen(["pipewire-pulse"], env=env, stdout=subprocess.DEVNULL, stderr=log)

    def _add_sink(self, fifo):
        subprocess.run(["pactl", "load-module", "module-pipe-sink", "sink_name=out", f"file={fifo}",
                        "format=s16le", f"rate={RATE}", "channels=1"], env=self.env, check=True, capture_output=True)
        deadline = time.monotonic() + self.timeout
        while "\tout\t" not in subprocess.run(["pactl", "list", "short", "sinks"], env=self.env, capture_output=True,
                                               text=True).stdout:
            if time.monotonic() > deadline:
                raise AssertionError(f"PipeWire made no recording sink: {self.log.read_text()}")
            time.sleep(0.05)

    def stop(self):
        super().stop()
        for helper in getattr(self, "helpers", []):
            helper.terminate()
            helper.wait(timeout=10)
        self.helpers = []


#: Above this, a sample is a cue sound's (which peak near 0.6 of full scale), not music's at 0.25 beside it.
CUE_THRESHOLD = 12000


def cue_sounds(samples, clock, since):
    """(onset, end) of each cue sound after `since`: its samples stand above the music's."""
    spans = []
    for onset in onsets(samples, clock, threshold=CUE_THRESHOLD, silence_s=0.2):
        if onset < since:
            continue
        first = clock.index(onset)
        loud = [i for i in range(first, min(first + RATE, len(samples))) if abs(samples[i]) > CUE_THRESHOLD]
        spans.append((onset, clock.time(loud[-1])))
    return spans


def duck_around(found, base, onset, end, lowered_db):
    """From tone_levels' windows (`found`) and the music's level before them (`base`): when the music went down
    before `onset` (the earliest of the windows that are at least `lowered_db` down all the way to the onset), the
    loudest window from the onset to `end`, and the first window after `end` back within 1 dB (or None).

    The loudest window is of those that lie within the sound: one centred at `end` measures half a window of what
    follows it, where the music may rightly be coming back already (a sound whose release came at its last loud
    sample failed a run under load here, its window at the end 0.04 dB short)."""
    start = onset
    for t, db in reversed([(t, db) for t, db in found if t <= onset]):
        if db > base - lowered_db:
            break
        start = t
    during = max(db for t, db in found if onset <= t <= end - LEVEL_WINDOW / 2)
    back = next((t for t, db in found if t > end and db >= base - 1), None)
    return start, during, back


class SampleClock:
    """Maps a recorded sample's index to the wall-clock time it was played at, from the reads near it: the sink
    writes in real time, but a server that stalls can drop time, so one origin for a whole recording would drift."""

    WINDOW = 2 * RATE

    def __init__(self, reads, skip=0):
        # (first sample of the read, wall time of sample 0 as that read tells it)
        self.points = [(before // 2, t - before / 2 / RATE) for t, before in reads]
        self.skip = skip

    def _origin(self, absolute):
        near = [origin for first, origin in self.points if abs(first - absolute) <= self.WINDOW]
        if not near:
            near = [min(self.points, key=lambda p: abs(p[0] - absolute))[1]]
        return min(near)

    def time(self, index):
        absolute = index + self.skip
        return self._origin(absolute) + absolute / RATE

    def index(self, wall_time):
        """The inverse of time(): the sample played at `wall_time`. The origin depends on the sample, so the guess from
        the earliest origin is refined with the origin near it (once was not enough: where the reads near a guess and
        near the answer differ, a sound's onset mapped back to a sample a block, 43 ms, after its first loud one)."""
        absolute = round((wall_time - min(o for _, o in self.points)) * RATE)
        for _ in range(4):
            refined = round((wall_time - self._origin(absolute)) * RATE)
            if refined == absolute:
                break
            absolute = refined
        return absolute - self.skip


def onsets(samples, clock, threshold=THRESHOLD, silence_s=SILENCE_S):
    """Wall-clock times of each sound's first sample above `threshold` after at least `silence_s` of silence."""
    found = []
    gap = int(silence_s * RATE)
    last_loud = -gap - 1
    for index, value in enumerate(samples):
        if value > threshold or value < -threshold:
            if index - last_loud > gap:
                found.append(index)
            last_loud = index
    return [clock.time(index) for index in found]


def loud_span(samples, clock, threshold=THRESHOLD):
    """The wall-clock times of the first and last sample above `threshold`, or None."""
    first = next((i for i, v in enumerate(samples) if abs(v) > threshold), None)
    if first is None:
        return None
    last = next(i for i in range(len(samples) - 1, first - 1, -1) if abs(samples[i]) > threshold)
    return clock.time(first), clock.time(last)


def frequency(samples, clock, at, length=0.03):
    """The dominant frequency (Hz, from zero crossings) of the `length` seconds starting at wall time `at`."""
    start = clock.index(at)
    window = samples[max(start, 0): max(start, 0) + int(length * RATE)]
    crossings = sum(1 for a, b in zip(window, window[1:]) if (a < 0) != (b < 0))
    return crossings / 2 / length


def write_tone(path, seconds, hertz, amplitude):
    """A WAV of a sine of whole `hertz` for whole `seconds`: one second, repeated (a second holds whole periods)."""
    second = b"".join(struct.pack("<h", int(amplitude * 32767 * math.sin(2 * math.pi * hertz * i / RATE)))
                      for i in range(RATE))
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(second * seconds)


#: The length of tone_levels' windows, seconds.
LEVEL_WINDOW = 0.05


def tone_levels(samples, clock, hertz, start, end, window=LEVEL_WINDOW, hop=0.01):
    """The level (dBFS of a sine's amplitude) of the `hertz` tone in each Hann-windowed `window` from wall time
    `start` to `end`, every `hop` seconds: [(the window's middle on the wall clock, dB)]. One frequency's DFT
    (Goertzel), so that cue sounds and speech beside the tone barely count."""
    size = int(window * RATE)
    weights = [0.5 - 0.5 * math.cos(2 * math.pi * i / (size - 1)) for i in range(size)]
    gain = sum(weights) / 2
    coefficient = 2 * math.cos(2 * math.pi * hertz / RATE)
    levels = []
    at = start
    while at + window <= end:
        first = clock.index(at)
        chunk = samples[max(first, 0): max(first, 0) + size]
        if len(chunk) < size:
            break
        previous = before = 0.0
        for weight, value in zip(weights, chunk):
            previous, before = weight * value + coefficient * previous - before, previous
        power = previous * previous + before * before - coefficient * previous * before
        amplitude = math.sqrt(max(power, 0)) / gain / 32768
        levels.append((at + window / 2, 20 * math.log10(max(amplitude, 1e-9))))
        at += hop
    return levels
