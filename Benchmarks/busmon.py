#!/usr/bin/env python3
"""An independent D-Bus monitor that timestamps every message the moment its first bytes arrive.

    busmon.py [--fifo PRIORITY] OUT.jsonl MATCH [MATCH...]

Connects to $DBUS_SESSION_BUS_ADDRESS, becomes a monitor (org.freedesktop.DBus.Monitoring.BecomeMonitor) for the
match rules, and writes one JSON object per message to OUT.jsonl:

    {"t": CLOCK_MONOTONIC_NS, "type": "signal", "sender": ":1.7", "interface": "...", "member": "...",
     "path": "...", "signature": "...", "args": [...]}

"t" is read right after the read of the message's 16-byte fixed header returns, before anything is parsed. A
message must not wait behind the parsing of the ones before it: a cue sends several within a fraction of a
millisecond (SegmentStarted, the properties' PropertiesChanged, Notify), and parsing and writing one in Python takes
about as long. So each message is read with exact lengths and kept raw, and the kept ones are parsed and written only
once the bus has been quiet for QUIET_MS (or FLUSH_COUNT are kept, or the oldest is FLUSH_AGE_MS old: a flood).
The kernel cannot stamp it for us: SO_TIMESTAMPNS gives nothing on a unix stream socket (checked on Linux 6.18).
So that this monitor's own wake-up delay stays out of the numbers, `--fifo` runs it under SCHED_FIFO (root or
CAP_SYS_NICE); the processes being measured keep their normal priority. "args" holds the leading basic arguments
(strings, integers) of the body. Prints "ready" on stdout once the bus has accepted the monitor.
Stops on SIGTERM/SIGINT or when the bus goes away. Standard library only.
"""
import json
import os
import select
import signal
import socket
import struct
import sys
import time

TYPES = {1: "method_call", 2: "method_return", 3: "error", 4: "signal"}
#: Parse and write what was read once the bus has been quiet this long, ms: longer than the gaps within a cue's burst.
QUIET_MS = 3
#: ... or once this many messages, or one this old (ms), wait: under a flood the bus is never quiet.
FLUSH_COUNT, FLUSH_AGE_MS = 64, 20
FIELDS = {1: "path", 2: "interface", 3: "member", 4: "error_name", 5: "reply_serial", 6: "destination",
          7: "sender", 8: "signature", 9: "unix_fds"}


def bus_socket(address):
    """Connects to the first unix: entry of a D-Bus address."""
    for entry in address.split(";"):
        kind, _, params = entry.partition(":")
        if kind != "unix":
            continue
        values = dict(p.split("=", 1) for p in params.split(",") if "=" in p)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        if "path" in values:
            sock.connect(unescape(values["path"]))
        elif "abstract" in values:
            sock.connect("\0" + unescape(values["abstract"]))
        else:
            continue
        return sock
    raise SystemExit(f"busmon: no usable unix address in {address!r}")


def unescape(value):
    out, i = bytearray(), 0
    raw = value.encode()
    while i < len(raw):
        if raw[i] == ord("%"):
            out.append(int(raw[i + 1:i + 3], 16))
            i += 3
        else:
            out.append(raw[i])
            i += 1
    return out.decode()


def pad(n, align):
    return (align - n % align) % align


class Writer:
    """Little-endian marshalling of the few types this monitor sends."""

    def __init__(self):
        self.buf = bytearray()

    def align(self, n):
        self.buf += b"\0" * pad(len(self.buf), n)

    def byte(self, v):
        self.buf += bytes([v])

    def u32(self, v):
        self.align(4)
        self.buf += struct.pack("<I", v)

    def string(self, s):
        data = s.encode()
        self.u32(len(data))
        self.buf += data + b"\0"

    def signature(self, s):
        data = s.encode()
        self.buf += bytes([len(data)]) + data + b"\0"


def method_call(serial, destination, path, interface, member, signature="", body=b""):
    fields = Writer()
    for code, sig, value in ((1, "o", path), (2, "s", interface), (3, "s", member), (6, "s", destination),
                             *(((8, "g", signature),) if signature else ())):
        fields.align(8)
        fields.byte(code)
        fields.signature(sig)
        if sig == "g":
            fields.signature(value)
        else:
            fields.string(value)
    header = Writer()
    header.buf += b"l" + bytes([1, 0, 1])
    header.buf += struct.pack("<III", len(body), serial, len(fields.buf))
    header.buf += fields.buf
    header.align(8)
    return bytes(header.buf) + body


class Reader:
    def __init__(self, data, pos=0):
        self.data, self.pos = data, pos

    def align(self, n):
        self.pos += pad(self.pos, n)

    def u8(self):
        v = self.data[self.pos]
        self.pos += 1
        return v

    def u32(self):
        self.align(4)
        v = struct.unpack_from("<I", self.data, self.pos)[0]
        self.pos += 4
        return v

    def basic(self, code):
        if code in "so":
            n = self.u32()
            v = self.data[self.pos:self.pos + n].decode(errors="replace")
            self.pos += n + 1
            return v
        if code == "g":
            n = self.u8()
            v = self.data[self.pos:self.pos + n].decode()
            self.pos += n + 1
            return v
        if code == "y":
            return self.u8()
        if code == "b":
            return bool(self.u32())
        if code in "ui":
            v = self.u32()
            return v if code == "u" else struct.unpack("<i", struct.pack("<I", v))[0]
        if code in "tx":
            self.align(8)
            v = struct.unpack_from("<Q" if code == "t" else "<q", self.data, self.pos)[0]
            self.pos += 8
            return v
        if code == "d":
            self.align(8)
            v = struct.unpack_from("<d", self.data, self.pos)[0]
            self.pos += 8
            return v
        raise ValueError(code)


def parse(header16, rest):
    endian, mtype, flags, version, body_len, serial, fields_len = struct.unpack("<cBBBIII", header16)
    data = header16 + rest
    r = Reader(data, 16)
    end = 16 + fields_len
    fields = {}
    while r.pos < end:
        r.align(8)
        code = r.u8()
        sig = r.basic("g")
        fields[FIELDS.get(code, str(code))] = r.basic(sig)
    r.align(8)
    message = {"type": TYPES.get(mtype, str(mtype)), "serial": serial, **fields}
    args = []
    try:
        for code in fields.get("signature", ""):
            if code not in "sogybuitxd":
                break
            args.append(r.basic(code))
    except (ValueError, IndexError, struct.error):
        pass
    message["args"] = args
    return message


def main():
    argv = sys.argv[1:]
    fifo = None
    if argv[:1] == ["--fifo"]:
        fifo, argv = int(argv[1]), argv[2:]
    if len(argv) < 2:
        raise SystemExit(__doc__)
    out_path, matches = argv[0], argv[1:]
    if fifo is not None:
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(fifo))
        except OSError as error:
            print(f"busmon: SCHED_FIFO not permitted ({error}), running at normal priority", file=sys.stderr)
    sock = bus_socket(os.environ["DBUS_SESSION_BUS_ADDRESS"])
    sock.sendall(b"\0AUTH EXTERNAL " + str(os.getuid()).encode().hex().encode() + b"\r\n")
    reply = b""
    while not reply.endswith(b"\r\n"):
        reply += sock.recv(256)
    if not reply.startswith(b"OK"):
        raise SystemExit(f"busmon: authentication failed: {reply!r}")
    sock.sendall(b"BEGIN\r\n")
    sock.sendall(method_call(1, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello"))
    body = Writer()
    data = Writer()
    for match in matches:
        data.string(match)
    body.u32(len(data.buf))
    body.buf += data.buf  # strings need only 4-byte alignment, which the array start already has
    body.u32(0)
    sock.sendall(method_call(2, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.Monitoring",
                             "BecomeMonitor", "asu", bytes(body.buf)))

    stop = False

    def on_signal(*_):
        nonlocal stop
        stop = True
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    def read_exact(n):
        """Reads n bytes; returns (data, CLOCK_MONOTONIC ns when the first chunk came)."""
        chunks, stamp, got = [], None, 0
        while got < n:
            data = sock.recv(n - got)
            if stamp is None:
                stamp = time.monotonic_ns()
            if not data:
                raise EOFError
            chunks.append(data)
            got += len(data)
        return b"".join(chunks), stamp

    ready = False
    kept = []
    poller = select.poll()
    poller.register(sock, select.POLLIN)

    with open(out_path, "w", buffering=1) as out:
        def write_kept():
            for stamp, header, rest in kept:
                message = parse(header, rest)
                message["t"] = stamp
                out.write(json.dumps(message, separators=(",", ":")) + "\n")
            kept.clear()

        while not stop:
            if kept and (len(kept) >= FLUSH_COUNT or time.monotonic_ns() - kept[0][0] > FLUSH_AGE_MS * 1_000_000
                         or not poller.poll(QUIET_MS)):
                write_kept()
            try:
                header, stamp = read_exact(16)
                if header[0:1] != b"l":
                    raise SystemExit("busmon: big-endian messages are not supported")
                body_len, fields_len = struct.unpack_from("<I", header, 4)[0], struct.unpack_from("<I", header, 12)[0]
                total = 16 + fields_len + pad(16 + fields_len, 8) + body_len
                rest, _ = read_exact(total - 16)
            except (EOFError, OSError):
                break
            if ready:
                kept.append((stamp, header, rest))
                continue
            message = parse(header, rest)
            if message["type"] == "method_return" and message.get("reply_serial") == 2:
                ready = True
                print("ready", flush=True)
            elif message["type"] == "error" and message.get("reply_serial") == 2:
                raise SystemExit(f"busmon: BecomeMonitor failed: {message}")
        write_kept()


if __name__ == "__main__":
    main()
