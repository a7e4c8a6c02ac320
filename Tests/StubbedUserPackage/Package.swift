// swift-tools-version:6.0
// A user's package, separate from Sluice's: an API client built on the Sluice product, and its tests,
// which depend on the SluiceTesting product only and need no server. Tools/testenv/check-stubbed-user.sh
// builds and tests it beside a link to this checkout named "sluice" (make test runs it).
import PackageDescription

let package = Package(
    name: "WeatherClient",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "sluice", path: "../sluice")],
    targets: [
        .target(name: "WeatherClient", dependencies: [.product(name: "Sluice", package: "sluice")]),
        .testTarget(
            name: "WeatherClientTests",
            dependencies: ["WeatherClient", .product(name: "SluiceTesting", package: "sluice")]),
    ]
)
