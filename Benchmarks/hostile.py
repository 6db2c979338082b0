#!/usr/bin/env python3
"""A hostile caller of intervald: floods the daemon over the session bus for a while, then reports what it got back.

    hostile.py KIND SECONDS OUT.json [--window N] [--go-on-stdin]

KIND is what it sends, as fast as the replies come back (at most N calls unanswered at a time, default 8):
  properties    org.freedesktop.DBus.Properties.GetAll, and Get of the Elapsed snapshot
  errors        calls that must fail and change nothing while a workout runs: Resume (InvalidState),
                Start with replace=false (AlreadyRunning), an unknown method, Start with the wrong arguments
  oversized     Start with a plan text of 1 MiB + 1 KiB (refused before parsing: InvalidPlan)
  pathological  Start, replace=false, with valid plans that are costly to parse: groups nested to the limit, and
                2,000 steps of distinct kinds (parsed, then AlreadyRunning)

Never Stop, Pause or Skip, and never replace=true: the workout it is pointed at must run on undisturbed. Point it at a
running workout only: with none running, the Start calls of `errors` and `pathological` would start one.
Connects to $DBUS_SESSION_BUS_ADDRESS with its own marshalling (Benchmarks/busmon.py's), prints "ready" once the bus
has accepted it, then (with --go-on-stdin: once a line arrives on stdin) starts sending, and writes to OUT.json: for how
long it sent, calls sent, replies, errors by name, calls left unanswered, and reply times
(ms, from sending a call to reading its reply). Stops after SECONDS, or on SIGTERM; waits up to 5 s for the last
replies. Standard library only.
"""
import json
import os
import signal
import socket
import struct
import sys
import threading
import time

from busmon import Writer, bus_socket, method_call, pad, parse

SERVICE = "org.intervald.Timer1"
OBJECT = "/org/intervald/Timer1"
PROPERTIES = "org.freedesktop.DBus.Properties"
PLAN_LIMIT = 1 << 20  # docs/reference.md §5: plan text over the bus at most 1 MiB


def body(signature, *values):
    """Marshals a body of strings ("s") and booleans ("b")."""
    w = Writer()
    for code, value in zip(signature, values):
        if code == "s":
            w.string(value)
        elif code == "b":
            w.u32(1 if value else 0)
        else:
            raise ValueError(code)
    return bytes(w.buf)


def start(plan):
    return (SERVICE, "Start", "ssb", body("ssb", plan, "", False))


def calls(kind):
    """The calls of one kind, as (interface, member, signature, body); the client sends them in turn."""
    if kind == "properties":
        return [(PROPERTIES, "GetAll", "s", body("s", SERVICE)),
                (PROPERTIES, "Get", "ss", body("ss", SERVICE, "Elapsed"))]
    if kind == "errors":
        return [(SERVICE, "Resume", "", b""),
                start("1s work"),
                (SERVICE, "Frobnicate", "", b""),
                (SERVICE, "Start", "s", body("s", "1s work"))]
    if kind == "oversized":
        step = "10s work\n"
        return [start(step * ((PLAN_LIMIT + 1024) // len(step) + 1))]
    if kind == "pathological":
        nested = "".join(f"1x(1s level{d}, " for d in range(31)) + "1s work" + ")" * 31
        kinds = "\n".join(f'1s kind{i} "Step {i}"' for i in range(2000))
        return [start(nested), start(kinds)]
    raise SystemExit(f"hostile: unknown kind {kind!r}")


def percentile(values, q):
    ordered = sorted(values)
    return ordered[max(1, -(-q * len(ordered) // 100)) - 1] if ordered else None


class Connection:
    def __init__(self):
        self.sock = bus_socket(os.environ["DBUS_SESSION_BUS_ADDRESS"])
        self.sock.sendall(b"\0AUTH EXTERNAL " + str(os.getuid()).encode().hex().encode() + b"\r\n")
        reply = b""
        while not reply.endswith(b"\r\n"):
            reply += self.sock.recv(256)
        if not reply.startswith(b"OK"):
            raise SystemExit(f"hostile: authentication failed: {reply!r}")
        self.sock.sendall(b"BEGIN\r\n")
        self.serial = 0
        self.send("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello")
        while self.receive()["type"] != "method_return":
            pass

    def send(self, destination, path, interface, member, signature="", payload=b""):
        self.serial += 1
        self.sock.sendall(method_call(self.serial, destination, path, interface, member, signature, payload))
        return self.serial

    def read_exact(self, n):
        chunks, got = [], 0
        while got < n:
            data = self.sock.recv(n - got)
            if not data:
                raise EOFError
            chunks.append(data)
            got += len(data)
        return b"".join(chunks)

    def receive(self):
        header = self.read_exact(16)
        if header[0:1] != b"l":
            raise SystemExit("hostile: big-endian messages are not supported")
        body_length, _, fields_length = struct.unpack_from("<III", header, 4)
        rest = self.read_exact(fields_length + pad(16 + fields_length, 8) + body_length)
        return parse(header, rest)


def main():
    argv = sys.argv[1:]
    window = 8
    go_on_stdin = "--go-on-stdin" in argv
    if go_on_stdin:
        argv.remove("--go-on-stdin")
    if "--window" in argv:
        i = argv.index("--window")
        window = int(argv[i + 1])
        del argv[i:i + 2]
    if len(argv) != 3:
        raise SystemExit(__doc__)
    kind, seconds, out_path = argv[0], float(argv[1]), argv[2]
    plan = calls(kind)
    connection = Connection()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())

    slots = threading.Semaphore(window)
    lock = threading.Lock()
    pending = {}  # serial → (time sent, member)
    reply_ms, errors = [], {}
    counts = {"sent": 0, "returns": 0, "errors": 0}

    def read_replies():
        while True:
            try:
                message = connection.receive()
            except (EOFError, OSError):
                return
            now = time.monotonic()
            with lock:
                sent = pending.pop(message.get("reply_serial"), None)
                if sent is None:
                    continue  # a signal, e.g. NameAcquired
                reply_ms.append((now - sent[0]) * 1000)
                if message["type"] == "error":
                    counts["errors"] += 1
                    name = message.get("error_name", "?")
                    errors[name] = errors.get(name, 0) + 1
                else:
                    counts["returns"] += 1
            slots.release()

    reader = threading.Thread(target=read_replies, daemon=True)
    reader.start()
    print("ready", flush=True)
    if go_on_stdin:
        sys.stdin.readline()
    began = time.monotonic()
    deadline = began + seconds
    i = 0
    while not stop.is_set() and time.monotonic() < deadline:
        if not slots.acquire(timeout=0.1):
            continue
        interface, member, signature, payload = plan[i % len(plan)]
        i += 1
        with lock:
            serial = connection.serial + 1
            pending[serial] = (time.monotonic(), member)
            counts["sent"] += 1
        connection.send(SERVICE, OBJECT, interface, member, signature, payload)
    flood_seconds = time.monotonic() - began
    last = time.monotonic() + 5
    while time.monotonic() < last:
        with lock:
            if not pending:
                break
        time.sleep(0.05)
    with lock:
        unanswered = len(pending)
        result = {"kind": kind, "window": window, "seconds": round(flood_seconds, 3), **counts, "unanswered": unanswered,
                  "errors_by_name": errors, "replies": len(reply_ms),
                  "reply_ms": {"p50": round(percentile(reply_ms, 50), 3), "p99": round(percentile(reply_ms, 99), 3),
                               "max": round(max(reply_ms), 3)} if reply_ms else None,
                  "largest_call_bytes": max(len(p[3]) for p in plan)}
    connection.sock.shutdown(socket.SHUT_RDWR)
    with open(out_path, "w") as out:
        json.dump(result, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
