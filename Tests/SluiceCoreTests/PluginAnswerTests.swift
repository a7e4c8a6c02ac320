import CSluicePluginABI
import Foundation
@testable import SluiceCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The buffers the hostile plugins below handed out and have not had back through their `free_buffer`,
/// and how many frees were of a buffer not outstanding (freed twice, or never handed out).
private let ledger = Locked<(outstanding: Set<UInt>, strayFrees: Int)>((outstanding: [], strayFrees: 0))

/// A `malloc`ed buffer holding `bytes`, recorded in the ledger.
private func handOut(_ bytes: [UInt8]) -> UnsafeMutablePointer<UInt8> {
    let buffer = malloc(max(bytes.count, 1))!.assumingMemoryBound(to: UInt8.self)
    buffer.initialize(from: bytes, count: bytes.count)
    ledger.withLock { _ = $0.outstanding.insert(UInt(bitPattern: buffer)) }
    return buffer
}

private typealias Decode = @convention(c) (
    UnsafePointer<UInt8>?, Int, UnsafePointer<CChar>?, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
    UnsafeMutablePointer<Int>?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32

private let ledgerFree: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
    guard let pointer else { return }
    ledger.withLock {
        if $0.outstanding.remove(UInt(bitPattern: pointer)) == nil { $0.strayFrees += 1 }
    }
    free(pointer)
}

/// Each hostile answer, chosen by the body's first byte (a C function cannot capture).
private let hostileDecode: Decode = { input, length, _, output, outputLength, message in
    let mode = length > 0 ? input![0] : 0
    switch mode {
    case UInt8(ascii: "H"):  // 2 bytes, claiming 2^40
        output!.pointee = handOut(Array("{}".utf8))
        outputLength!.pointee = 1 << 40
        return SLUICE_PLUGIN_OK
    case UInt8(ascii: "N"):  // no buffer, but a length
        output!.pointee = nil
        outputLength!.pointee = 5
        return SLUICE_PLUGIN_OK
    case UInt8(ascii: "Z"):  // success with no buffer at all
        output!.pointee = nil
        outputLength!.pointee = 0
        return SLUICE_PLUGIN_OK
    case UInt8(ascii: "M"):  // SIZE_MAX: -1 as a Swift Int
        output!.pointee = handOut(Array("{}".utf8))
        outputLength!.pointee = -1
        return SLUICE_PLUGIN_OK
    case UInt8(ascii: "S"):  // 2^63: the first size_t that is negative as a Swift Int
        output!.pointee = handOut(Array("{}".utf8))
        outputLength!.pointee = Int.min
        return SLUICE_PLUGIN_OK
    case UInt8(ascii: "E"):  // failure without a message, leaving a buffer behind
        output!.pointee = handOut(Array("junk".utf8))
        outputLength!.pointee = 4
        message!.pointee = nil
        return SLUICE_PLUGIN_ERROR
    case UInt8(ascii: "L"):  // a message with no NUL within 4096 bytes
        message!.pointee = UnsafeMutableRawPointer(handOut([UInt8](repeating: UInt8(ascii: "x"), count: 4096)))
            .assumingMemoryBound(to: CChar.self)
        return SLUICE_PLUGIN_ERROR
    case UInt8(ascii: "D"):  // the same buffer as output and as message
        let buffer = handOut(Array("oops\0".utf8))
        output!.pointee = buffer
        outputLength!.pointee = 4
        message!.pointee = UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: CChar.self)
        return SLUICE_PLUGIN_ERROR
    case UInt8(ascii: "7"):  // a status that is neither OK nor ERROR, with a message
        message!.pointee = UnsafeMutableRawPointer(handOut(Array("seven\0".utf8))).assumingMemoryBound(to: CChar.self)
        return 7
    default:  // the body's bytes after the first, as the JSON output
        let json = Array(UnsafeBufferPointer(start: input, count: length).dropFirst())
        output!.pointee = handOut(json)
        outputLength!.pointee = json.count
        return SLUICE_PLUGIN_OK
    }
}

/// Loaded plugins that answer outside the ABI's contract, built as C function tables in Swift (no
/// dlopen): each answer is a typed error, never a crash, and every buffer goes back through the
/// plugin's `free_buffer` exactly once.
@Suite("A loaded plugin's answers are checked", .serialized)
struct PluginAnswerTests {
    /// A table with the hostile functions; it and its strings live as long as the process, as a
    /// library's would.
    static let table: LoadedPlugin.Table = {
        let types = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: 1)
        types.initialize(to: UnsafePointer(strdup("text/x-hostile")))
        let table = UnsafeMutablePointer<sluice_plugin_table>.allocate(capacity: 1)
        table.initialize(to: sluice_plugin_table(
            abi_version: SLUICE_PLUGIN_ABI_VERSION, name: UnsafePointer(strdup("hostile")),
            version: UnsafePointer(strdup("1.0.0")), media_types: UnsafePointer(types), media_type_count: 1,
            decode: hostileDecode, encode: nil, free_buffer: ledgerFree))
        return LoadedPlugin.Table(pointer: UnsafePointer(table))
    }()

    private func plugin(maximumOutputBytes: Int = SerializerRegistry.defaultMaximumPluginOutputBytes) -> LoadedPlugin {
        LoadedPlugin(
            table: Self.table, name: "hostile", version: "1.0.0",
            responseMediaTypes: [MediaType("text/x-hostile")!], path: "(built in the test)", maximumOutputBytes: maximumOutputBytes)
    }

    private func decode(_ body: String, limit: Int = SerializerRegistry.defaultMaximumPluginOutputBytes) throws(SluiceError) -> Parameters? {
        let registry = SerializerRegistry()
        try registry.register(plugin(maximumOutputBytes: limit))
        let serializer = registry.responseSerializer(for: MediaType("text/x-hostile")!)!
        return try serializer.serialize(request: nil, response: HTTPResponse(statusCode: 200), body: Data(body.utf8)) as? Parameters
    }

    /// Runs `body` and checks every buffer handed out during it was freed exactly once.
    private func expectAllFreed(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) rethrows {
        ledger.withLock { $0 = (outstanding: [], strayFrees: 0) }
        try body()
        let (outstanding, strayFrees) = ledger.withLock { ($0.outstanding, $0.strayFrees) }
        #expect(outstanding.isEmpty, "buffers never freed: \(outstanding.count)", sourceLocation: sourceLocation)
        #expect(strayFrees == 0, "buffers freed twice", sourceLocation: sourceLocation)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let body: String
        let label: String
        let fragment: String
        var testDescription: String { label }
    }

    static let broken: [Case] = [
        Case(body: "H", label: "2 bytes claimed as 2^40", fragment: "1099511627776"),
        Case(body: "N", label: "a length without a buffer", fragment: "no buffer"),
        Case(body: "Z", label: "success without output", fragment: "no output"),
        Case(body: "M", label: "length SIZE_MAX", fragment: "18446744073709551615"),
        Case(body: "S", label: "length 2^63", fragment: "9223372036854775808"),
    ]

    @Test("an answer that breaks the contract is registry.pluginFailed, and its buffer is freed", arguments: broken)
    func brokenAnswers(case: Case) {
        expectAllFreed {
            let error = #expect(throws: SluiceError.self) { try decode(`case`.body) }
            #expect(error?.code == .pluginFailed)
            #expect(error?.message.contains("hostile") == true)
            #expect(error?.message.contains(`case`.fragment) == true, "\(error?.message ?? "")")
            #expect(error?.body == Data(`case`.body.utf8))
        }
    }

    @Test("output up to the limit is read; one byte more is refused")
    func limit() throws {
        try expectAllFreed {
            // `"ab"` is 4 bytes of JSON.
            let atLimit = try decode("=\"ab\"", limit: 4)
            #expect(atLimit == "ab")
            let error = #expect(throws: SluiceError.self) { try decode("=\"abc\"", limit: 4) }
            #expect(error?.code == .pluginFailed)
            #expect(error?.message.contains("limit of 4 bytes") == true, "\(error?.message ?? "")")
        }
        #expect(SerializerRegistry.defaultMaximumPluginOutputBytes == 256 << 20)
    }

    @Test("a failure without a message is typed, and the buffer it left is freed")
    func failureWithoutMessage() {
        expectAllFreed {
            let error = #expect(throws: SluiceError.self) { try decode("E") }
            #expect(error?.code == .pluginFailed)
            #expect(error?.library?.library == "hostile")
            #expect(error?.library?.code == Int(SLUICE_PLUGIN_ERROR))
            #expect(error?.library?.message == "no message")
        }
    }

    @Test("a message is read up to 4096 bytes at most")
    func longMessage() {
        expectAllFreed {
            let error = #expect(throws: SluiceError.self) { try decode("L") }
            #expect(error?.code == .pluginFailed)
            #expect(error?.library?.message == String(repeating: "x", count: LoadedPlugin.maximumMessageBytes))
        }
        #expect(LoadedPlugin.maximumMessageBytes == 4096)
    }

    @Test("one buffer returned as both output and message is freed once")
    func sameBuffer() {
        expectAllFreed {
            let error = #expect(throws: SluiceError.self) { try decode("D") }
            #expect(error?.library?.message == "oops")
        }
    }

    @Test("a status other than OK or ERROR is a failure with the plugin's message")
    func otherStatus() {
        expectAllFreed {
            let error = #expect(throws: SluiceError.self) { try decode("7") }
            #expect(error?.code == .pluginFailed)
            #expect(error?.library?.code == 7)
            #expect(error?.library?.message == "seven")
        }
    }

    @Test("a well-behaved answer still decodes, its buffer freed")
    func wellBehaved() throws {
        try expectAllFreed {
            let value = try decode("=[1,2]")
            #expect(value == [1, 2])
        }
    }
}
