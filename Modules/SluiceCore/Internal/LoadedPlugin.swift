import CSluicePluginABI
import Foundation

/// A plugin from a shared library, seen through its C table.
struct LoadedPlugin: SerializerPlugin {
    /// A plugin's table: immutable, in a library that is never unloaded, so it can be read from any thread.
    struct Table: @unchecked Sendable {
        let pointer: UnsafePointer<sluice_plugin_table>
        var pointee: sluice_plugin_table { pointer.pointee }
    }

    let table: Table
    let name: String
    let version: String
    let responseMediaTypes: [MediaType]
    let path: String

    func makeResponseSerializer(for mediaType: MediaType) -> (any ResponseSerializer)? {
        LoadedPluginSerializer(plugin: self, mediaType: mediaType)
    }
}

/// Decodes through a loaded plugin's `decode`: body in, JSON text out, then ``Parameters``.
struct LoadedPluginSerializer: ResponseSerializer {
    let plugin: LoadedPlugin
    let mediaType: MediaType

    var acceptableMediaTypes: [MediaType]? { plugin.responseMediaTypes }

    func serialize(request: HTTPRequest?, response: HTTPResponse, body: Data?) throws(SluiceError) -> Parameters? {
        guard let body, !body.isEmpty else { return nil }
        let table = plugin.table.pointee
        var output: UnsafeMutablePointer<UInt8>?
        var outputLength = 0
        var message: UnsafeMutablePointer<CChar>?
        let status = body.withUnsafeBytes { bytes in
            table.decode(
                bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, mediaType.essence, &output,
                &outputLength, &message)
        }
        defer {
            if let output { table.free_buffer(output) }
            if let message { table.free_buffer(message) }
        }
        guard status == SLUICE_PLUGIN_OK, let output else {
            let text = message.map { String(cString: $0) } ?? "no message"
            throw SluiceError(
                .pluginFailed, "plugin \(plugin.name) could not decode \(mediaType.essence): \(text)", request: request,
                response: response, body: body,
                library: LibraryDiagnostic(library: plugin.name, code: Int(status), message: text))
        }
        let json = Data(bytes: output, count: outputLength)
        do {
            return try JSONDecoder().decode(Parameters.self, from: json)
        } catch {
            throw SluiceError(
                .pluginFailed, "plugin \(plugin.name) returned invalid JSON", request: request, response: response,
                body: body, underlying: ForeignError(error))
        }
    }
}
