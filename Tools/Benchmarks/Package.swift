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
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // The OpenAPI transports of the peers, for the generated client over each (openapi.sh).
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
    ],
    targets: [
        // One client run of the transport scenarios, for Sluice, URLSession and async-http-client;
        // Tools/Benchmarks/transport.sh runs every client and the C libcurl program and compares them.
        .executableTarget(
            name: "transport-client",
            dependencies: [
                "CCurlBench",
                .product(name: "SluiceTransport", package: "Sluice"),
                .product(name: "SluiceTracing", package: "Sluice"), .product(name: "SluiceMetrics", package: "Sluice"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Transport"
        ),
        // GETs of one cacheable URL: Sluice without a cache, with a memory or a disk cache, and URLSession with
        // a URLCache; Tools/Benchmarks/cache.sh compares them and counts what reached nginx.
        .executableTarget(
            name: "cache-client",
            dependencies: [
                .product(name: "SluiceTransport", package: "Sluice"), .product(name: "SluiceCache", package: "Sluice"),
            ],
            path: "Cache"
        ),
        // The client generated from Tests/HTTPBinAPI/openapi.yaml (HTTPBinAPI links to that folder).
        .target(
            name: "HTTPBinAPI", dependencies: [.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            path: "HTTPBinAPI", exclude: ["openapi.yaml", "openapi-generator-config.yaml"]),
        // That client over SluiceClientTransport, swift-openapi-async-http-client and swift-openapi-urlsession;
        // Tools/Benchmarks/openapi.sh runs them in one run and compares them.
        .executableTarget(
            name: "openapi-client",
            dependencies: [
                "HTTPBinAPI",
                .product(name: "SluiceOpenAPI", package: "Sluice"), .product(name: "SluiceTransport", package: "Sluice"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "OpenAPIClient"
        ),
        // libcurl for the transport client's minimal Swift engine (MinimalCurlEngine).
        .systemLibrary(name: "CCurlBench", path: "CCurlBench", pkgConfig: "libcurl"),
        // Sluice's gzip, brotli and zstd decoders on a 1 GiB body; Tools/Benchmarks/compression.sh compares
        // them with gzip -dc, brotli -dc and zstd -dc.
        .executableTarget(
            name: "content-inflate",
            dependencies: [
                .product(name: "SluiceGzip", package: "Sluice"), .product(name: "SluiceBrotli", package: "Sluice"),
                .product(name: "SluiceZstd", package: "Sluice"),
            ],
            path: "ContentInflate"
        ),
        // A file uploaded as a multipart form; Tools/Benchmarks/multipart.sh compares it with curl -F.
        .executableTarget(
            name: "multipart-upload",
            dependencies: [
                .product(name: "SluiceMultipart", package: "Sluice"),
                .product(name: "SluiceTransport", package: "Sluice"),
            ],
            path: "MultipartUpload"
        ),
        // SluiceXML's event parser and tree against FoundationXML's XMLParser on one large document;
        // Tools/Benchmarks/xml.sh runs it.
        .executableTarget(
            name: "xml-parse",
            dependencies: [.product(name: "SluiceXML", package: "Sluice")],
            path: "XMLParse"
        ),
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
