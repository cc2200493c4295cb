// swift-tools-version:6.1
// The DispatchSourceTimer peer of bench/: one source per timer, the naive
// Swift approach. Built by bench/run.sh; not part of the main package.
import PackageDescription

let package = Package(
    name: "dispatch-bench",
    targets: [.executableTarget(name: "dispatch-bench", swiftSettings: [.unsafeFlags(["-Ounchecked"])])]
)
