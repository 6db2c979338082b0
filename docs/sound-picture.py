#!/usr/bin/env python3
"""Draws docs/workout-sound.png: the spectrogram (0-2 kHz) of what `intervalctl run` plays for a short plan,
recorded at a private PulseAudio, with the schedule marked from the first sound on: changes (orange) and the
countdown's whole seconds (blue). Run it again after changing the cue sounds:

    docs/sound-picture.py [--bin-dir .build/debug]

Needs pulseaudio, pulseaudio-utils, sox and imagemagick; the recording helpers are Tests/IntegrationTests/audio.py.
"""
import argparse
import subprocess
import sys
import tempfile
import time
import wave
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "Tests" / "IntegrationTests"))

from audio import RATE, PrivatePulse, onsets  # noqa: E402

PLAN = "countdown 2s; 2x(4s run, 3s walk)"
WIDTH, HEIGHT = 1000, 220


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin-dir", default=str(REPO / ".build" / "debug"))
    args = parser.parse_args()
    pulse = PrivatePulse()
    try:
        env = {**pulse.env, "XDG_DATA_DIRS": f"{REPO / 'config'}:/usr/share"}
        pulse.wait_until_recorded(time.time() + 1)  # a second of silence before the plan, for the lead-in
        run = subprocess.Popen([str(Path(args.bin_dir) / "intervalctl"), "run", "--no-notifications", "-e", PLAN],
                               env=env, stdout=subprocess.PIPE, text=True)
        began = time.time()
        run.communicate(timeout=60)
        pulse.wait_until_recorded(time.time() + 1.5)
        samples, clock = pulse.recording(since=began)
        # The schedule is anchored at the first cue's sound, which the audio server starts within tens of ms.
        start = onsets(samples, clock)[0]
        samples, clock = pulse.recording(since=start - 0.5)
    finally:
        pulse.close()
    seconds = 15.0
    samples = samples[: int(seconds * RATE)]
    samples.extend([0] * (int(seconds * RATE) - len(samples)))  # exactly `seconds` long: the x axis is time
    with tempfile.TemporaryDirectory() as scratch:
        recording = Path(scratch) / "workout.wav"
        with wave.open(str(recording), "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(RATE)
            out.writeframes(samples.tobytes())
        plain = Path(scratch) / "plain.png"
        subprocess.run(["sox", str(recording), "-n", "rate", "4k", "spectrogram", "-r", "-m", "-x", str(WIDTH),
                        "-y", str(HEIGHT), "-z", "70", "-o", str(plain)], check=True)
        # The cues: changes every segment, pips 2 and 1 s before each change, the finish at 14 s.
        changes = [0.0, 4.0, 7.0, 11.0]
        marks = [(t, "run" if i % 2 == 0 else "walk") for i, t in enumerate(changes)] + [(14.0, "finish")]
        pips = [c - k for c in changes[1:] + [14.0] for k in (2, 1)]
        offset = 0.5  # the recording starts half a second before the plan

        def x(t):
            return int((t + offset) / seconds * WIDTH)

        draw = []
        for t, label in marks:
            draw += ["-stroke", "#d08770", "-draw", f"line {x(t)},0 {x(t)},{HEIGHT}",
                     "-stroke", "none", "-fill", "#eceff4", "-annotate", f"+{min(x(t) + 4, WIDTH - 44)}+16", label]
        for t in pips:
            draw += ["-stroke", "#88c0d0", "-draw", f"line {x(t)},{HEIGHT - 30} {x(t)},{HEIGHT}"]
        subprocess.run(["convert", str(plain), "-font", "DejaVu-Sans", "-pointsize", "14", *draw,
                        str(REPO / "docs" / "workout-sound.png")], check=True)
    print(f"wrote docs/workout-sound.png ({PLAN})")


if __name__ == "__main__":
    main()
