import CSluicePluginABI
import Foundation
import FuzzSupport
@_spi(Fuzzing) import SluiceCore

#if canImport(Glibc)
import Glibc
#endif

/// What the hostile `decode` answers next: set from the input before each call (a C function cannot
/// capture). Only the fuzzing thread touches it.
private struct Answer {
    var status: Int32 = SLUICE_PLUGIN_OK
    /// The output buffer's bytes, or `nil` for a NULL output.
    var output: [UInt8]?
    /// The length claimed; may differ from the buffer's.
    var claimed = 0
    /// 0: no message; 1: a NUL-terminated message; 2: 4096 bytes with no NUL; 3: the output buffer again.
    var messageKind: UInt8 = 0
    var message: [UInt8] = []
}

nonisolated(unsafe) private var answer = Answer()
/// The buffers handed out and not given back, and the frees of buffers not outstanding.
nonisolated(unsafe) private var outstanding: Set<UInt> = []
nonisolated(unsafe) private var strayFrees = 0

private func handOut(_ bytes: [UInt8], capacity: Int) -> UnsafeMutablePointer<UInt8> {
    let buffer = calloc(max(capacity, 1), 1)!.assumingMemoryBound(to: UInt8.self)
    buffer.update(from: bytes, count: bytes.count)
    outstanding.insert(UInt(bitPattern: buffer))
    return buffer
}

private let hostileDecode: @convention(c) (
    UnsafePointer<UInt8>?, Int, UnsafePointer<CChar>?, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
    UnsafeMutablePointer<Int>?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 = { _, _, _, output, outputLength, message in
    // The output buffer is zero-filled past its bytes, up to 4097, so a message read from it ends.
    let buffer = answer.output.map { handOut($0, capacity: max($0.count, 4097)) }
    output!.pointee = buffer
    outputLength!.pointee = answer.claimed
    switch answer.messageKind {
    case 1: message!.pointee = UnsafeMutableRawPointer(handOut(answer.message + [0], capacity: answer.message.count + 1)).assumingMemoryBound(to: CChar.self)
    case 2: message!.pointee = UnsafeMutableRawPointer(handOut([UInt8](repeating: UInt8(ascii: "m"), count: 4096), capacity: 4096)).assumingMemoryBound(to: CChar.self)
    case 3: message!.pointee = buffer.map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: CChar.self) }
    default: break
    }
    return answer.status
}

private let ledgerFree: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
    guard let pointer else { return }
    if outstanding.remove(UInt(bitPattern: pointer)) == nil { strayFrees += 1 } else { free(pointer) }
}

/// A C string from input bytes (NULs dropped), allocated with `strdup`.
private func cString(_ bytes: [UInt8]) -> UnsafeMutablePointer<CChar> {
    strdup(String(decoding: bytes.filter { $0 != 0 }, as: UTF8.self))!
}

/// The C example plugin's entry point (`Plugins/Examples/SluiceCLinesPlugin`).
@_silgen_name("sluice_plugin_entry")
private func linesPluginEntry() -> UnsafeRawPointer?

private let linesSerializer: any ResponseSerializer = {
    let registry = SerializerRegistry()
    do throws(SluiceError) {
        try registry.register(pluginTable: linesPluginEntry()!, path: "SluiceCLinesPlugin")
    } catch {
        fatalError("the C example's table was refused: \(error.message)")
    }
    return registry.responseSerializer(for: MediaType("text/x-lines")!)!
}()

/// libFuzzer's entry point: the wrapper Sluice puts around a loaded plugin's C function table
/// (`sluice_plugin.h`), fed hostile tables and hostile answers.
///
/// The first byte picks the driver. Hostile tables: the input builds a table (ABI version, name,
/// version, media types and their count, NULL functions), which is registered through
/// `SerializerRegistry.register(pluginTable:path:)` — what `load(pluginAt:)` does once it has the table
/// — and then answers up to four bodies with a status, an output buffer (or NULL), a claimed length
/// (true, shorter, over the limit, or 2^63 and up), a message (none, NUL-terminated, 4096 bytes
/// without NUL, or the output buffer itself) and an output limit from the input. The C example plugin:
/// the input is a `text/x-lines` body for `Plugins/Examples/SluiceCLinesPlugin`, loaded the same way.
///
/// A failure is a crash, a sanitizer report, a timeout, or one of these broken properties: a table is
/// refused only with `registry.incompatibleABI` or `registry.invalidPlugin`; each answer gives exactly
/// the value or the `registry.pluginFailed` error the header documents; every buffer handed out goes
/// back through `free_buffer` exactly once; the C example decodes every UTF-8 body into one string per
/// line, and refuses any other with a message of its own.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    if input.byte() & 1 == 0 {
        hostileTable(&input)
    } else {
        linesPlugin(input.rest())
    }
    return 0
}

private func hostileTable(_ input: inout FuzzInput) {
    let shape = input.byte()
    let name = shape & 1 == 0 ? cString(Array("hostile".utf8)) : cString(input.bytes(upTo: 16))
    let version = shape & 2 == 0 ? cString(Array("1.0.0".utf8)) : cString(input.bytes(upTo: 12))
    let typeCount = Int(input.byte() % 4)
    let types = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: max(typeCount, 1))
    var typeStrings: [UnsafeMutablePointer<CChar>] = []
    for index in 0..<typeCount {
        let kind = input.byte() % 4
        let text: UnsafeMutablePointer<CChar>? = switch kind {
        case 0: nil
        case 1: cString(input.bytes(upTo: 24))
        default: cString(Array("text/x-hostile".utf8))
        }
        if let text { typeStrings.append(text) }
        (types + index).initialize(to: text.map { UnsafePointer($0) })
    }
    // Mostly the true count; sometimes one with the top bit set, which no array can have.
    let claimedCount = shape & 4 == 0 ? typeCount : Int(bitPattern: UInt(1) << 63 | UInt(typeCount))
    var table = sluice_plugin_table(
        abi_version: shape & 8 == 0 ? SLUICE_PLUGIN_ABI_VERSION : UInt32(input.byte()),
        name: shape & 16 == 0 ? UnsafePointer(name) : nil, version: UnsafePointer(version),
        media_types: shape & 32 == 0 ? UnsafePointer(types) : nil, media_type_count: claimedCount,
        decode: shape & 64 == 0 ? hostileDecode : nil, encode: nil, free_buffer: shape & 128 == 0 ? ledgerFree : nil)
    let limit = input.int(in: -1...8192)

    // The registry, and everything that refers to the table, is gone before the table is freed.
    withUnsafeMutablePointer(to: &table) { table in
        let registry = SerializerRegistry()
        do throws(SluiceError) {
            try registry.register(pluginTable: UnsafeRawPointer(table), path: "(fuzz)", maximumOutputBytes: limit)
        } catch {
            guard error.code == .pluginIncompatibleABI || error.code == .pluginInvalid else {
                propertyFailed("a table was refused with \(error.code): \(error.message)")
            }
            return
        }
        guard let serializer = registry.responseSerializer(for: MediaType("text/x-hostile")!)
            ?? registry.plugins.first?.responseMediaTypes.first.flatMap({ registry.responseSerializer(for: $0) })
        else { return }
        for _ in 0..<4 where !input.isEmpty { answerOnce(&input, serializer: serializer, limit: limit) }
    }
    free(name)
    free(version)
    typeStrings.forEach { free($0) }
    types.deallocate()
}

private func answerOnce(_ input: inout FuzzInput, serializer: any ResponseSerializer, limit: Int) {
    let control = input.byte()
    var next = Answer()
    next.status = [SLUICE_PLUGIN_OK, SLUICE_PLUGIN_OK, SLUICE_PLUGIN_ERROR, Int32(Int8(bitPattern: input.byte()))][Int(control & 3)]
    let bytes = input.bytes(upTo: 64)
    next.output = control & 4 == 0 ? bytes : nil
    switch control >> 3 & 3 {
    case 0: next.claimed = bytes.count
    case 1: next.claimed = bytes.isEmpty ? 0 : Int(input.byte()) % bytes.count
    case 2: next.claimed = max(limit, 0) + 1 + Int(input.byte())
    default: next.claimed = Int(bitPattern: UInt(input.uint64()) | UInt(1) << 63)
    }
    next.messageKind = control >> 5 & 3
    next.message = input.bytes(upTo: 32).filter { $0 != 0 }
    answer = next

    let result = Result { () throws(SluiceError) in try serializer.serialize(request: nil, response: HTTPResponse(statusCode: 200), body: Data("x".utf8)) }
    guard outstanding.isEmpty, strayFrees == 0 else {
        propertyFailed("\(outstanding.count) buffers never freed, \(strayFrees) freed twice or never handed out")
    }

    // What the header says the answer gives.
    let claimed = UInt(bitPattern: next.claimed)
    switch result {
    case .success(let value):
        guard next.status == SLUICE_PLUGIN_OK, claimed <= UInt(max(limit, 0)), let output = next.output, next.claimed > 0 || output.isEmpty else {
            propertyFailed("an answer the header refuses was accepted: \(next)")
        }
        guard next.output != nil else { propertyFailed("success without output") }
        let expected = try? JSONDecoder().decode(Parameters.self, from: Data(output.prefix(next.claimed)))
        guard let expected, value as? Parameters == expected else { propertyFailed("\(String(describing: value)) from \(next)") }
    case .failure(let error):
        guard error.code == .pluginFailed else { propertyFailed("an answer threw \(error.code)") }
        if next.status == SLUICE_PLUGIN_OK, claimed <= UInt(max(limit, 0)), let output = next.output,
            (try? JSONDecoder().decode(Parameters.self, from: Data(output.prefix(next.claimed)))) != nil
        {
            propertyFailed("a valid answer was refused: \(error.message)")
        }
        if next.status != SLUICE_PLUGIN_OK {
            let message: String
            switch next.messageKind {
            case 0: message = "no message"
            case 1: message = String(decoding: next.message, as: UTF8.self)
            case 2: message = String(repeating: "m", count: 4096)
            default: message = next.output.map { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) } ?? "no message"
            }
            guard error.library?.code == Int(next.status), error.library?.message == message else {
                propertyFailed("failure \(next.status) reported as \(String(describing: error.library))")
            }
        }
    }
}

private func linesPlugin(_ body: [UInt8]) {
    let result = Result { () throws(SluiceError) in
        try linesSerializer.serialize(request: nil, response: HTTPResponse(statusCode: 200), body: Data(body))
    }
    switch result {
    case .success(let value):
        guard String(validating: body, as: UTF8.self) != nil else { propertyFailed("a body that is not UTF-8 was accepted") }
        guard let value = value as? Parameters? else { propertyFailed("not Parameters") }
        guard let value else {
            guard body.isEmpty else { propertyFailed("no value for \(body.count) bytes") }
            return
        }
        // Lines end at LF, a CR before it is dropped, and an empty last line (after the last LF) is none.
        var expected = body.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .map { $0.last == UInt8(ascii: "\r") ? $0.dropLast() : $0 }
        if expected.last?.isEmpty == true { expected.removeLast() }
        guard value == .array(expected.map { .string(String(decoding: $0, as: UTF8.self)) }) else {
            propertyFailed("\(value) from \(expected.count) lines")
        }
    case .failure(let error):
        // Only a body that is not UTF-8 is refused, and by the plugin itself (a message of its own).
        guard String(validating: body, as: UTF8.self) == nil, error.code == .pluginFailed, error.library?.library == "c-lines",
            error.library?.message.hasSuffix("is not UTF-8") == true
        else { propertyFailed("the C example refused a body: \(error.code): \(error.message)") }
    }
}
