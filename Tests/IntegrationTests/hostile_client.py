"""A hostile caller of org.intervald.Timer1, for test_hostile.py: one connection of its own, many calls, the time of
each reply. Runs under Debian's python3 (python3-dbus), whatever interpreter runs pytest.

    hostile_client.py getall COUNT        GetAll of the interface's properties, COUNT times
    hostile_client.py calls COUNT         a mix of method calls that must not disturb a running workout: Start
                                          without replace (AlreadyRunning), Get, Introspect, Peer.Ping, an unknown
                                          method
    hostile_client.py plan FILE [COUNT]   Start(the text of FILE, "", false), COUNT times
    hostile_client.py media COUNT         calls to the MPRIS player that must not disturb a running workout:
                                          GetAll of both interfaces, SetPosition with a stale track id, Seek,
                                          OpenUri with garbage, Raise, and Seek and SetPosition with wrong types
    hostile_client.py controls COUNT      a misbehaving media client: PlayPause and Next, alternately, COUNT times
    hostile_client.py tray COUNT PID      calls to the tray item of the daemon PID that must not disturb a running
                                          workout: GetAll (its pixmaps), the whole menu, groups of thousands of ids
                                          that are no item, Scroll, and Event and GetProperty that must fail

Prints one JSON object: {"calls": N, "max_ms": {"Method": slowest reply in ms, ...}, "errors": {"error.Name": count}}.
"""
import json
import sys
import time

import dbus

SERVICE = "org.intervald.Timer1"
PATH = "/org/intervald/Timer1"
PLAYER = "org.mpris.MediaPlayer2.intervald"
PLAYER_PATH = "/org/mpris/MediaPlayer2"
ROOT_INTERFACE = "org.mpris.MediaPlayer2"
PLAYER_INTERFACE = "org.mpris.MediaPlayer2.Player"
# Far above any bound the test asserts: a reply this late counts as an error of its own.
TIMEOUT_S = 20


def main():
    mode, argument = sys.argv[1], sys.argv[2]
    bus = dbus.bus.BusConnection(dbus.bus.BUS_SESSION)
    timer = bus.get_object(SERVICE, PATH, introspect=False)
    properties = dbus.Interface(timer, "org.freedesktop.DBus.Properties")
    if mode == "getall":
        calls = [("GetAll", lambda: properties.GetAll(SERVICE, timeout=TIMEOUT_S))] * int(argument)
    elif mode == "calls":
        mix = [
            ("Start", lambda: timer.Start("1s run", "", False, dbus_interface=SERVICE, timeout=TIMEOUT_S)),
            ("Get", lambda: properties.Get(SERVICE, "SegmentIndex", timeout=TIMEOUT_S)),
            ("Introspect", lambda: timer.Introspect(dbus_interface="org.freedesktop.DBus.Introspectable",
                                                    timeout=TIMEOUT_S)),
            ("Ping", lambda: timer.Ping(dbus_interface="org.freedesktop.DBus.Peer", timeout=TIMEOUT_S)),
            ("NoSuchMethod", lambda: timer.NoSuchMethod(dbus_interface=SERVICE, timeout=TIMEOUT_S)),
        ]
        calls = [mix[i % len(mix)] for i in range(int(argument))]
    elif mode == "plan":
        with open(argument, encoding="utf-8") as file:
            text = file.read()
        count = int(sys.argv[3]) if len(sys.argv) > 3 else 1
        calls = [("Start", lambda: timer.Start(text, "", False, dbus_interface=SERVICE, timeout=TIMEOUT_S))] * count
    elif mode in ("media", "controls"):
        player = bus.get_object(PLAYER, PLAYER_PATH, introspect=False)
        player_properties = dbus.Interface(player, "org.freedesktop.DBus.Properties")

        def raw(member, signature, *args):
            # Bypasses python-dbus's own argument checks, so that the daemon sees the wrong types.
            return lambda: bus.call_blocking(PLAYER, PLAYER_PATH, PLAYER_INTERFACE, member, signature, args,
                                             timeout=TIMEOUT_S)

        if mode == "media":
            mix = [
                ("GetAll", lambda: player_properties.GetAll(PLAYER_INTERFACE, timeout=TIMEOUT_S)),
                ("GetAllRoot", lambda: player_properties.GetAll(ROOT_INTERFACE, timeout=TIMEOUT_S)),
                ("SetPosition", raw("SetPosition", "ox", dbus.ObjectPath("/org/intervald/Timer1/Segment/999999"),
                                    dbus.Int64(5_000_000))),
                ("Seek", raw("Seek", "x", dbus.Int64(-(1 << 62)))),
                ("OpenUri", raw("OpenUri", "s", "\u202e file:///etc/passwd \x01" * 200)),
                ("Raise", lambda: player.Raise(dbus_interface=ROOT_INTERFACE, timeout=TIMEOUT_S)),
                ("SeekWrongType", raw("Seek", "s", "five seconds")),
                ("SetPositionWrongType", raw("SetPosition", "sx", "not a path", dbus.Int64(0))),
            ]
        else:
            mix = [("PlayPause", raw("PlayPause", "")), ("Next", raw("Next", ""))]
        calls = [mix[i % len(mix)] for i in range(int(argument))]
    elif mode == "tray":
        item = f"org.kde.StatusNotifierItem-{sys.argv[3]}-1"
        tray = bus.get_object(item, "/StatusNotifierItem", introspect=False)
        no_items = dbus.Array(range(1000, 6000), signature="i")

        def raw(path, interface, member, signature, *args):
            return lambda: bus.call_blocking(item, path, interface, member, signature, args, timeout=TIMEOUT_S)

        mix = [
            ("GetAll", lambda: dbus.Interface(tray, "org.freedesktop.DBus.Properties").GetAll(
                "org.kde.StatusNotifierItem", timeout=TIMEOUT_S)),
            ("GetLayout", raw("/MenuBar", "com.canonical.dbusmenu", "GetLayout", "iias", 0, -1, [])),
            ("GetGroupProperties", raw("/MenuBar", "com.canonical.dbusmenu", "GetGroupProperties", "aias", [], [])),
            ("EventGroup", raw("/MenuBar", "com.canonical.dbusmenu", "EventGroup", "a(isvu)",
                               [(i, "clicked", dbus.String("", variant_level=1), 0) for i in no_items[:2000]])),
            ("AboutToShowGroup", raw("/MenuBar", "com.canonical.dbusmenu", "AboutToShowGroup", "ai", no_items)),
            ("Scroll", raw("/StatusNotifierItem", "org.kde.StatusNotifierItem", "Scroll", "is", -(1 << 31), "\x01" * 500)),
            ("EventWrongType", raw("/MenuBar", "com.canonical.dbusmenu", "Event", "s", "clicked")),
            ("GetPropertyNoItem", raw("/MenuBar", "com.canonical.dbusmenu", "GetProperty", "is", 99, "label")),
        ]
        calls = [mix[i % len(mix)] for i in range(int(argument))]
    else:
        raise SystemExit(f"unknown mode {mode}")

    errors = {}
    slowest = {}
    for method, call in calls:
        began = time.monotonic()
        try:
            call()
        except dbus.DBusException as error:
            name = error.get_dbus_name()
            errors[name] = errors.get(name, 0) + 1
        slowest[method] = max(slowest.get(method, 0), (time.monotonic() - began) * 1000)
    print(json.dumps({"calls": len(calls), "max_ms": slowest, "errors": errors}))


main()
