// swift-tools-version: 6.0
// Tocsin's clocks against Swift's own, in Swift programs' terms: many
// concurrent Task.sleeps, and AsyncTimerSequences with a tolerance.
// Built and run by bench/clocks.sh; not part of the main package.
import PackageDescription

let package = Package(
    name: "clocks-bench",
    dependencies: [
        .package(path: "../.."),
        .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.0.0"),
    ],
    targets: [
        .executableTarget(
            name: "clocks-bench",
            dependencies: [
                .product(name: "Tocsin", package: "main"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
            ]),
    ]
)
