import ArgumentParser
import FoundationEssentials
import IntervalBus
import IntervalCore
import IntervalCtlCommon
import IntervalRuntime
import IntervalSettings

struct SensorsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sensors",
        abstract:
            "List the Bluetooth heart-rate straps, treadmills and bikes BlueZ knows, and choose one (docs/sensors.md).",
        discussion: """
            Through BlueZ on the system bus. A device paired in the desktop Bluetooth settings, or one found by \
            'sensors scan', is listed with its kind, whether it is connected, and its battery where it says. \
            'sensors use NAME|ADDRESS' chooses it for its kind ([sensors] heart_rate or machine in intervald.toml); \
            'sensors forget [KIND]' takes the choice out. Without Bluetooth (no BlueZ, no adapter, or the adapter \
            off) they say so and exit 69.
            """,
        subcommands: [List.self, Scan.self, Use.self, Forget.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the sensors BlueZ knows: name, address, kind, connected, battery; the chosen ones marked.")

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() throws {
            try show(try SensorsCommand.client().sensors(), json: json)
        }
    }

    struct Scan: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "scan",
            abstract: "Look for sensors for a while (heart-rate and fitness-machine services over LE), then list them.")

        @Option(help: "How long to look, in seconds (1 to 120).")
        var seconds = 10

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func validate() throws {
            guard (1...120).contains(seconds) else {
                throw ValidationError(tr("--seconds takes 1 to 120 seconds."))
            }
        }

        func run() throws {
            if !json {
                Console.print(tr("Looking for sensors for {seconds} s…", ["seconds": "\(seconds)"]))
            }
            try show(try SensorsCommand.client().scan(seconds: seconds), json: json)
        }
    }

    struct Use: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "use",
            abstract: "Choose a sensor by its name or address for its kind: the strap, or the machine.")

        @Argument(help: "The name or address 'intervalctl sensors' lists.")
        var sensor: String

        func run() throws {
            let sensors = try SensorsCommand.client().sensors()
            let named = sensors.filter { $0.isNamed(sensor) }
            guard let chosen = named.first else {
                printError(tr("No sensor is named “{name}”; 'intervalctl sensors' lists them.", ["name": sensor]))
                throw ExitCode.failure
            }
            guard named.count == 1 else {
                printError(
                    tr(
                        "Several sensors are named “{name}”; choose one by its address: {addresses}.",
                        ["name": sensor, "addresses": named.map(\.address).joined(separator: ", ")]))
                throw ExitCode.failure
            }
            try SensorsCommand.write(.string(chosen.address), for: chosen.kind)
            Console.print(
                tr(
                    "Chosen as the {kind}: {name} ({address}).",
                    ["name": chosen.name, "address": chosen.address, "kind": chosen.kind.words]))
        }
    }

    struct Forget: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "forget",
            abstract: "Take the chosen strap (heart-rate), machine (treadmill or bike), or both, out of the settings.")

        @Argument(help: "heart-rate, treadmill or bike; none: both.")
        var kind: SensorKind?

        func run() throws {
            let kinds: [SensorKind] = kind.map { [$0] } ?? [.heartRate, .treadmill]
            for kind in kinds { try SensorsCommand.write(nil, for: kind) }
            Console.print(
                kind.map { tr("Forgotten: the {kind}.", ["kind": $0.words]) }
                    ?? tr("The strap and the machine are forgotten."))
        }
    }

    /// A client of BlueZ; without Bluetooth, the sentence that says why, and exit 69.
    static func client() -> SensorsClient {
        SensorsClient()
    }

    /// Writes the choice of `kind` (nil: none) into intervald.toml.
    static func write(_ value: SettingValue?, for kind: SensorKind) throws {
        let paths = XDGPaths(environment: ProcessInfo.processInfo.environment)
        do throws(SettingsWriteError) {
            guard try SettingsFile.write(Setting.chosenSensor(kind), value, at: paths.settingsFile) != nil else {
                return
            }
        } catch {
            printError(error.description)
            throw ExitCode.failure
        }
        // A running daemon reads the file again when it changes (docs/reference.md §4c): nothing to call.
    }

}

/// `sensors`' connection to BlueZ: each failure is said in a sentence and exits 69 (no Bluetooth) or 1.
struct SensorsClient {
    func sensors() throws -> [SensorDevice] {
        try answer { client throws(SensorError) in try client.sensors() }
    }

    func scan(seconds: Int) throws -> [SensorDevice] {
        try answer { client throws(SensorError) in try client.scan(seconds: seconds) }
    }

    private func answer(_ body: (BlueZClient) throws(SensorError) -> [SensorDevice]) throws -> [SensorDevice] {
        do throws(SensorError) {
            return try body(try BlueZClient())
        } catch {
            printError(error.description)
            if case .unavailable = error { throw ExitStatus.unreachable }
            throw ExitCode.failure
        }
    }
}

extension SensorKind: ExpressibleByArgument {}

/// The list, as text or JSON; the chosen sensors marked.
private func show(_ sensors: [SensorDevice], json: Bool) throws {
    let chosen = SettingsFile.read(path: XDGPaths(environment: ProcessInfo.processInfo.environment).settingsFile)
        .settings.sensors
    let entries = sensors.map { SensorEntry($0, chosen: chosen.address(for: $0.kind) == $0.address) }
    if json {
        Console.print(try stableJSON(entries))
        return
    }
    guard !sensors.isEmpty else {
        Console.print(tr("No heart-rate strap, treadmill or bike is known; 'intervalctl sensors scan' looks for them."))
        return
    }
    let rows = zip(sensors, entries).map { sensor, entry in
        [
            (entry.chosen ? "* " : "  ") + sensor.name, sensor.address, sensor.kind.words,
            sensor.connected ? tr("connected") : tr("not connected"),
            sensor.battery.map { tr("battery {percent} %", ["percent": "\($0)"]) } ?? "",
        ]
    }
    let widths = (0..<5).map { column in rows.map { $0[column].count }.max() ?? 0 }
    for row in rows {
        Console.print(
            zip(row, widths).enumerated().map { index, cell in index == 4 ? cell.0 : cell.0.padding(to: cell.1) }
                .joined(separator: "  ").trimmingSpaces)
    }
}

private struct SensorEntry: Encodable {
    let name, address, kind, path: String
    let connected, chosen: Bool
    /// Percent; null when the device does not say.
    @NullWhenAbsent var battery: Int?

    init(_ sensor: SensorDevice, chosen: Bool) {
        (name, address, kind, path) = (sensor.name, sensor.address, sensor.kind.rawValue, sensor.path)
        (connected, self.chosen, battery) = (sensor.connected, chosen, sensor.battery)
    }
}
