"""The polybar recipe of docs/status-bars.md, run in a real polybar on the test desktop's Xvfb screen.

The module block is taken verbatim from the documentation. `intervalctl` on polybar's PATH is a wrapper that runs the
real one and copies what it prints to a log, so the test reads the lines polybar got; polybar's own log shows that it
ran the documented command and redrew the bar; screenshots of the bar show the label's colour while a workout runs and
the idle text after a right click on the module (the recipe's click-right: intervalctl stop).
INTERVALD_STATUS_BAR_SCREENSHOT=FILE keeps a picture of both (docs/status-bar-polybar.png).
"""
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from conftest import BIN, REPO, ctl, desktop_required, wait_until

pytestmark = [desktop_required(),
              pytest.mark.skipif(shutil.which("polybar") is None, reason="polybar is not installed")]

BAR_HEIGHT = 32
SCREEN = (1024, 400)  # scripts/test-desktop's Xvfb screen
SHOT_WIDTH = 360
LABEL_GREEN = "#a6e3a1"  # the recipe's %{F#a6e3a1}
IDLE_GREY = "#6c7086"  # the recipe's idle text colour
IDLE_LINE = f"%{{F{IDLE_GREY}}}idle%{{F-}}"
RUNNING = re.compile(r"^%\{F#a6e3a1\}Run%\{F-\} 0:(\d\d) · (\d+)%$")


def documented_module():
    """The [module/intervald] block of docs/status-bars.md's polybar section, as written there."""
    text = (REPO / "docs" / "status-bars.md").read_text()
    section = text[text.index("## polybar"):]
    block = re.search(r"```ini\n(.*?)```", section, re.S).group(1)
    assert block.startswith("[module/intervald]\n")
    return block


def documented_setting(block, key):
    return next(line.split("=", 1)[1].strip() for line in block.splitlines() if line.startswith(f"{key} ="))


def colour_fraction(image, colour):
    """The fraction of the image's pixels that are `colour` (within 12 %: text is antialiased)."""
    out = subprocess.run(["convert", str(image), "-alpha", "off", "-fuzz", "12%", "-fill", "black", "+opaque", colour,
                          "-fill", "white", "-opaque", colour, "-colorspace", "gray", "-format", "%[fx:mean]", "info:"],
                         capture_output=True, text=True, check=True)
    return float(out.stdout)


def bar_shot(path, shows, lacks=None):
    """Takes a screenshot of the right end of the bar (where modules-right draws) into `path`; returns `path` if
    the colour `shows` is drawn there and the colour `lacks` is not, else None."""
    width, height = SCREEN
    subprocess.run(["import", "-window", "root", "-crop",
                    f"{SHOT_WIDTH}x{BAR_HEIGHT}+{width - SHOT_WIDTH}+{height - BAR_HEIGHT}", "+repage", str(path)],
                   check=True, timeout=20)
    if colour_fraction(path, shows) > 0 and (lacks is None or colour_fraction(path, lacks) == 0):
        return path
    return None


def module_centre(polybar_log):
    """The screen position of the middle of the right-aligned modules, from polybar's last redraw of them (its trace
    log says "renderer: flush(3 geom=WxH+X+Y": 3 is the right alignment, X and Y within the bar)."""
    blocks = re.findall(r"renderer: flush\(3 geom=(\d+)x\d+\+(\d+)\+\d+", polybar_log.read_text())
    if not blocks:
        return None
    width, x = map(int, blocks[-1])
    return x + width // 2, SCREEN[1] - BAR_HEIGHT // 2


def test_polybar_recipe_shows_the_countdown_then_idle(activatable_daemon, tmp_path):
    module = documented_module()
    documented_exec = documented_setting(module, "exec")
    lines_log = tmp_path / "bar-lines.log"
    wrappers = tmp_path / "bin"
    wrappers.mkdir()
    # What polybar runs is the documented command; this wrapper only tees what it prints.
    (wrappers / "intervalctl").write_text(
        "#!/bin/bash\n"
        f'if [[ $1 == status ]]; then exec "{BIN / "intervalctl"}" "$@" > >(exec tee -a "{lines_log}"); fi\n'
        f'exec "{BIN / "intervalctl"}" "$@"\n')
    (wrappers / "intervalctl").chmod(0o755)
    config = tmp_path / "polybar.ini"
    config.write_text(
        "[bar/intervald]\n"
        f"width = 100%\nheight = {BAR_HEIGHT}\nbackground = #1e1e2e\nforeground = #cdd6f4\n"
        # At the bottom: dunst draws the cue's notification at the top right.
        "bottom = true\nfont-0 = DejaVu Sans:size=13;3\nmodules-right = intervald\npadding-right = 2\n\n" + module)
    polybar_log = tmp_path / "polybar.log"
    env = {**os.environ, "PATH": f"{wrappers}:{os.environ['PATH']}"}
    with open(polybar_log, "w") as log:
        bar = subprocess.Popen(["polybar", "-c", str(config), "-l", "trace", "intervald"], env=env,
                               stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: lines_log.exists() and lines_log.read_text().splitlines()[:1] == [IDLE_LINE], 15,
                   "the bar's command to say idle")
        assert f'Invoking shell command: "{documented_exec}"' in polybar_log.read_text()
        wait_until(lambda: bar_shot(tmp_path / "idle-before.png", IDLE_GREY, LABEL_GREEN), 10,
                   "polybar to draw the idle text")

        started = ctl("start", "-e", "20s run, 10s walk")
        assert started.returncode == 0, started.stderr
        running_lines = lambda: [m for m in map(RUNNING.match, lines_log.read_text().splitlines()) if m]
        counted = wait_until(lambda: len(running_lines()) >= 3 and running_lines(), 10, "three countdown lines")
        remaining = [int(m.group(1)) for m in counted[:3]]
        assert remaining == [remaining[0], remaining[0] - 1, remaining[0] - 2], remaining
        assert 17 <= remaining[0] <= 20
        running_shot = wait_until(lambda: bar_shot(tmp_path / "running.png", LABEL_GREEN), 10,
                                  "polybar to draw the green label")
        redraws_running = polybar_log.read_text().count("module/intervald: Rebuilding cache")

        # The recipe's click-right (intervalctl stop), clicked as a user would.
        assert documented_setting(module, "click-right") == "intervalctl stop"
        x, y = wait_until(lambda: module_centre(polybar_log), 10, "polybar's geometry of the module")
        subprocess.run(["xdotool", "mousemove", str(x), str(y), "click", "3"], check=True, timeout=10)
        wait_until(lambda: lines_log.read_text().splitlines()[-1] == IDLE_LINE, 10, "the idle line after the click")
        assert ctl("status").stdout.strip() == "idle"
        idle_shot = wait_until(lambda: bar_shot(tmp_path / "idle.png", IDLE_GREY, LABEL_GREEN), 10,
                               "polybar to draw idle again")
        assert polybar_log.read_text().count("module/intervald: Rebuilding cache") > redraws_running
        assert bar.poll() is None, "polybar keeps running"

        keep = os.environ.get("INTERVALD_STATUS_BAR_SCREENSHOT")
        if keep:
            subprocess.run(["convert", str(running_shot), str(idle_shot), "-background", "#585b70", "-splice", "0x2",
                            "-append", "-chop", "0x2", keep], check=True)
    finally:
        bar.send_signal(signal.SIGTERM)
        bar.wait(timeout=15)

