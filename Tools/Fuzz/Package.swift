// swift-tools-version:6.0
//
// libFuzzer targets for Sluice's parsers of untrusted bytes. A separate package, so that sanitizer and
// fuzzer flags never touch the main build; `run.sh` builds it with `--sanitize=fuzzer --sanitize=address`
// and runs each target. Its build folder is Tools/Fuzz/.build.

import PackageDescription

let package = Package(
    name: "SluiceFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Sluice", path: "../.."),
    ],
    targets: [
        // Response bodies served as application/x-plist, through PropertyListResponseSerializer's
        // Parameters and Decodable paths. Corpus: Corpus/PropertyList.
        .executableTarget(
            name: "FuzzPropertyList",
            dependencies: [
                .product(name: "SluicePropertyList", package: "Sluice"),
                .product(name: "SluiceCore", package: "Sluice"),
            ],
            path: "FuzzPropertyList"
        ),
    ]
)
