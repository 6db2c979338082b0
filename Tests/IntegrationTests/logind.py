#!/usr/bin/env python3
"""logind's sleep side, on a private system bus, as login1 speaks it (no logind runs in these containers): it owns
org.freedesktop.login1 and answers Manager.Inhibit with a file descriptor, the write end of a pipe whose read end it
watches, as logind does, so that the inhibitor lasts until the caller closes it or dies. Its Suspend goes as logind's
does: PrepareForSleep(true), then up to InhibitDelayMaxSec (5 s) for the delay inhibitors to be released; its Wake sends
PrepareForSleep(false). It records, one line each, to OUT:

    inhibit WHAT|WHO|WHY|MODE                        an Inhibit call
    released WHAT|WHO|WHY|MODE after MS STATE        an inhibitor released (MS since the last Suspend, or -1), with
                                                     the state file's "state" at that instant (or "none")
    slept DELAYED_MS                                 the sleep began: every delay released, or the 5 s passed

    logind.py ADDRESS OUT STATE_FILE    (prints "ready" once it owns the name)

Suspend and Wake are on org.intervald.Test.Logind at /org/freedesktop/login1, for the tests to call with gdbus.
"""
import json
import os
import sys
import time

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

INHIBIT_DELAY_MAX_SECONDS = 5


class Manager(dbus.service.Object):
    def __init__(self, bus, log, state_file):
        super().__init__(bus, "/org/freedesktop/login1")
        self.log, self.state_file = log, state_file
        self.delays = set()
        self.suspended_at = None
        self.waiting = None

    def state(self):
        try:
            return json.loads(open(self.state_file).read()).get("state", "?")
        except FileNotFoundError:
            return "none"

    @dbus.service.method("org.freedesktop.login1.Manager", in_signature="ssss", out_signature="h")
    def Inhibit(self, what, who, why, mode):
        description = f"{what}|{who}|{why}|{mode}"
        self.log(f"inhibit {description}")
        read_end, write_end = os.pipe()
        handed = dbus.types.UnixFd(write_end)  # a duplicate, sent with the reply
        os.close(write_end)
        if mode == "delay":
            self.delays.add(read_end)

        def released(fd, condition):
            since = -1 if self.suspended_at is None else round((time.monotonic() - self.suspended_at) * 1000)
            self.log(f"released {description} after {since} {self.state()}")
            self.delays.discard(fd)
            os.close(fd)
            self.maybe_sleep()
            return False

        GLib.io_add_watch(read_end, GLib.IO_HUP | GLib.IO_ERR, released)
        return handed

    @dbus.service.signal("org.freedesktop.login1.Manager", signature="b")
    def PrepareForSleep(self, start):
        pass

    @dbus.service.method("org.intervald.Test.Logind", in_signature="", out_signature="")
    def Suspend(self):
        self.suspended_at = time.monotonic()
        self.PrepareForSleep(True)
        self.waiting = GLib.timeout_add_seconds(INHIBIT_DELAY_MAX_SECONDS, self.sleep)
        self.maybe_sleep()

    @dbus.service.method("org.intervald.Test.Logind", in_signature="", out_signature="")
    def Wake(self):
        self.suspended_at = None
        self.PrepareForSleep(False)

    def maybe_sleep(self):
        if self.waiting is not None and not self.delays:
            GLib.source_remove(self.waiting)
            self.sleep()

    def sleep(self):
        self.waiting = None
        self.log(f"slept {round((time.monotonic() - self.suspended_at) * 1000)}")
        return False


def main():
    address, out, state_file = sys.argv[1:4]
    log_file = open(out, "a", buffering=1)
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(address)
    name = dbus.service.BusName("org.freedesktop.login1", bus, do_not_queue=True)
    Manager(bus, lambda line: log_file.write(line + "\n"), state_file)
    print("ready", flush=True)
    GLib.MainLoop().run()
    del name


if __name__ == "__main__":
    main()
