// swift-tools-version: 6.0
// A package of someone else's that depends on Tocsin the usual way, by a
// git URL (scripts/test-as-dependency.sh sets TOCSIN_URL to a file:// URL of
// a snapshot of the working tree), with swift-async-algorithms beside it.
// Each folder of Sources/ is a program; Tests/ReadmeTests holds the README's
// test example. The README's Swift examples are copied in as readme-N.
import PackageDescription

let tocsin = Context.environment["TOCSIN_URL"] ?? "https://github.com/tocsin-dev/tocsin"
// The programs: Sources/'s folders, as the test script lists them (through
// the environment, so that SwiftPM evaluates the manifest again when one is
// added: it keeps an evaluated manifest while its text and environment stay).
let programs = (Context.environment["TOCSIN_PROGRAMS"] ?? "").split(separator: " ").map(String.init)
// A program of Rejected/ that must not compile, when the test builds one.
let rejected: [Target] = Context.environment["TOCSIN_REJECTED"].map { name in
    [.executableTarget(name: name, dependencies: [.product(name: "Tocsin", package: "tocsin")], path: "Rejected/\(name)")]
} ?? []
let uses: [Target.Dependency] = [
    .product(name: "Tocsin", package: "tocsin"),
    .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
]

let package = Package(
    name: "uses-tocsin",
    dependencies: [
        .package(url: tocsin, branch: "main"),
        .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.0.0"),
    ],
    targets: programs.sorted().map { name in
        .executableTarget(
            name: name,
            dependencies: uses + (name == "notifier" ? [.product(name: "TocsinNotify", package: "tocsin")] : []))
    } + [
        .testTarget(name: "ReadmeTests", dependencies: uses),
    ] + rejected
)
