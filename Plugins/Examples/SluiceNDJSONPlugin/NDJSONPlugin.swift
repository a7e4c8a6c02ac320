import Foundation
import SluiceCore

/// An example serializer plugin, built as a shared library (`libSluiceNDJSONPlugin.so`) and loaded with
/// `SerializerRegistry.load(pluginAt:)`: newline-delimited JSON (`application/x-ndjson`) becomes an
/// array of the lines' values.
public struct NDJSONPlugin: SerializerPlugin {
    /// `ndjson`.
    public let name = "ndjson"
    /// `1.0.0`.
    public let version = "1.0.0"
    /// `application/x-ndjson` and `application/jsonl`.
    public let responseMediaTypes = [MediaType("application/x-ndjson")!, MediaType("application/jsonl")!]

    /// Creates the plugin.
    public init() {}

    /// The NDJSON serializer.
    public func makeResponseSerializer(for mediaType: MediaType) -> (any ResponseSerializer)? { NDJSONSerializer() }
}

/// Decodes each non-empty line as JSON into one array.
public struct NDJSONSerializer: ResponseSerializer {
    /// Creates the serializer.
    public init() {}

    /// The lines' values, in order; `nil` for an empty body.
    ///
    /// - Throws: ``SluiceError`` with code `ndjson.invalidLine` naming the first line that is not JSON.
    public func serialize(request: HTTPRequest?, response: HTTPResponse, body: Data?) throws(SluiceError) -> Parameters? {
        guard let body, !body.isEmpty else { return nil }
        var values: [Parameters] = []
        for (number, line) in body.split(separator: UInt8(ascii: "\n")).enumerated() {
            let trimmed = line.drop { $0 == 0x20 || $0 == 0x0D }
            guard !trimmed.isEmpty else { continue }
            do {
                values.append(try Parameters(json: Data(trimmed)))
            } catch {
                throw SluiceError("ndjson.invalidLine", "line \(number + 1) is not JSON", response: response, body: body)
            }
        }
        return .array(values)
    }
}

/// The plugin's entry point: the one line a plugin library needs.
@_cdecl("sluice_plugin_entry")
public func sluicePluginEntry() -> UnsafeRawPointer { PluginExport.table(for: NDJSONPlugin()) }
