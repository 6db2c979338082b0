#!/usr/bin/env python3
"""Writes the FIT workouts of this folder: workouts shaped as Garmin Connect and Garmin watches write them, for
test_fit.py's import tests. Provenance: written by this script from the FIT protocol's public description (a 14-byte
header, definition and data records, CRC-16), with the messages and fields Garmin Connect puts in a workout it sends to
a watch (file_id with manufacturer 1 "garmin", product 65534 "connect", a serial number and time_created; workout with
wkt_name, sport and num_valid_steps; workout_step without notes, intensity on every step, speed targets as custom
ranges in mm/s, repeat steps after what they repeat). Independent of intervald's own encoder; run it again to
regenerate the files (they are committed).

  garmin-connect-intervals.fit  little-endian; warm-up, 5 × (1 km at 4:50–5:10/km, 2 min recovery), cool-down
  garmin-watch-big-endian.fit   big-endian definitions (architecture 1), as some watches write; 3 × (1 min, 1 min)
  garmin-open-step.fit          a warm-up ended by the Lap button (duration type open): refused on import
"""
import struct
import sys
from pathlib import Path

CRC_TABLE = [0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
             0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400]


def crc16(data, crc=0):
    for byte in data:
        tmp = CRC_TABLE[crc & 0xF]
        crc = (crc >> 4) & 0x0FFF
        crc = crc ^ tmp ^ CRC_TABLE[byte & 0xF]
        tmp = CRC_TABLE[crc & 0xF]
        crc = (crc >> 4) & 0x0FFF
        crc = crc ^ tmp ^ CRC_TABLE[(byte >> 4) & 0xF]
    return crc


# base types: (number, struct format)
ENUM, UINT16, UINT32, UINT32Z, STRING = (0x00, "B"), (0x84, "H"), (0x86, "I"), (0x8C, "I"), (0x07, None)


def fit_file(messages, big_endian=False):
    """messages: [(local, global, [(field, base, size, value)])]; a definition before each new local layout."""
    order = ">" if big_endian else "<"
    records = bytearray()
    defined = {}
    for local, global_number, fields in messages:
        layout = (global_number, tuple((f, b[0], s) for f, b, s, _ in fields))
        if defined.get(local) != layout:
            defined[local] = layout
            records += bytes([0x40 | local, 0, 1 if big_endian else 0]) + struct.pack(order + "H", global_number)
            records += bytes([len(fields)])
            for field, base, size, _ in fields:
                records += bytes([field, size, base[0]])
        records += bytes([local])
        for _, base, size, value in fields:
            if base is STRING:
                encoded = value.encode()[: size - 1]
                records += encoded + b"\0" * (size - len(encoded))
            else:
                records += struct.pack(order + base[1], value)
    header = bytearray([14, 0x20]) + struct.pack("<H", 2132) + struct.pack("<I", len(records)) + b".FIT"
    header += struct.pack("<H", crc16(header))
    body = header + records
    return bytes(body + struct.pack("<H", crc16(body)))


def file_id(created=1_100_000_000):
    return (0, 0, [(3, UINT32Z, 4, 3_987_654_321), (4, UINT32, 4, created), (1, UINT16, 2, 1), (2, UINT16, 2, 65534),
                   (0, ENUM, 1, 5)])


def workout(name, steps):
    return (1, 26, [(4, ENUM, 1, 1), (6, UINT16, 2, steps), (8, STRING, 24, name)])


def step(index, name, duration_type, duration, intensity, target_type=2, target=0, low=0xFFFFFFFF, high=0xFFFFFFFF):
    return (2, 27, [(254, UINT16, 2, index), (0, STRING, 16, name), (1, ENUM, 1, duration_type),
                    (2, UINT32, 4, duration), (3, ENUM, 1, target_type), (4, UINT32, 4, target),
                    (5, UINT32, 4, low), (6, UINT32, 4, high), (7, ENUM, 1, intensity)])


def main(folder):
    folder = Path(folder)
    # 1 km at 4:50–5:10/km: 3226–3448 mm/s, whose middle is 5:00/km.
    intervals = [
        file_id(), workout("Intervals 5x1km", 5),
        step(0, "", 0, 600_000, 2),
        step(1, "1 km fast", 1, 100_000, 0, target_type=0, target=0, low=3226, high=3448),
        step(2, "", 0, 120_000, 4),
        step(3, "", 6, 1, 0xFF, target_type=2, target=5),
        step(4, "", 0, 300_000, 3),
    ]
    (folder / "garmin-connect-intervals.fit").write_bytes(fit_file(intervals))
    short = [file_id(), workout("Minute on minute off", 3), step(0, "On", 0, 60_000, 0), step(1, "Off", 0, 60_000, 1),
             step(2, "", 6, 0, 0xFF, target=3)]
    (folder / "garmin-watch-big-endian.fit").write_bytes(fit_file(short, big_endian=True))
    open_step = [file_id(), workout("Lap to start", 2), step(0, "Warm up", 5, 0, 2), step(1, "Run", 0, 600_000, 0)]
    (folder / "garmin-open-step.fit").write_bytes(fit_file(open_step))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent)
