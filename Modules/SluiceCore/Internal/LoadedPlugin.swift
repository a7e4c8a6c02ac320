import CSluicePluginABI
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A plugin from a shared library, seen through its C table.
///
/// What the plugin is trusted with and what is checked is spelled out in `sluice_plugin.h`: its
/// function pointers, strings and buffers are trusted to be what they claim up to the limits below;
/// its status, the presence of its buffers and the lengths it claims are checked on every call.
struct LoadedPlugin: SerializerPlugin {
    /// A plugin's table: immutable, in a library that is never unloaded, so it can be read from any thread.
    struct Table: @unchecked Sendable {
        let pointer: UnsafePointer<sluice_plugin_table>
        var pointee: sluice_plugin_table { pointer.pointee }
    }

    /// Why a call into the plugin gave no output.
    struct CallFailure: Error {
        /// The plugin's message, or what was wrong with its answer.
        let message: String
        /// The status the plugin returned.
        let status: Int32
        /// Whether the plugin reported the failure itself (`false`: its answer broke the ABI's contract).
        let reportedByPlugin: Bool
    }

    /// The most bytes of a plugin's error message that are read: a message with no NUL before then is cut.
    static let maximumMessageBytes = 4096

    let table: Table
    let name: String
    let version: String
    let responseMediaTypes: [MediaType]
    let path: String
    /// The most bytes one `decode` may claim to return; a longer claim is refused before anything is read.
    var maximumOutputBytes = SerializerRegistry.defaultMaximumPluginOutputBytes

    func makeResponseSerializer(for mediaType: MediaType) -> (any ResponseSerializer)? {
        LoadedPluginSerializer(plugin: self, mediaType: mediaType)
    }

    /// Calls the plugin's `decode` on `body` and copies its output out; whatever buffers it returned,
    /// on every path, go back through its `free_buffer` (a buffer returned as both output and message once).
    func decode(_ body: Data, mediaType: String) -> Result<Data, CallFailure> {
        let table = self.table.pointee
        var output: UnsafeMutablePointer<UInt8>?
        var outputLength = 0
        var message: UnsafeMutablePointer<CChar>?
        let status = body.withUnsafeBytes { bytes in
            mediaType.withCString { type in
                table.decode(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, type, &output, &outputLength, &message)
            }
        }
        defer {
            if let output { table.free_buffer(output) }
            if let message, UnsafeMutableRawPointer(message) != output.map(UnsafeMutableRawPointer.init) {
                table.free_buffer(message)
            }
        }
        guard status == SLUICE_PLUGIN_OK else {
            let text = message.map { Self.string(fromMessage: $0) } ?? LibraryDiagnostic.noPluginMessage
            return .failure(CallFailure(message: text, status: status, reportedByPlugin: true))
        }
        // size_t arrives as Int: a claim past Int.max is negative here, and past the limit either way.
        let claimed = UInt(bitPattern: outputLength)
        guard claimed <= UInt(max(maximumOutputBytes, 0)) else {
            return .failure(CallFailure(
                message: "it claimed \(claimed) bytes of output, over its limit of \(maximumOutputBytes) bytes",
                status: status, reportedByPlugin: false))
        }
        guard let output else {
            let problem = claimed == 0 ? "it reported success with no output" : "it claimed \(claimed) bytes of output in no buffer"
            return .failure(CallFailure(message: problem, status: status, reportedByPlugin: false))
        }
        return .success(Data(bytes: output, count: outputLength))
    }

    /// A plugin's NUL-terminated message, read up to ``maximumMessageBytes``; invalid UTF-8 is repaired.
    private static func string(fromMessage message: UnsafePointer<CChar>) -> String {
        let length = strnlen(message, maximumMessageBytes)
        return message.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }
}

/// Decodes through a loaded plugin's `decode`: body in, JSON text out, then ``Parameters``.
struct LoadedPluginSerializer: ResponseSerializer {
    let plugin: LoadedPlugin
    let mediaType: MediaType

    var acceptableMediaTypes: [MediaType]? { plugin.responseMediaTypes }

    func serialize(request: HTTPRequest?, response: HTTPResponse, body: Data?) throws(SluiceError) -> Parameters? {
        guard var body, !body.isEmpty else { return nil }
        // The C table gets the media type's essence, not its parameters: a body that declares a charset
        // reaches the plugin as UTF-8 (an unknown charset, or bytes not valid in it, are refused here).
        if let charset = response.textEncodingName, !["utf-8", "utf8", "us-ascii", "ascii"].contains(charset.lowercased()) {
            body = Data(try response.text(of: body).utf8)
        }
        let json: Data
        switch plugin.decode(body, mediaType: mediaType.essence) {
        case .success(let output):
            json = output
        case .failure(let failure) where failure.reportedByPlugin:
            throw SluiceError(
                .pluginFailed, "plugin \(plugin.name) could not decode \(mediaType.essence): \(failure.message)",
                request: request, response: response, body: body,
                library: LibraryDiagnostic(library: plugin.name, code: Int(failure.status), message: failure.message))
        case .failure(let failure):
            throw SluiceError(
                .pluginFailed, "plugin \(plugin.name) broke the plugin ABI decoding \(mediaType.essence): \(failure.message)",
                request: request, response: response, body: body)
        }
        do {
            return try Parameters(json: json)
        } catch {
            throw SluiceError(
                .pluginFailed, "plugin \(plugin.name) returned invalid JSON", request: request, response: response,
                body: body, underlying: ForeignError(error))
        }
    }
}
