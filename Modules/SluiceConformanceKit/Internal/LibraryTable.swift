import CSluiceHeap
import CSluicePluginABI
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A loaded plugin library's C table, called directly (not through the registry's wrapper) for the
/// leak rule, in a child process where nothing but the plugin's own work touches the heap.
struct LibraryTable: @unchecked Sendable {
    /// What the leak probe found.
    enum Measurement {
        /// The median growth of the heap over five trials, in bytes.
        case growth(Int)
        /// The heap cannot be measured here.
        case unavailable
        /// The child died of a signal while calling the plugin.
        case crashed(signal: Int32)
        /// The child did not answer in time.
        case timedOut
    }

    /// The leak rule's detail where it cannot be checked: the process's malloc is not glibc's (a sanitizer
    /// replaces it) or the C library does not report its heap.
    static let uncheckedLeakDetail = "not checked: this process's malloc is not one whose heap can be read (glibc's without a sanitizer)"

    /// The table, in a library that is never unloaded.
    private let table: UnsafePointer<sluice_plugin_table>

    /// The table of the library at `path`, opened as the registry opens it (the same handle when the
    /// registry loaded it already), or `nil` when it has no usable table.
    init?(path: String) {
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE),
            let symbol = dlsym(handle, SLUICE_PLUGIN_ENTRY_SYMBOL),
            let table = unsafeBitCast(symbol, to: sluice_plugin_entry_function.self)(),
            table.pointee.decode != nil, table.pointee.free_buffer != nil
        else { return nil }
        self.table = table
    }

    /// Decodes every body `calls` times per trial in a forked child and measures what the heap keeps.
    func measureGrowth(of bodies: [(Data, String)], calls: Int, timeout: Double) -> Measurement {
        // The bytes and media types live in one buffer the child inherits.
        let texts = bodies.map { Array($0.1.utf8CString) }
        let total = bodies.reduce(0) { $0 + $1.0.count } + texts.reduce(0) { $0 + $1.count }
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(total, 1), alignment: 8)
        defer { storage.deallocate() }
        var inputs: [sluice_probe_input] = []
        var offset = 0
        for (index, (body, _)) in bodies.enumerated() {
            let bodyStart = storage.baseAddress! + offset
            body.copyBytes(to: storage.baseAddress!.advanced(by: offset).assumingMemoryBound(to: UInt8.self), count: body.count)
            offset += body.count
            let typeStart = storage.baseAddress! + offset
            texts[index].withUnsafeBytes { typeStart.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            offset += texts[index].count
            inputs.append(sluice_probe_input(
                bytes: bodyStart.assumingMemoryBound(to: UInt8.self), length: body.count,
                media_type: typeStart.assumingMemoryBound(to: CChar.self)))
        }
        var growth: Int64 = 0
        var signal: Int32 = 0
        let milliseconds = Int32(clamping: Int(timeout * 1000))
        let status = inputs.withUnsafeBufferPointer {
            sluice_leak_probe(UnsafeRawPointer(table), $0.baseAddress, $0.count, calls, milliseconds, &growth, &signal)
        }
        switch status {
        case SLUICE_PROBE_MEASURED: return .growth(Int(growth))
        case SLUICE_PROBE_CRASHED: return .crashed(signal: signal)
        case SLUICE_PROBE_TIMED_OUT: return .timedOut
        default: return .unavailable
        }
    }
}
