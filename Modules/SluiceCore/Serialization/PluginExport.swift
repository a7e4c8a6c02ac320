import CSluicePluginABI
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Exports a Swift ``SerializerPlugin`` through the plugin C table, so it can be built as a shared
/// library and loaded with ``SerializerRegistry/load(pluginAt:replacing:maximumOutputBytes:)``.
///
/// One line in the plugin library:
///
/// ```swift
/// @_cdecl("sluice_plugin_entry")
/// public func sluicePluginEntry() -> UnsafeRawPointer { PluginExport.table(for: CSVSerializerPlugin()) }
/// ```
///
/// The table's `decode` asks the plugin for a serializer for the body's media type and returns its
/// output as JSON text: ``Parameters`` and other `Encodable` outputs are encoded with `JSONEncoder`.
public enum PluginExport {
    /// A table pointer: written once, immutable, alive for the process.
    private struct TablePointer: @unchecked Sendable {
        let pointer: UnsafeRawPointer
    }

    private static let exported = Locked<(plugin: any SerializerPlugin, table: TablePointer)?>(nil)

    /// The C table for `plugin`, made once per library; later calls return the first table.
    public static func table(for plugin: any SerializerPlugin) -> UnsafeRawPointer {
        exported.withLock { state in
            if let state { return state.table.pointer }
            // Strings and the table live as long as the process, like the library.
            let types: [UnsafePointer<CChar>?] = plugin.responseMediaTypes.map { UnsafePointer(strdup($0.description)) }
            let typeArray = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: max(types.count, 1))
            typeArray.initialize(from: types, count: types.count)
            let table = UnsafeMutablePointer<sluice_plugin_table>.allocate(capacity: 1)
            table.initialize(to: sluice_plugin_table(
                abi_version: SLUICE_PLUGIN_ABI_VERSION, name: UnsafePointer(strdup(plugin.name)),
                version: UnsafePointer(strdup(plugin.version)), media_types: UnsafePointer(typeArray),
                media_type_count: types.count, decode: exportedDecode, encode: nil, free_buffer: exportedFree))
            let pointer = UnsafeRawPointer(table)
            state = (plugin, TablePointer(pointer: pointer))
            return pointer
        }
    }

    /// Runs the exported plugin's serializer on a body; JSON text or an error message.
    /// Why an exported plugin could not decode a body.
    fileprivate struct Failure: Error {
        let message: String
    }

    fileprivate static func decode(_ body: Data, mediaType text: String) -> Result<Data, Failure> {
        guard let plugin = exported.withLock({ $0?.plugin }) else { return .failure(Failure(message: "no plugin exported")) }
        guard let mediaType = MediaType(text), let serializer = plugin.makeResponseSerializer(for: mediaType) else {
            return .failure(Failure(message: "\(plugin.name) does not decode \(text)"))
        }
        var headers = HTTPHeaders()
        try? headers.set(name: "Content-Type", value: mediaType.description)
        do {
            let value = try serializer.serialize(request: nil, response: HTTPResponse(statusCode: 200, headers: headers), body: body)
            guard let encodable = value as? any Encodable else {
                return .failure(Failure(message: "\(plugin.name) produced \(type(of: value)), which is not Encodable"))
            }
            return .success(try JSONEncoder().encode(encodable))
        } catch {
            return .failure(Failure(message: "\(error)"))
        }
    }
}

private func copyToMalloc(_ data: Data) -> UnsafeMutablePointer<UInt8> {
    let buffer = malloc(max(data.count, 1))!.assumingMemoryBound(to: UInt8.self)
    data.copyBytes(to: buffer, count: data.count)
    return buffer
}

private let exportedDecode: @convention(c) (
    UnsafePointer<UInt8>?, Int, UnsafePointer<CChar>?, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
    UnsafeMutablePointer<Int>?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 = { input, length, mediaType, output, outputLength, message in
    let body = input.map { Data(bytes: $0, count: length) } ?? Data()
    switch PluginExport.decode(body, mediaType: mediaType.map { String(cString: $0) } ?? "") {
    case .success(let json):
        output?.pointee = copyToMalloc(json)
        outputLength?.pointee = json.count
        return SLUICE_PLUGIN_OK
    case .failure(let failure):
        message?.pointee = strdup(failure.message)
        return SLUICE_PLUGIN_ERROR
    }
}

private let exportedFree: @convention(c) (UnsafeMutableRawPointer?) -> Void = { free($0) }
