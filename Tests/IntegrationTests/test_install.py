"""scripts/install and scripts/uninstall into a throw-away home, and D-Bus activation of what was installed."""
import os
import shutil
import subprocess
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from conftest import REPO, busctl, desktop_required, name_owner_pid, stop_daemon, wait_until

pytestmark = desktop_required()


def assert_desktop_entry(path, bindir):
    """The installed desktop entry passes desktop-file-validate, is a visible D-Bus-activatable application, and its
    Exec= lines run the installed binaries."""
    validate = subprocess.run(["desktop-file-validate", str(path)], capture_output=True, text=True, timeout=30)
    assert validate.returncode == 0 and validate.stdout == "", validate.stdout + validate.stderr
    lines = path.read_text().splitlines()
    assert "DBusActivatable=true" in lines and "Icon=org.intervald.Timer1" in lines
    assert not any(line.startswith("NoDisplay") for line in lines)
    assert f"Exec={bindir}/interval-timer" in lines and f"Exec={bindir}/interval-timer --start tabata" in lines
    # Translated into every shipped language (msgfmt --desktop).
    assert "Name[de]=Intervall-Timer" in lines and "Name[fr]=Minuteur d’intervalles" in lines
    assert "Name[es]=Empezar Tabata" in lines


def assert_metainfo(path):
    """The installed AppStream metainfo is the checkout's, names the window's desktop entry, and validates (appstreamcli
    validate; scripts/test runs it with --strict on the checkout's copy, and the package test finds it with
    appstreamcli get, which in AppStream 0.16 reads /usr/share/metainfo only)."""
    assert path.read_bytes() == (REPO / "desktop" / path.name).read_bytes()
    root = ElementTree.parse(path).getroot()
    assert root.get("type") == "desktop-application" and root.findtext("id") == "org.intervald.IntervalTimer"
    assert root.findtext("launchable") == "org.intervald.IntervalTimer.desktop"
    validate = subprocess.run(["appstreamcli", "validate", "--no-net", str(path)], capture_output=True, text=True,
                              timeout=30)
    assert validate.returncode == 0, validate.stdout + validate.stderr


def assert_svg_icon(path):
    """An SVG document with a size, as an icon theme needs."""
    root = ElementTree.parse(path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg" and root.get("viewBox"), path


def test_install_activate_and_uninstall(tmp_path):
    home = tmp_path / "home"
    env = {
        **os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / "share"), "XDG_CONFIG_HOME": str(home / "config"),
        "INTERVALD_MAN": "none", "INTERVALD_SCRATCH_PATH": str(REPO / ".build"),
    }
    install = subprocess.run([str(REPO / "scripts" / "install"), "--no-build", "--configuration", "debug",
                              "--no-systemctl", "--prefix", str(home / "local")],
                             env=env, capture_output=True, text=True, timeout=120)
    assert install.returncode == 0, install.stdout + install.stderr
    bindir = home / "local" / "bin"
    unit = home / "share" / "systemd" / "user" / "intervald.service"
    activation = home / "share" / "dbus-1" / "services" / "org.intervald.Timer1.service"
    assert all((bindir / name).exists() for name in ("intervald", "intervalctl", "interval-timer"))
    libexec = home / "local" / "libexec" / "intervald"
    assert sorted(path.name for path in libexec.iterdir()) == ["intervalctl-desktop"]
    assert f"ExecStart={bindir}/intervald" in unit.read_text()
    assert "Type=notify" in unit.read_text()
    assert f"Exec={bindir}/intervald" in activation.read_text()
    assert "SystemdService=intervald.service" in activation.read_text()
    assert (home / "config" / "intervald" / "intervald.toml").read_text() == (REPO / "config" / "intervald.toml").read_text()
    assert len(list((home / "share" / "intervald" / "plans").glob("*.plan"))) >= 7
    assert (home / "share" / "intervald" / "programs" / "c25k.program").exists()
    assert (home / "share" / "bash-completion" / "completions" / "intervalctl").exists()
    assert (home / "config" / "fish" / "completions" / "intervalctl.fish").exists()
    desktop_entry = home / "share" / "applications" / "org.intervald.IntervalTimer.desktop"
    icons = [home / "share" / "icons" / "hicolor" / "scalable" / "apps" / "org.intervald.Timer1.svg",
             home / "share" / "icons" / "hicolor" / "symbolic" / "apps" / "org.intervald.Timer1-symbolic.svg"] + [
        home / "share" / "icons" / "hicolor" / "scalable" / "apps" / f"org.intervald.Timer1-{tone}.svg"
        for tone in ("work", "rest", "paused")]
    assert_desktop_entry(desktop_entry, bindir)
    metainfo = home / "share" / "metainfo" / "org.intervald.IntervalTimer.metainfo.xml"
    assert_metainfo(metainfo)
    search_provider = home / "share" / "gnome-shell" / "search-providers" / "org.intervald.Timer1.search-provider.ini"
    runner = home / "share" / "krunner" / "dbusplugins" / "org.intervald.Timer1.desktop"
    assert "ObjectPath=/org/intervald/Timer1/SearchProvider" in search_provider.read_text()
    assert "X-Plasma-DBusRunner-Path=/org/intervald/Timer1/KRunner" in runner.read_text()
    catalogs = [home / "local" / "share" / "locale" / lang / "LC_MESSAGES" / "intervald.mo" for lang in ("de", "es", "fr")]
    assert all(catalog.exists() for catalog in catalogs)
    german = subprocess.run([str(bindir / "intervalctl"), "plan", "show", "-"], input="30s run\n", capture_output=True,
                            text=True, timeout=30, env={**env, "LC_ALL": "de_DE.UTF-8", "LANGUAGE": ""})
    if "de_DE.utf8" in subprocess.run(["locale", "-a"], capture_output=True, text=True).stdout.split():
        assert "Gesamt" in german.stdout, "the installed binary finds the installed catalogs"
    for icon in icons:
        assert_svg_icon(icon)
    # 'run' is intervalctl-desktop's: the installed intervalctl finds it in PREFIX/libexec/intervald.
    ran = subprocess.run([str(bindir / "intervalctl"), "run", "--silent", "--no-notifications", "-e", "1s warm-up"],
                         env=env, capture_output=True, text=True, timeout=30)
    assert ran.returncode == 0 and ran.stdout.endswith("Finished 1s warm-up in 0:01.\n"), ran.stdout + ran.stderr

    again = subprocess.run([str(REPO / "scripts" / "install"), "--no-build", "--configuration", "debug",
                            "--no-systemctl", "--prefix", str(home / "local")], env=env, capture_output=True,
                           text=True, timeout=120)
    assert again.returncode == 0

    # The installed activation file on the test bus: the installed intervalctl starts the installed daemon.
    service_dir = Path(os.environ["INTERVALD_TEST_DBUS_SERVICE_DIR"])
    shutil.copy(activation, service_dir / activation.name)
    busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ReloadConfig")
    try:
        plans = subprocess.run([str(bindir / "intervalctl"), "plans"], env=env, capture_output=True, text=True, timeout=30)
        assert "galloway-30-30" in plans.stdout
        programs = subprocess.run([str(bindir / "intervalctl"), "programs"], env=env, capture_output=True, text=True,
                                  timeout=30)
        assert programs.stdout.startswith("c25k  Couch to 5K · 0 days done of 27 · next Week 1, Day 1")
        started = subprocess.run([str(bindir / "intervalctl"), "start", "tabata"], env=env, capture_output=True,
                                 text=True, timeout=30)
        assert started.returncode == 0, started.stderr
        assert started.stdout.startswith("Started Tabata (12:00, 18 segments)")
        pid = wait_until(name_owner_pid, 10, "the activated daemon")
        assert os.readlink(f"/proc/{pid}/exe") == str(bindir / "intervald")
    finally:
        stop_daemon()
        (service_dir / activation.name).unlink()
        busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ReloadConfig")

    uninstall = subprocess.run([str(REPO / "scripts" / "uninstall"), "--no-systemctl"], env=env,
                               capture_output=True, text=True, timeout=60)
    assert uninstall.returncode == 0, uninstall.stdout + uninstall.stderr
    assert not (bindir / "intervald").exists() and not unit.exists() and not activation.exists()
    assert not libexec.exists()
    assert not any(path.exists() for path in [desktop_entry, metainfo, search_provider, runner, *icons, *catalogs])
    for bundled in ("plans", "programs"):
        assert not (home / "share" / "intervald" / bundled).exists()
    assert (home / "config" / "intervald" / "intervald.toml").exists(), "the user's settings are kept"
