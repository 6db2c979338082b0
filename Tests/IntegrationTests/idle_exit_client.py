"""Calls org.intervald.Timer1 without pause from several threads across idle exits, for test_durability.py: each
thread on a connection of its own sends `Get(State)` and `Pause()` (answered `NotRunning` while idle) one after the
other, each call to the well-known name, so that a call is in flight at every instant, the idle-exit instant
included; D-Bus activation brings the next daemon for the calls after it. Runs under Debian's python3
(python3-dbus), whatever interpreter runs pytest.

    idle_exit_client.py THREADS EXITS SECONDS   stop after EXITS daemons have answered and gone, or SECONDS

Prints one JSON object: {"calls": [[sent_s, answered_s, sender or "", error name or ""], ...]}, times in seconds on
the monotonic clock.
"""
import json
import sys
import threading
import time

import dbus
import dbus.lowlevel

SERVICE = "org.intervald.Timer1"
PATH = "/org/intervald/Timer1"
# An activation plus a start-up is well under this; a call that takes longer counts as unanswered.
TIMEOUT_S = 20


def message(member):
    if member == "Get":
        call = dbus.lowlevel.MethodCallMessage(SERVICE, PATH, "org.freedesktop.DBus.Properties", "Get")
        call.append(SERVICE, "State", signature="ss")
    else:
        call = dbus.lowlevel.MethodCallMessage(SERVICE, PATH, SERVICE, member)
    return call


def caller(calls, done, lock):
    bus = dbus.bus.BusConnection(dbus.bus.BUS_SESSION)
    members = ["Get", "Pause"]
    index = 0
    while not done.is_set():
        sent = time.monotonic()
        try:
            reply = bus.send_message_with_reply_and_block(message(members[index % 2]), TIMEOUT_S)
            outcome = (reply.get_sender() or "", "")
        except dbus.exceptions.DBusException as error:
            outcome = ("", error.get_dbus_name() or str(error))
        with lock:
            calls.append([sent, time.monotonic(), *outcome])
        index += 1


def main():
    threads, exits, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    calls, done, lock = [], threading.Event(), threading.Lock()
    workers = [threading.Thread(target=caller, args=(calls, done, lock)) for _ in range(threads)]
    for worker in workers:
        worker.start()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with lock:
            senders = {sender for _, _, sender, _ in calls if sender}
        # EXITS daemons gone means EXITS + 1 have answered.
        if len(senders) > exits:
            break
        time.sleep(0.05)
    done.set()
    for worker in workers:
        worker.join()
    print(json.dumps({"calls": calls}))


if __name__ == "__main__":
    main()
