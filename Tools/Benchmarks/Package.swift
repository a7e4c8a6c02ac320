// swift-tools-version:6.1
//
// Sluice's benchmarks: Sluice measured side by side with its peers in one run, reported as ratios.
// A separate package, so the benchmark harness never becomes a dependency of Sluice itself.

import PackageDescription

let package = Package(
    name: "SluiceBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Sluice", path: "../.."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "RequestSerialization",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "SluiceCore", package: "Sluice"),
                .product(name: "SluiceRequestSerialization", package: "Sluice"),
            ],
            path: "Benchmarks/RequestSerialization",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
