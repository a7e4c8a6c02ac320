// swift-tools-version:6.0
//
// Builds swift-openapi-generator's command-line tool for Tools/OpenAPI/generate.sh, which regenerates the
// committed client in Tests/HTTPBinAPI from Tests/HTTPBinAPI/openapi.yaml. Not part of Sluice's own build:
// the generated code is committed, so building or testing Sluice never runs the generator.

import PackageDescription

let package = Package(
    name: "SluiceOpenAPITools",
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
    ],
    targets: []
)
