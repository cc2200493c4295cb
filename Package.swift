// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Tocsin",
    products: [
        /// The engine for Swift programs.
        .library(name: "Tocsin", targets: ["Tocsin"]),
        /// libtocsin.so: the C ABI of include/tocsin.h, Swift runtime linked in.
        .library(name: "tocsin", type: .dynamic, targets: ["TocsinC"]),
    ],
    targets: [
        /// include/tocsin.h (linked into Sources/CTocsin/include) and the
        /// status texts generated from its error table.
        .target(name: "CTocsin"),
        /// Linux calls the Glibc module does not import: epoll, timerfd, eventfd.
        .target(name: "CTocsinSystem"),
        .target(name: "Tocsin", dependencies: ["CTocsin", "CTocsinSystem"]),
        .target(
            name: "TocsinC",
            dependencies: ["Tocsin", "CTocsin"],
            exclude: ["exports.map"],
            linkerSettings: [
                .unsafeFlags([
                    "-static-stdlib",
                    "-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/TocsinC/exports.map",
                    "-Xlinker", "-soname=libtocsin.so.0",
                ])
            ]),
        .testTarget(name: "TocsinTests", dependencies: ["Tocsin"]),
    ]
)

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ]
}
