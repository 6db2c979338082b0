#!/usr/bin/env python3
"""Writes the FIT workouts of this folder: workouts shaped as Garmin Connect and Garmin watches write them, and as
Garmin's FIT SDK's four sample workouts are described, for test_fit.py's import tests. Provenance: written by this
script from the FIT protocol's public description (a 14-byte header, definition and data records, CRC-16), with the
messages and fields Garmin Connect puts in a workout it sends to a watch (file_id with manufacturer 1 "garmin", product
65534 "connect", a serial number and time_created; workout with wkt_name, sport and num_valid_steps; workout_step
without notes, intensity on every step, speed targets as custom ranges in mm/s, repeat steps after what they repeat).
The SDK's samples (WorkoutIndividualSteps, WorkoutRepeatSteps, WorkoutCustomTargetValues, WorkoutRepeatGreaterThanStep:
a cycling workout of steps named _A_, B1_, B2_, _C_) are written from their published description of steps, durations
and targets, not copied. Independent of intervald's own encoder; run it again to regenerate the files (they are
committed).

Duration types: 0 time (ms), 1 distance (cm), 2 hr_less_than, 3 hr_greater_than, 4 calories, 5 open (the Lap button),
6 repeat_until_steps_cmplt, 10 repeat_until_hr_less_than, 11 repeat_until_hr_greater_than, 14 power_less_than. A heart
rate up to 100 is a percentage of the maximum, above it bpm + 100; a power above 1000 is watts + 1000. Target types:
0 speed, 1 heart rate, 2 open, 3 cadence, 4 power; target_value a zone, or 0 for the custom low/high range.

  garmin-connect-intervals.fit  little-endian; warm-up, 5 × (1 km at 4:50–5:10/km, 2 min recovery), cool-down
  garmin-watch-big-endian.fit   big-endian definitions (architecture 1), as some watches write; 3 × (1 min, 1 min)
  garmin-open-step.fit          a warm-up ended by the Lap button (duration type open), then 10 min
  garmin-connect-track.fit      a warm-up until Lap, 6 × (400 m without a pace, 90 s walk), a cool-down until the heart
                                rate is below 125 bpm
  garmin-connect-sensors.fit    a heart-rate zone target, a custom bpm range, 200 kcal, power below 150 W, heart rate
                                above 80 % of maximum, a cadence range, a heart-rate cool-down
  garmin-connect-repeat-until-hr.fit  step 6 repeats until the heart rate is below 120 bpm: refused on import
  sdk-workout-individual-steps.fit         1 min in heart-rate zone 2, 2 × 500 m in power zones 5 and 3, a cool-down
                                           until 125 bpm in power zone 1
  sdk-workout-repeat-steps.fit             the same with the two 500 m steps repeated 3 times
  sdk-workout-custom-target-values.fit     the same steps with custom ranges: 50–60 % of maximum heart rate,
                                           300–310 W, 260–270 W, 220–230 W
  sdk-workout-repeat-greater-than-step.fit the 500 m steps repeated until the heart rate is above 80 % of maximum:
                                           refused on import
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


INVALID = 0xFFFFFFFF


def file_id(created=1_100_000_000, manufacturer=1, product=65534, serial=3_987_654_321):
    return (0, 0, [(3, UINT32Z, 4, serial), (4, UINT32, 4, created), (1, UINT16, 2, manufacturer),
                   (2, UINT16, 2, product), (0, ENUM, 1, 5)])


def workout(name, steps, sport=1):
    return (1, 26, [(4, ENUM, 1, sport), (6, UINT16, 2, steps), (8, STRING, 24, name)])


def step(index, name, duration_type, duration, intensity, target_type=2, target=0, low=INVALID, high=INVALID):
    """A workout_step with every field (None: the field's invalid value, as an open step's duration)."""
    return (2, 27, [(254, UINT16, 2, index), (0, STRING, 16, name), (1, ENUM, 1, duration_type),
                    (2, UINT32, 4, INVALID if duration is None else duration), (3, ENUM, 1, target_type),
                    (4, UINT32, 4, target), (5, UINT32, 4, low), (6, UINT32, 4, high), (7, ENUM, 1, intensity)])


# intensity
ACTIVE, REST, WARMUP, COOLDOWN, RECOVERY = 0, 1, 2, 3, 4
# target types
SPEED, HEART_RATE, OPEN, CADENCE, POWER = 0, 1, 2, 3, 4


def garmin_connect(name, steps):
    return [file_id(), workout(name, len(steps))] + steps


def sdk_sample(name, steps):
    """As the SDK's samples are described: made by Dynastream (manufacturer 15) in 2009, a cycling workout (sport 2)."""
    created = 1_252_528_680 - 631_065_600  # 2009-09-09 20:38 UTC, in seconds since the FIT epoch
    return [file_id(created, manufacturer=15, product=1, serial=1234), workout(name, len(steps), sport=2)] + steps


def sdk_steps(first, second, last, repeat=None):
    """The samples' steps: a minute's warm-up, two 500 m steps, an optional repeat of them, a cool-down until 125 bpm.
    Each of first, second and last is a (target type, zone or 0, low, high)."""
    steps = [step(0, "_A_", 0, 60_000, WARMUP, *first),
             step(1, "B1_", 1, 50_000, ACTIVE, *second[0]),
             step(2, "B2_", 1, 50_000, ACTIVE, *second[1])]
    if repeat:
        steps.append(step(3, repeat[0], repeat[1], 1, ACTIVE, *repeat[2]))
    steps.append(step(len(steps), "_C_", 2, 100 + 125, COOLDOWN, *last))
    return steps


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
    open_step = [file_id(), workout("Lap to start", 2), step(0, "Warm up", 5, None, 2), step(1, "Run", 0, 600_000, 0)]
    (folder / "garmin-open-step.fit").write_bytes(fit_file(open_step))

    track = garmin_connect("Track 6x400m", [
        step(0, "", 5, None, WARMUP),
        step(1, "", 1, 40_000, ACTIVE),
        step(2, "Walk", 0, 90_000, RECOVERY),
        step(3, "", 6, 1, 0xFF, target=6),
        step(4, "", 2, 100 + 125, COOLDOWN),
    ])
    (folder / "garmin-connect-track.fit").write_bytes(fit_file(track))
    sensors = garmin_connect("Zones and sensors", [
        step(0, "", 0, 600_000, WARMUP, HEART_RATE, 2),
        step(1, "Tempo", 0, 1_200_000, ACTIVE, HEART_RATE, 0, 100 + 140, 100 + 150),
        step(2, "Burn", 4, 200, ACTIVE),
        step(3, "", 14, 1000 + 150, RECOVERY),
        step(4, "Climb", 3, 80, ACTIVE),
        step(5, "Quick feet", 0, 120_000, ACTIVE, CADENCE, 0, 85, 90),
        step(6, "", 2, 100 + 125, COOLDOWN),
    ])
    (folder / "garmin-connect-sensors.fit").write_bytes(fit_file(sensors))
    until_recovered = garmin_connect("Hills until recovered", [
        step(0, "", 0, 600_000, WARMUP),
        step(1, "Hill", 0, 120_000, ACTIVE),
        step(2, "", 0, 60_000, RECOVERY),
        step(3, "", 6, 1, 0xFF, target=3),
        step(4, "Stride", 0, 60_000, ACTIVE),
        step(5, "Repeat", 10, 4, 0xFF, HEART_RATE, 100 + 120),
        step(6, "", 0, 300_000, COOLDOWN),
    ])
    (folder / "garmin-connect-repeat-until-hr.fit").write_bytes(fit_file(until_recovered))

    zones = ((HEART_RATE, 2), ((POWER, 5), (POWER, 3)), (POWER, 1))
    (folder / "sdk-workout-individual-steps.fit").write_bytes(fit_file(sdk_sample("Example 1", sdk_steps(*zones))))
    repeated = sdk_steps(*zones, repeat=("", 6, (OPEN, 3)))
    (folder / "sdk-workout-repeat-steps.fit").write_bytes(fit_file(sdk_sample("Example 2", repeated)))
    custom = ((HEART_RATE, 0, 50, 60), ((POWER, 0, 1300, 1310), (POWER, 0, 1260, 1270)), (POWER, 0, 1220, 1230))
    (folder / "sdk-workout-custom-target-values.fit").write_bytes(
        fit_file(sdk_sample("Example 1", sdk_steps(*custom))))
    until_hr = sdk_steps(*zones, repeat=("Rep", 11, (HEART_RATE, 80)))
    (folder / "sdk-workout-repeat-greater-than-step.fit").write_bytes(fit_file(sdk_sample("Example 2", until_hr)))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent)
