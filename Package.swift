// swift-tools-version:6.0
// intervald: licensed under the Apache License, Version 2.0 (LICENSE; NOTICE names what it builds in).
import PackageDescription

let package = Package(
    name: "intervald",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "intervald", targets: ["intervald"]),
        .executable(name: "intervalctl", targets: ["intervalctl"]),
        .executable(name: "intervalctl-desktop", targets: ["intervalctl-desktop"]),
        .executable(name: "interval-timer", targets: ["interval-timer"]),
        .library(name: "IntervalCore", targets: ["IntervalCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // Pure logic: the plan language, lazy expansion, estimates, the scheduler. No C modules.
        .target(name: "IntervalCore"),

        // Dispatch timers on the boot clock, signals: what the daemon and `intervalctl run` share at run time.
        // Signals caught through a pipe from the first line of `main`, and a process exit that only one thread takes.
        .target(name: "CRuntimeShims"),
        .target(
            name: "IntervalRuntime",
            dependencies: ["IntervalCore", "CRuntimeShims", .product(name: "Logging", package: "swift-log")]),
        // Settings are TOML (docs/reference.md §4a), parsed by Debian's toml++ (libtomlplusplus-dev: a complete TOML
        // 1.0 parser with located errors), compiled header-only into a small C++ target that turns its assertions off
        // itself, so that no build configuration gives a daemon that toml++ aborts on a malformed file; it gives Swift
        // a C API.
        .target(name: "CTOMLReader"),
        // The settings file (the daemon's, which `intervalctl run` reads too), from one table of settings.
        .target(name: "IntervalSettings", dependencies: ["IntervalCore", "IntervalRuntime", "CTOMLReader"]),

        // libnotify adapter.
        .systemLibrary(name: "CLibNotify", pkgConfig: "libnotify", providers: [.apt(["libnotify-dev"])]),
        .target(name: "CNotifyShims", dependencies: ["CLibNotify"]),
        .target(
            name: "IntervalNotify",
            dependencies: [
                "IntervalCore", "IntervalRuntime", "CLibNotify", "CNotifyShims",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // sd-bus adapter.
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .target(name: "CBusShims", dependencies: ["CSystemd"]),
        .target(
            name: "IntervalBus",
            dependencies: [
                "IntervalCore", "IntervalRuntime", "CSystemd", "CBusShims",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Cue sounds through libcanberra and the voice through speech-dispatcher (docs/reference.md §4b). The variadic
        // calls have `_full` siblings that take a property list, so no C shim is needed. CSpeechd is libspeechd's
        // header only (libspeechd-dev): the library is loaded when the voice first speaks (SpeechLibrary).
        .systemLibrary(name: "CCanberra", pkgConfig: "libcanberra", providers: [.apt(["libcanberra-dev"])]),
        .systemLibrary(name: "CSpeechd"),
        // The music's volume while a cue sounds (docs/reference.md §11), on PulseAudio or PipeWire's pulse server.
        .systemLibrary(name: "CPulse", pkgConfig: "libpulse", providers: [.apt(["libpulse-dev"])]),
        .target(
            name: "IntervalSound",
            dependencies: [
                "IntervalCore", "IntervalRuntime", "CCanberra", "CSpeechd", "CPulse",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Watches (docs/fit.md): found and written through GIO only, mounts with or without a local path (gvfs's MTP
        // watches), for the window and `intervalctl watch` alike; GIO without GTK, so the command line links no toolkit.
        .systemLibrary(name: "CGio", pkgConfig: "gio-2.0", providers: [.apt(["libglib2.0-dev"])]),
        // GObject signals as Swift closures (a handler's type follows its signal's), held in a box that GLib releases:
        // the glue the window and IntervalWatch share, written once. Its API has Swift types only, so that a client
        // that imports GTK's headers as well sees no second copy of GLib's.
        .target(name: "IntervalGLib", dependencies: ["CGio"]),
        .target(
            name: "IntervalWatch",
            dependencies: ["IntervalCore", "IntervalGLib", "CGio", .product(name: "Logging", package: "swift-log")]),

        .executableTarget(
            name: "intervald",
            dependencies: [
                "IntervalCore", "IntervalRuntime", "IntervalSettings", "IntervalNotify", "IntervalBus", "IntervalSound",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The Interval Timer window (docs/reference.md §10): GTK 4 and libadwaita 1.2 through their C API, a client of
        // the daemon as intervalctl is. Only this executable links them; the daemon never does.
        .systemLibrary(
            name: "CGtk", pkgConfig: "libadwaita-1", providers: [.apt(["libgtk-4-dev", "libadwaita-1-dev"])]),
        .target(name: "CGtkShims", dependencies: ["CGtk"]),
        .executableTarget(
            name: "interval-timer",
            dependencies: [
                "IntervalCore", "IntervalRuntime", "IntervalSettings", "IntervalBus", "IntervalSound", "IntervalWatch",
                "IntervalGLib", "CGtk", "CGtkShims", .product(name: "Logging", package: "swift-log"),
            ],
            // The window's layout, GtkBuilder files compiled into the executable (no resource path to find at run
            // time, in the build tree or the package).
            resources: [
                .embedInCode("ui/window.ui"), .embedInCode("ui/workout-page.ui"), .embedInCode("ui/plans-page.ui"),
                .embedInCode("ui/history-page.ui"), .embedInCode("ui/calculator-page.ui"),
                .embedInCode("ui/shortcuts.ui"), .embedInCode("ui/plan-editor.ui"),
            ]
        ),
        // What intervalctl and intervalctl-desktop share: the plan on the command line, the console, FIT export, the
        // programs, the desktop commands' definitions (DesktopCommands.swift).
        .target(
            name: "IntervalCtlCommon",
            dependencies: [
                "IntervalCore", "IntervalRuntime", "IntervalSettings",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // intervalctl links no notification, sound or GIO library: `run`, `test-sound` and `watch` are
        // intervalctl-desktop's, which intervalctl becomes for them (DesktopExecutable).
        .executableTarget(
            name: "intervalctl",
            dependencies: [
                "IntervalCore", "IntervalRuntime", "IntervalSettings", "IntervalBus", "IntervalCtlCommon",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "intervalctl-desktop",
            dependencies: [
                "IntervalCore", "IntervalRuntime", "IntervalSettings", "IntervalNotify", "IntervalBus", "IntervalSound",
                "IntervalWatch", "IntervalCtlCommon",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // What the unit tests share: ManualTimerSource (the virtual clock) and a session on it. Not a product, and no
        // executable depends on it: it never ships.
        .target(name: "IntervalTestSupport", dependencies: ["IntervalCore"]),

        .testTarget(name: "IntervalCoreTests", dependencies: ["IntervalCore", "IntervalTestSupport"]),
        // The sd-bus adapter against a real session bus; skipped when there is none.
        .testTarget(
            name: "IntervalBusTests",
            dependencies: [
                "IntervalBus", "IntervalCore", "IntervalTestSupport", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "IntervalRuntimeTests", dependencies: ["IntervalRuntime", "IntervalCore", "IntervalTestSupport"]),
        .testTarget(name: "IntervalSettingsTests", dependencies: ["IntervalSettings", "IntervalCore"]),
        .testTarget(
            name: "IntervalSoundTests", dependencies: ["IntervalSound", "IntervalCore", "IntervalTestSupport"]),
        .testTarget(
            name: "IntervalNotifyTests", dependencies: ["IntervalNotify", "IntervalCore", "IntervalTestSupport"]),
        // docs/dbus-interfaces.md, docs/settings.md and docs/workout-fields.md, rendered from the code's tables and
        // compared with the files (scripts/update-docs writes them).
        .testTarget(name: "ReferenceDocsTests", dependencies: ["IntervalCore", "IntervalSettings"]),
        // The GIO wrappers on local folders (a watch's URI-only mount is the integration tests').
        .testTarget(
            name: "IntervalWatchTests", dependencies: ["IntervalWatch", "IntervalCore", "IntervalTestSupport"]),
        .testTarget(
            name: "intervalctlTests", dependencies: ["intervalctl-desktop", "IntervalCore", "IntervalTestSupport"]),
    ],
    cxxLanguageStandard: .cxx17
)

// libFuzzer targets (Fuzz/, docs/fuzzing.md): only when scripts/fuzz builds them with `-sanitize=fuzzer,address` in a
// scratch path of their own; libFuzzer supplies `main`, so an ordinary build could not link them.
if Context.environment["INTERVALD_FUZZ"] != nil {
    package.targets += [
        .target(name: "FuzzDriver", path: "Fuzz/FuzzDriver"),
        .executableTarget(
            name: "PlanParserFuzzer", dependencies: ["FuzzDriver", "IntervalCore"], path: "Fuzz/PlanParserFuzzer"),
        .executableTarget(
            name: "SettingsFuzzer", dependencies: ["FuzzDriver", "IntervalCore", "IntervalSettings"],
            path: "Fuzz/SettingsFuzzer"),
        .executableTarget(name: "FITFuzzer", dependencies: ["FuzzDriver", "IntervalCore"], path: "Fuzz/FITFuzzer"),
    ]
}
