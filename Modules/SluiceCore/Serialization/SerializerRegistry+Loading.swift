import CSluicePluginABI
import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension SerializerRegistry {
    /// The most bytes a loaded plugin's `decode` may return for one body unless
    /// ``load(pluginAt:replacing:maximumOutputBytes:)`` says otherwise: 256 MiB.
    public static let defaultMaximumPluginOutputBytes = 256 << 20

    /// Loads a plugin from a shared library and registers it.
    ///
    /// The library is opened with `RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE` and never unloaded. Its
    /// `sluice_plugin_entry` function must return a table built for ``pluginABIVersion``.
    ///
    /// A loaded plugin is native code in this process, trusted as `sluice_plugin.h` describes: its
    /// function pointers are called as they are, and a buffer it returns is read for the length it
    /// claims. What it answers is checked on every call: a claimed output longer than
    /// `maximumOutputBytes` (or past `Int.max`), a length without a buffer, success without output and a
    /// failure (with or without a message) are ``SluiceError/Code/pluginFailed`` errors, and every buffer
    /// it returned is given back to its `free_buffer`.
    ///
    /// - Parameters:
    ///   - path: The `.so` file.
    ///   - replacing: Whether a plugin of the same name is replaced. Default `false`.
    ///   - maximumOutputBytes: The most bytes of JSON text the plugin's `decode` may return for one
    ///     body; a longer claim is refused before any of it is read. A negative value refuses every
    ///     output. Default ``defaultMaximumPluginOutputBytes`` (256 MiB).
    /// - Returns: What the plugin offers.
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/pluginLoadFailed`` (no file, not loadable),
    ///   ``SluiceError/Code/pluginMissingEntryPoint``, ``SluiceError/Code/pluginIncompatibleABI``,
    ///   ``SluiceError/Code/pluginInvalid`` (null functions, bad name, version or media type), or
    ///   ``SluiceError/Code/pluginDuplicate``. Nothing is registered then.
    @discardableResult
    public func load(
        pluginAt path: String, replacing: Bool = false, maximumOutputBytes: Int = SerializerRegistry.defaultMaximumPluginOutputBytes
    ) throws(SluiceError) -> PluginSummary {
        guard FileManager.default.fileExists(atPath: path) else {
            throw SluiceError(.pluginLoadFailed, "no plugin library at \(path)")
        }
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown reason"
            throw SluiceError(.pluginLoadFailed, "cannot load \(path): \(reason)")
        }
        guard let symbol = dlsym(handle, SLUICE_PLUGIN_ENTRY_SYMBOL) else {
            throw SluiceError(.pluginMissingEntryPoint, "\(path) exports no \(SLUICE_PLUGIN_ENTRY_SYMBOL)")
        }
        let entry = unsafeBitCast(symbol, to: sluice_plugin_entry_function.self)
        guard let table = entry() else {
            throw SluiceError(.pluginMissingEntryPoint, "\(path): \(SLUICE_PLUGIN_ENTRY_SYMBOL) returned no table")
        }
        return try register(pluginTable: UnsafeRawPointer(table), path: path, replacing: replacing, maximumOutputBytes: maximumOutputBytes)
    }

    /// Checks and registers a plugin table as ``load(pluginAt:replacing:maximumOutputBytes:)`` does once it
    /// has the table from the library's entry point: the same checks, the same wrapper. For the fuzz
    /// targets of `Tools/Fuzz`, which build tables in memory; not for general use.
    ///
    /// - Parameters:
    ///   - table: A `sluice_plugin_table`, alive and unchanged for the rest of the process.
    ///   - path: Where the table came from, for messages.
    /// - Throws: As ``load(pluginAt:replacing:maximumOutputBytes:)``, from the ABI check on.
    @_spi(Fuzzing) @discardableResult
    public func register(
        pluginTable table: UnsafeRawPointer, path: String, replacing: Bool = false,
        maximumOutputBytes: Int = SerializerRegistry.defaultMaximumPluginOutputBytes
    ) throws(SluiceError) -> PluginSummary {
        let plugin = try Self.wrap(table.assumingMemoryBound(to: sluice_plugin_table.self), path: path, maximumOutputBytes: maximumOutputBytes)
        try register(plugin, replacing: replacing)
        return PluginSummary(
            name: plugin.name, version: plugin.version, responseMediaTypes: plugin.responseMediaTypes.map(\.description),
            contentCodings: [], providesRequestSerializer: false)
    }

    /// The plugin ABI version this build of Sluice loads.
    public static var pluginABIVersion: UInt32 { SLUICE_PLUGIN_ABI_VERSION }

    private static func wrap(
        _ table: UnsafePointer<sluice_plugin_table>, path: String, maximumOutputBytes: Int
    ) throws(SluiceError) -> LoadedPlugin {
        let contents = table.pointee
        guard contents.abi_version == SLUICE_PLUGIN_ABI_VERSION else {
            throw SluiceError(
                .pluginIncompatibleABI,
                "\(path) was built for plugin ABI \(contents.abi_version); this Sluice loads \(SLUICE_PLUGIN_ABI_VERSION)")
        }
        guard let name = contents.name, let version = contents.version, contents.decode != nil,
            contents.free_buffer != nil, contents.media_type_count == 0 || contents.media_types != nil
        else {
            throw SluiceError(.pluginInvalid, "\(path): the plugin table has a null name, version or function")
        }
        // size_t arrives as Int: a count of 2^63 or more is negative here, and no array has that many entries.
        guard contents.media_type_count >= 0 else {
            throw SluiceError(
                .pluginInvalid, "\(path): the plugin table claims \(UInt(bitPattern: contents.media_type_count)) media types")
        }
        var types: [MediaType] = []
        for index in 0..<contents.media_type_count {
            guard let text = contents.media_types[index], let type = MediaType(String(cString: text)) else {
                throw SluiceError(.pluginInvalid, "\(path): media type \(index) is missing or malformed")
            }
            types.append(type)
        }
        return LoadedPlugin(
            table: LoadedPlugin.Table(pointer: table), name: String(cString: name), version: String(cString: version), responseMediaTypes: types,
            path: path, maximumOutputBytes: maximumOutputBytes)
    }
}
