// swift-tools-version:6.0
//
// libFuzzer targets for Sluice's parsers of untrusted bytes. A separate package, so that sanitizer and
// fuzzer flags never touch the main build; `run.sh` builds it with `--sanitize=fuzzer --sanitize=address`
// and runs each target. Its build folder is Tools/Fuzz/.build. Each target's seed corpus is
// Corpus/<name without "Fuzz">; what each drives and what counts as a failure is the doc comment of its
// LLVMFuzzerTestOneInput.

import PackageDescription

/// A fuzz target in the folder of its name.
func fuzzTarget(_ name: String, _ products: [String], local: [Target.Dependency] = []) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["FuzzSupport"] + local + products.map { .product(name: $0, package: "Sluice") },
        path: name)
}

let package = Package(
    name: "SluiceFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Sluice", path: "../.."),
    ],
    targets: [
        // Reads a fuzz input as choices and byte strings; the trap for a broken property.
        .target(name: "FuzzSupport", path: "FuzzSupport"),

        // Media types (Content-Type values) and header field checks.
        fuzzTarget("FuzzMediaType", ["SluiceCore"]),
        // SluiceCache's readings of caching header fields (HTTP dates, Age, Cache-Control, Vary), with properties.
        fuzzTarget("FuzzCacheHeaders", ["SluiceCache", "SluiceCore"]),
        // Set-Cookie fields, cookie dates, and what a cookie store sends (SluiceCookies).
        fuzzTarget("FuzzSetCookie", ["SluiceCookies", "SluiceCore"]),
        // The event-stream parser and the line splitter (server-sent events, lines, JSON Lines), with properties.
        fuzzTarget("FuzzEventStream", ["SluiceCore"]),
        // The transport's response-head parser, fed lines as libcurl's header callback is.
        fuzzTarget("FuzzResponseHead", ["SluiceTransport", "SluiceCore"]),
        // The query-string writer and the form encoder, with round-trip properties.
        fuzzTarget("FuzzQueryString", ["SluiceRequestSerialization", "SluiceCore"]),
        // JSON response bodies, with and without null removal.
        fuzzTarget("FuzzJSONResponse", ["SluiceResponseSerialization", "SluiceCore"]),
        // Decodable through the registry (JSON, XML, property lists, images, text).
        fuzzTarget("FuzzDecodable", ["SluiceResponseSerialization", "SluiceXML", "SluicePropertyList", "SluiceCore"]),
        // The XML tree parser and both event parsers, with their limits.
        fuzzTarget("FuzzXML", ["SluiceXML", "SluiceCore"]),
        // Response bodies served as application/x-plist, through PropertyListResponseSerializer's
        // Parameters and Decodable paths.
        fuzzTarget("FuzzPropertyList", ["SluicePropertyList", "SluiceCore"]),
        // The image header reader (formats and pixel sizes).
        fuzzTarget("FuzzImage", ["SluiceResponseSerialization", "SluiceCore"]),
        // What every content-coding target checks (fuzzContentCoding).
        .target(
            name: "FuzzCodingSupport", dependencies: ["FuzzSupport", .product(name: "SluiceCore", package: "Sluice")],
            path: "FuzzCodingSupport"),
        // gzip and deflate decoding with output limits.
        fuzzTarget("FuzzGzip", ["SluiceGzip"], local: ["FuzzCodingSupport"]),
        // brotli and Zstandard decoding with output limits (zstd: with its window limit).
        fuzzTarget("FuzzBrotli", ["SluiceBrotli"], local: ["FuzzCodingSupport"]),
        fuzzTarget("FuzzZstd", ["SluiceZstd"], local: ["FuzzCodingSupport"]),
        // Multipart forms from hostile names, file names, header fields and bodies.
        fuzzTarget("FuzzMultipart", ["SluiceMultipart", "SluiceCore"]),
        // The rtnetlink datagram parser of reachability.
        fuzzTarget("FuzzNetlink", ["SluiceReachability"]),
        // The loaded-plugin wrapper fed hostile C tables and answers, and the C example plugin.
        fuzzTarget("FuzzPluginABI", ["SluiceCore", "CSluicePluginABI", "SluiceCLinesPlugin"]),
        // Newline-delimited JSON through the example plugin, directly and through its C table.
        fuzzTarget("FuzzNDJSON", ["SluiceNDJSONPlugin", "SluiceCore"]),
    ]
)
