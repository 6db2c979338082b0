#!/usr/bin/env python3
"""A stand-in for the desktop portal's Inhibit (org.freedesktop.portal.Inhibit), which GtkApplication calls for
gtk_application_inhibit() where no GNOME session manager runs; it records each call, one line each, to OUT:

    inhibit FLAGS HANDLE       Inhibit(window, flags, options): the request's object path
    uninhibit HANDLE           Close() on that request: the inhibitor released

    inhibit_portal.py OUT      (prints "ready" once it owns org.freedesktop.portal.Desktop)
"""
import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

NAME = "org.freedesktop.portal.Desktop"


class Request(dbus.service.Object):
    def __init__(self, bus, path, log):
        super().__init__(bus, path)
        self.path, self.log = path, log

    @dbus.service.method("org.freedesktop.portal.Request", in_signature="", out_signature="")
    def Close(self):
        self.log(f"uninhibit {self.path}")
        self.remove_from_connection()


class Inhibit(dbus.service.Object):
    def __init__(self, bus, log):
        super().__init__(bus, "/org/freedesktop/portal/desktop")
        self.bus, self.log, self.count = bus, log, 0

    @dbus.service.method("org.freedesktop.portal.Inhibit", in_signature="sua{sv}", out_signature="o")
    def Inhibit(self, window, flags, options):
        self.count += 1
        path = f"/org/freedesktop/portal/desktop/request/test/{self.count}"
        Request(self.bus, path, self.log)
        self.log(f"inhibit {int(flags)} {path}")
        return dbus.ObjectPath(path)

    @dbus.service.method("org.freedesktop.DBus.Properties", in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        return dbus.UInt32(3)  # version


def main():
    out = open(sys.argv[1], "a", buffering=1)
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    name = dbus.service.BusName(NAME, bus, do_not_queue=True)
    Inhibit(bus, lambda line: out.write(line + "\n"))
    print("ready", flush=True)
    GLib.MainLoop().run()
    del name


if __name__ == "__main__":
    main()
