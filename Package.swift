// swift-tools-version:6.0
//
// Sluice: an HTTP networking framework for Swift on Linux, built on libcurl.
// Every library module is its own product, so a client can depend on one module alone.

import PackageDescription

/// A library module under `Modules/` (folder name = module name).
func module(_ name: String, dependencies: [Target.Dependency] = []) -> Target {
    .target(name: name, dependencies: dependencies, path: "Modules/\(name)")
}

/// A serializer plugin under `Plugins/` (folder name = module name).
func plugin(_ name: String, dependencies: [Target.Dependency] = []) -> Target {
    .target(name: name, dependencies: ["SluiceCore"] + dependencies, path: "Plugins/\(name)")
}

/// A test target under `Tests/` (folder name = target name): the modules it tests, and the small test support
/// (where the servers are, fixtures, waiting, tiers).
func tests(_ name: String, dependencies: [Target.Dependency]) -> Target {
    .testTarget(name: name, dependencies: dependencies + ["SluiceTestSupport"], path: "Tests/\(name)")
}

let libraryModules = [
    "SluiceCore", "SluiceTransport", "SluiceRequestSerialization", "SluiceMultipart",
    "SluiceResponseSerialization", "SluiceSecurity", "SluiceReachability", "Sluice",
    "SluiceGzip", "SluiceBrotli", "SluiceZstd", "SluiceXML", "SluicePropertyList", "SluiceConformanceKit",
    "SluiceCache", "SluiceTesting", "SluiceHTTPTypes", "SluiceOpenAPI", "SluiceTracing", "SluiceMetrics",
    "SluiceCookies",
]

let package = Package(
    name: "Sluice",
    platforms: [.macOS(.v15)],
    products: libraryModules.map { .library(name: $0, targets: [$0]) } + [
        .executable(name: "sluice-conformance", targets: ["SluiceConformanceTool"]),
        // An example plugin built as a shared library, loaded at run time by tests and sluice-conformance.
        .library(name: "SluiceNDJSONPlugin", type: .dynamic, targets: ["SluiceNDJSONPlugin"]),
        // The C plugin ABI (sluice_plugin.h) for plugins written in C or another language, and an example.
        .library(name: "CSluicePluginABI", targets: ["CSluicePluginABI"]),
        .library(name: "SluiceCLinesPlugin", type: .dynamic, targets: ["SluiceCLinesPlugin"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // X.509 parsing and SHA-256 for SluiceSecurity's pins.
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        // The Swift server ecosystem's interfaces: SluiceHTTPTypes, SluiceOpenAPI, SluiceTracing, SluiceMetrics.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // System libraries: a module map plus typed inline wrappers for variadic and macro APIs.
        .systemLibrary(
            name: "CCurl", path: "Modules/CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev", "libssl-dev"])]),
        .systemLibrary(
            name: "CLibXML2", path: "Modules/CLibXML2", pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(
            name: "CZlib", path: "Modules/CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(
            name: "CBrotli", path: "Modules/CBrotli", pkgConfig: "libbrotlidec",
            providers: [.apt(["libbrotli-dev"])]),
        .systemLibrary(
            name: "CZstd", path: "Modules/CZstd", pkgConfig: "libzstd",
            providers: [.apt(["libzstd-dev"])]),
        .systemLibrary(
            name: "CSQLite", path: "Modules/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CPSL", path: "Modules/CPSL", pkgConfig: "libpsl", providers: [.apt(["libpsl-dev"])]),

        // The C table a loadable plugin exports (header only).
        .target(name: "CSluicePluginABI", path: "Modules/CSluicePluginABI"),
        module("SluiceCore", dependencies: [
            "CSluicePluginABI", .product(name: "OrderedCollections", package: "swift-collections"),
        ]),
        module("SluiceTransport", dependencies: ["SluiceCore", "CCurl"]),
        // The plugin contract for plugin authors' own test targets; its leak rule measures the C heap in a child
        // process (CSluiceHeap).
        .target(name: "CSluiceHeap", dependencies: ["CSluicePluginABI"], path: "Modules/CSluiceHeap"),
        module("SluiceConformanceKit", dependencies: ["SluiceCore", "CSluiceHeap", "CSluicePluginABI"]),
        module("SluiceRequestSerialization", dependencies: ["SluiceCore"]),
        module("SluiceMultipart", dependencies: ["SluiceCore", "SluiceRequestSerialization"]),
        module("SluiceResponseSerialization", dependencies: ["SluiceCore"]),
        module("SluiceSecurity", dependencies: [
            "SluiceCore", .product(name: "X509", package: "swift-certificates"),
            .product(name: "Crypto", package: "swift-crypto"), .product(name: "SwiftASN1", package: "swift-asn1"),
        ]),
        module("SluiceReachability", dependencies: ["SluiceCore"]),
        // The HTTP cache for the pipeline's cache slot: a user who does not want it does not link it.
        module("SluiceCache", dependencies: ["SluiceCore", "CSQLite"]),
        // Stubs for users' tests: a layer of the session's pipeline.
        module("SluiceTesting", dependencies: ["SluiceCore", "SluiceTransport"]),
        module("SluiceCookies", dependencies: ["SluiceCore", "CPSL"]),
        // The ecosystem's interfaces, each a product of its own that depends only on SluiceCore's seams.
        module("SluiceHTTPTypes", dependencies: ["SluiceCore", .product(name: "HTTPTypes", package: "swift-http-types")]),
        module("SluiceOpenAPI", dependencies: [
            "SluiceCore", "SluiceHTTPTypes", .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
        ]),
        module("SluiceTracing", dependencies: [
            "SluiceCore", .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "Instrumentation", package: "swift-distributed-tracing"),
        ]),
        module("SluiceMetrics", dependencies: ["SluiceCore", .product(name: "CoreMetrics", package: "swift-metrics")]),
        module("Sluice", dependencies: [
            "SluiceCore", "SluiceTransport", "SluiceRequestSerialization", "SluiceMultipart",
            "SluiceResponseSerialization", "SluiceSecurity", "SluiceReachability",
            "SluiceGzip", "SluiceBrotli", "SluiceZstd", "SluiceXML", "SluicePropertyList",
            .product(name: "Logging", package: "swift-log"),
        ]),

        plugin("SluiceGzip", dependencies: ["CZlib"]),
        plugin("SluiceBrotli", dependencies: ["CBrotli"]),
        plugin("SluiceZstd", dependencies: ["CZstd"]),
        plugin("SluiceXML", dependencies: ["CLibXML2", "SluiceResponseSerialization"]),
        plugin("SluicePropertyList", dependencies: ["SluiceResponseSerialization"]),
        .target(name: "SluiceNDJSONPlugin", dependencies: ["SluiceCore"], path: "Plugins/Examples/SluiceNDJSONPlugin"),
        // A plugin in C that includes <sluice_plugin.h> through the CSluicePluginABI product, as a C author's would.
        .target(name: "SluiceCLinesPlugin", dependencies: ["CSluicePluginABI"], path: "Plugins/Examples/SluiceCLinesPlugin"),

        // Where the test servers listen, the conformance vectors and the C plugin fixtures, shared by the
        // conformance tool and the tests: SluiceCore's values and nothing of the framework above it.
        .target(
            name: "SluiceTestEnvironment",
            dependencies: ["SluiceCore", .product(name: "OrderedCollections", package: "swift-collections")],
            path: "Tools/testenv/SluiceTestEnvironment"),
        // The conformance tool: suites live in a library so the test suite runs them too.
        .target(
            name: "SluiceConformance",
            dependencies: [
                "Sluice", "SluiceConformanceKit", "SluiceCache", "SluiceCookies", "CCurl", "SluiceTestEnvironment",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ],
            path: "Tools/Conformance/SluiceConformance"),
        .executableTarget(
            name: "SluiceConformanceTool",
            dependencies: [
                "SluiceConformance",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tools/Conformance/sluice-conformance"),

        // Shared test support: where the real servers are, the vectors, waiting for events, the test tiers.
        .target(
            name: "SluiceTestSupport", dependencies: ["SluiceCore", "SluiceTestEnvironment"],
            path: "Tests/SluiceTestSupport"),
        tests("SluiceCoreTests", dependencies: ["SluiceCore", "SluiceTransport", "SluiceConformanceKit"]),
        // SluiceConformance for AFNetworking's security-policy table (SecurityPolicyTable), which the tool reports
        // and the transport's trust tests run row by row, and for RawTCPServer.
        tests("SluiceTransportTests", dependencies: ["SluiceTransport", "SluiceGzip", "SluiceSecurity", "SluiceConformance"]),
        tests("SluiceRequestSerializationTests", dependencies: ["SluiceRequestSerialization"]),
        tests("SluiceCacheTests", dependencies: ["SluiceCache", "SluiceTransport", "SluiceGzip"]),
        // Writes into a disk cache store until killed, for SluiceCacheTests' crash and two-process tests.
        .executableTarget(name: "sluice-cache-writer", dependencies: ["SluiceCache"], path: "Tests/CacheWriterProbe"),
        // A user's target that declares two products only and imports nothing else: what their public API
        // uses must be usable through them (no SluiceCore, no OrderedCollections import).
        .testTarget(
            name: "SluiceSingleModuleUserTests", dependencies: ["SluiceMultipart", "SluiceRequestSerialization"],
            path: "Tests/SluiceSingleModuleUserTests"),
        tests("SluiceMultipartTests", dependencies: ["SluiceMultipart", "SluiceTransport"]),
        tests("SluiceResponseSerializationTests", dependencies: [
            "SluiceResponseSerialization", "SluiceTransport",
        ]),
        tests("SluiceReachabilityTests", dependencies: ["SluiceReachability", "SluiceConformanceKit"]),
        // Prints reachability changes seen inside a network namespace, for SluiceReachabilityTests.
        .executableTarget(
            name: "sluice-reachability-probe", dependencies: ["SluiceReachability"], path: "Tests/ReachabilityProbe"),
        tests("SluicePluginTests", dependencies: ["SluiceGzip", "SluiceXML", "SluicePropertyList"]),
        tests("SluiceGzipTests", dependencies: ["SluiceGzip", "SluiceConformanceKit", "SluiceTransport"]),
        tests("SluiceCompressionTests", dependencies: [
            "SluiceBrotli", "SluiceZstd", "SluiceConformanceKit", "SluiceTransport",
        ]),
        tests("SluicePropertyListTests", dependencies: ["SluicePropertyList", "SluiceTransport"]),
        tests("SluiceXMLTests", dependencies: ["Sluice", "SluiceXML"]),
        // Counts libxml2's allocations through its debug allocator while SluiceXML parses, for SluiceXMLTests.
        .executableTarget(
            name: "sluice-xml-leakcheck", dependencies: ["SluiceXML", "CLibXML2"], path: "Tests/XMLLeakCheck"),
        // Sends HTTPS requests and exits at once, for SluiceTransportTests (a clean exit while the engine
        // still closes its TLS connections).
        .executableTarget(
            name: "sluice-exit-probe", dependencies: ["SluiceTransport"], path: "Tests/ExitProbe"),
        tests("SluiceConformanceTests", dependencies: ["SluiceConformance", "CZlib"]),
        // The interoperability matrix against servers nobody on the team wrote (make interop, not part of
        // make test).
        .executableTarget(
            name: "sluice-interop", dependencies: ["SluiceTransport", "SluiceGzip", "SluiceBrotli", "SluiceZstd"],
            path: "Tools/Interop"),
        // Uploads a file as a multipart form and prints its peak memory, for SluiceMultipartTests.
        .executableTarget(
            name: "sluice-multipart-probe", dependencies: ["SluiceMultipart", "SluiceTransport", "CSluiceHeap"],
            path: "Tests/MultipartMemoryProbe"),
        // Uploads bytes from an async sequence and prints its memory growth, for make test's
        // check-async-upload-memory.sh.
        .executableTarget(
            name: "sluice-async-upload-probe",
            dependencies: ["SluiceTransport", "CSluiceHeap", .product(name: "Crypto", package: "swift-crypto")],
            path: "Tests/AsyncUploadProbe"),
        // A mixed workload through the fault proxy for make soak (not part of make test).
        .executableTarget(
            name: "sluice-soak", dependencies: ["SluiceTransport", "SluiceGzip", "SluiceConformance", "CSluiceHeap"], path: "Tools/Soak"),
        tests("SluiceConformanceKitTests", dependencies: ["SluiceConformanceKit", "SluiceGzip", "CSluiceHeap"]),
        tests("SluiceTests", dependencies: ["Sluice", "SluiceTesting", .product(name: "Logging", package: "swift-log")]),
        tests("SluiceTestingTests", dependencies: ["Sluice", "SluiceTesting", "SluiceCache"]),
        tests("SluiceCookiesTests", dependencies: ["SluiceCookies", "SluiceTransport"]),
        // A new user's first program, every call in one function: the compiler must build it (quickly),
        // and SluiceTests runs it against the test servers.
        .executableTarget(
            name: "sluice-first-hour", dependencies: ["Sluice", "SluiceXML", .product(name: "Logging", package: "swift-log")],
            path: "Tests/FirstHourProgram"),
        // Runs HTTPSessionManager calls with the default logger, for SluiceTests (nothing may reach stderr).
        .executableTarget(
            name: "sluice-logging-probe", dependencies: ["Sluice", .product(name: "Logging", package: "swift-log")],
            path: "Tests/LoggingProbe"),
        // Every Swift sample in README.md and docs/ lives here (or in the example plugin), so the build
        // compiles it; DocSamplesTests checks that the docs and these sources agree line for line.
        // Only what a user's target declares: `Logger` must come through `import Sluice`.
        tests("SluiceDocsTests", dependencies: [
            "Sluice", "SluiceConformanceKit", "SluiceCache", "SluiceTesting", "SluiceHTTPTypes", "SluiceTracing",
            "SluiceMetrics", "SluiceOpenAPI", "HTTPBinAPI", .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
        ]),
        tests("SluiceHTTPTypesTests", dependencies: [
            "SluiceHTTPTypes", "SluiceTransport", .product(name: "HTTPTypes", package: "swift-http-types"),
        ]),
        // A client generated from Tests/HTTPBinAPI/openapi.yaml (Tools/OpenAPI/generate.sh regenerates it).
        .target(
            name: "HTTPBinAPI", dependencies: [.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            path: "Tests/HTTPBinAPI", exclude: ["openapi.yaml", "openapi-generator-config.yaml"]),
        tests("SluiceOpenAPITests", dependencies: [
            "SluiceOpenAPI", "SluiceTransport", "SluiceGzip", "HTTPBinAPI", .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
        ]),
        tests("SluiceObservabilityTests", dependencies: [
            "SluiceTracing", "SluiceMetrics", "SluiceTransport", "SluiceTesting", "SluiceCache", "Sluice",
            .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "Instrumentation", package: "swift-distributed-tracing"),
            .product(name: "MetricsTestKit", package: "swift-metrics"),
            .product(name: "CoreMetrics", package: "swift-metrics"),
        ]),
        tests("SluiceSecurityTests", dependencies: [
            "SluiceSecurity", .product(name: "X509", package: "swift-certificates"),
            .product(name: "Crypto", package: "swift-crypto"), .product(name: "SwiftASN1", package: "swift-asn1"),
        ]),
    ]
)
