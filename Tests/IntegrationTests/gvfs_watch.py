"""A test watch that GIO shows only as a URI, as it shows an MTP watch (docs/fit.md): gvfs's own test backend,
gvfsd-localtest, mounted as `localtest:///`, with a GARMIN folder inside a top-level "Internal Storage" folder.

localtest serves the file system root of its own process, so a folder at the top of that mount is a folder at `/`. A
folder made at the real root would be seen by every other test and left behind by a crash, and `/tmp/GARMIN` would be
one folder for every run at once. So gvfsd (and the localtest backend it starts) runs in a mount namespace of its own,
chrooted into a tmpfs that holds the system's folders bound from outside (`/usr`, `/etc`, `/tmp` for the bus and the
runtime directory, …) and "Internal Storage", bound from the test's own `tmp_path`: the mount's top level is a watch's
(one folder per storage beside the system's), nothing is written outside `tmp_path`, and the namespace ends with gvfsd.
The test reads what was written in `storage` directly. Needs root (a mount namespace and chroot), as the loop-mounted
watches of test_window_fit.py do.

gvfsd runs on the test desktop's session bus (the one the window and intervalctl use), without gvfsd-fuse: a URI-only
mount, as an MTP watch is where gvfsd-fuse does not run. On a desktop gvfsd runs before any application (the session
bus starts it); so here: a process whose GIO looked for gvfsd before it ran (the test bus cannot start it) never hears
of its mounts (its mount tracker's proxy was made for a name without an owner), so `gvfsd` starts before the window,
and `mount` then plugs the watch in."""
import os
import signal
import subprocess
from contextlib import contextmanager

from conftest import wait_until

GVFSD = "/usr/libexec/gvfsd"
URI = "localtest:///"
#: The folder the window and intervalctl are expected to find, as GIO names it for a person.
GARMIN = "localtest:///Internal Storage/GARMIN"
#: gvfs's job types (daemon/gvfsbackendlocaltest.h) for GVFS_ERRORNEOUS_OPS.
JOB_WRITE = 1 << 10


def available():
    return os.path.exists(GVFSD) and os.path.exists("/usr/libexec/gvfsd-localtest")


def gio(*args, check=True):
    return subprocess.run(["gio", *args], capture_output=True, text=True, timeout=20, check=check)


def mounted():
    """Whether gvfsd lists the localtest mount (`gio mount -l`)."""
    return "localtest" in gio("mount", "-l", check=False).stdout


@contextmanager
def gvfsd(tmp_path, fail_writes=False):
    """Starts gvfsd as the module docstring says, nothing mounted yet; yields the host folder that is the watch's
    "Internal Storage" (its GARMIN folder inside). With `fail_writes`, every write to a file fails ("Injected error",
    the backend's error injection) after the file was created: a copy that breaks off half way."""
    storage = tmp_path / "watch-storage"
    (storage / "GARMIN").mkdir(parents=True)
    root = tmp_path / "watch-root"
    root.mkdir()
    system = ["usr", "etc", "dev", "sys", "run", "var", "tmp"]
    # Debian's merged /usr: the other top-level folders are links into it.
    links = " ".join(f"ln -s usr/{name} {root}/{name};" for name in ["bin", "lib", "lib64", "sbin"])
    binds = " ".join(f"mkdir {root}/{name} && mount --rbind /{name} {root}/{name};" for name in system)
    script = (f"set -e; mount -t tmpfs tmpfs {root}; {binds} {links} mkdir {root}/proc && mount -t proc proc "
              f"{root}/proc; mkdir '{root}/Internal Storage' && mount --bind {storage} '{root}/Internal Storage'; "
              f"exec chroot {root} {GVFSD} --no-fuse")
    env = dict(os.environ)
    if fail_writes:
        env.update(GVFS_ERRORNEOUS="1", GVFS_ERRORNEOUS_OPS=str(JOB_WRITE))
    log = (tmp_path / "gvfsd.log").open("w")
    # A session of its own: gvfsd and the backend it spawns are ended together.
    process = subprocess.Popen(["unshare", "-m", "--propagation", "private", "sh", "-c", script], env=env, stdout=log,
                               stderr=subprocess.STDOUT, start_new_session=True)
    try:
        subprocess.run(["gdbus", "wait", "--session", "--timeout", "10", "org.gtk.vfs.Daemon"], check=True,
                       timeout=20)
        yield storage
    finally:
        gio("mount", "-u", URI, check=False)
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
        log.close()


def mount():
    """Plugs the watch in: mounts `localtest:///` (gvfsd must run)."""
    gio("mount", URI)
    wait_until(mounted, 10, "the localtest mount")


@contextmanager
def localtest_watch(tmp_path, fail_writes=False):
    """gvfsd, and the watch mounted: yields its "Internal Storage" folder."""
    with gvfsd(tmp_path, fail_writes) as storage:
        mount()
        yield storage
