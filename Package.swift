// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "Tocsin",
    products: [
        /// The engine for Swift programs.
        .library(name: "Tocsin", targets: ["Tocsin"]),
        /// The C ABI of include/tocsin.h, Swift runtime linked in; built as
        /// libtocsin-core.so with the soname libtocsin.so.0, and installed as
        /// libtocsin.so (the `tocsin` name belongs to the command).
        .library(name: "tocsin-core", type: .dynamic, targets: ["TocsinC"]),
        /// The desktop notifier for Swift programs.
        .library(name: "TocsinNotify", targets: ["TocsinNotify"]),
        /// libtocsin-notify.so: the C ABI of include/tocsin_notify.h. It drives
        /// the engines of the libtocsin.so.0 the host loaded (found at run time).
        .library(name: "tocsin-notify", type: .dynamic, targets: ["TocsinNotifyC"]),
        /// The `tocsin` command.
        .executable(name: "tocsin", targets: ["tocsin"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        /// include/tocsin.h (linked into Sources/CTocsin/include) and the
        /// status texts generated from its error table.
        .target(name: "CTocsin"),
        /// Linux calls the Glibc module does not import: epoll, timerfd, eventfd.
        .target(name: "CTocsinSystem"),
        /// The terminal's width and a signalfd, for the command only.
        .target(name: "CTocsinTerminal"),
        /// The timer service's signal thread and systemd's notify protocol.
        .target(name: "CTocsinService"),
        // SwiftPM prints "warning: prohibited flag(s): -pthread" and
        // "-D_REENTRANT" for these three: Debian's glib-2.0.pc and
        // libcanberra.pc put them in Cflags, and SwiftPM keeps only -I from
        // a system library's Cflags, warning about the rest on every build,
        // with no setting to quiet it. Both flags are no-ops here (glibc has
        // threads built in; _REENTRANT means nothing to it). Passing the
        // include directories ourselves would need unsafeFlags on every
        // target that imports these, TocsinNotify included, and a package
        // with unsafe flags cannot be used as a dependency; or Debian's paths
        // written here. So the warning stays, and it is the only one.
        .systemLibrary(name: "CNotify", pkgConfig: "libnotify", providers: [.apt(["libnotify-dev"])]),
        .systemLibrary(name: "CCanberra", pkgConfig: "libcanberra", providers: [.apt(["libcanberra-dev"])]),
        /// GDBus and the GLib main loop, for the timer service.
        .systemLibrary(name: "CGio", pkgConfig: "gio-2.0", providers: [.apt(["libglib2.0-dev"])]),
        /// What the engine and the notifier share: timer ids, status codes
        /// and their texts, the lock, nanosecond arithmetic and the clocks.
        .target(name: "TocsinBase", dependencies: ["CTocsin", "CTocsinSystem"]),
        .target(name: "Tocsin", dependencies: ["TocsinBase", "CTocsin", "CTocsinSystem"]),
        .target(
            name: "TocsinC",
            dependencies: ["Tocsin", "TocsinBase", "CTocsin"],
            exclude: ["exports.map"],
            linkerSettings: [
                .unsafeFlags([
                    "-static-stdlib",
                    "-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/TocsinC/exports.map",
                    "-Xlinker", "-soname=libtocsin.so.0",
                ])
            ]),
        /// The desktop notifier, engine-free: alerts through libnotify, sounds
        /// through libcanberra, for any `AlertHost`.
        .target(name: "TocsinDesktop", dependencies: ["TocsinBase", "CNotify", "CCanberra", "CTocsin"]),
        /// The notifier for Swift programs: attaches a `TimerEngine`'s timers.
        .target(name: "TocsinNotify", dependencies: ["Tocsin", "TocsinDesktop"]),
        .target(name: "CTocsinNotify", dependencies: ["CTocsin"]),
        .target(
            name: "TocsinNotifyC",
            dependencies: ["TocsinDesktop", "TocsinBase", "CTocsinNotify", "CTocsin"],
            exclude: ["exports.map"],
            linkerSettings: [
                .unsafeFlags([
                    "-static-stdlib",
                    "-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/TocsinNotifyC/exports.map",
                    "-Xlinker", "-soname=libtocsin-notify.so.0",
                ])
            ]),
        /// `tocsin service`: the timers on the D-Bus session bus (GDBus), and
        /// its client.
        .target(name: "TocsinService", dependencies: ["Tocsin", "TocsinBase", "TocsinNotify", "CGio", "CTocsinSystem", "CTocsinService"]),
        /// What the command is made of: time parsing, display, the terminal
        /// runners, and the command as the timer service's client.
        .target(name: "TocsinCLI", dependencies: ["Tocsin", "TocsinBase", "TocsinNotify", "TocsinService", "CTocsinTerminal"]),
        .executableTarget(
            name: "tocsin",
            dependencies: [
                "TocsinCLI", "TocsinService", "Tocsin", "TocsinBase", "TocsinNotify",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .testTarget(name: "TocsinTests", dependencies: ["Tocsin", "CTocsin"]),
        .testTarget(name: "TocsinCLITests", dependencies: ["TocsinCLI", "TocsinService", "TocsinNotify", "Tocsin"]),
        .testTarget(name: "TocsinNotifyTests", dependencies: ["TocsinNotify", "TocsinDesktop", "TocsinBase", "Tocsin"]),
        .testTarget(name: "TocsinServiceTests", dependencies: ["TocsinService", "TocsinNotify", "Tocsin", "CGio"]),
    ]
)

// The project's own code builds without a warning, and stays that way: any
// warning in its Swift targets fails the build, and in its C targets too
// where TOCSIN_STRICT is set (the Makefile sets it). Not for C always: when
// Tocsin is another package's dependency SwiftPM turns warnings off, and a
// C module with treatAllWarnings then gets importers whose swiftc command
// clang rejects ("unknown argument: '-fPIC'"). scripts/test-as-dependency.sh
// builds Tocsin that way.
let strictC = Context.environment["TOCSIN_STRICT"] == "1"
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("InternalImportsByDefault"),
        .treatAllWarnings(as: .error),
    ]
    if strictC { target.cSettings = (target.cSettings ?? []) + [.treatAllWarnings(as: .error)] }
}
