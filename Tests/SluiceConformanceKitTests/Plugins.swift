import Foundation
import SluiceCore

// Swift plugins for the contract's tests: one that keeps every rule and one per way of breaking one.

/// `text/x-pairs`: `key=value` lines into an array of `key:value` strings; a line without `=` is `pairs.invalidLine`.
struct PairsPlugin: SerializerPlugin {
    var name = "pairs"
    var version = "1.0.0"
    var responseMediaTypes = [MediaType("text/x-pairs")!, MediaType("application/*+pairs")!]
    var serializer: @Sendable () -> any ResponseSerializer = { PairsSerializer() }
    var contentCodings: [any ContentCoding] = []

    func makeResponseSerializer(for mediaType: MediaType) -> (any ResponseSerializer)? { serializer() }
}

struct PairsSerializer: ResponseSerializer {
    func serialize(request: HTTPRequest?, response: HTTPResponse, body: Data?) throws(SluiceError) -> Parameters? {
        guard [200, 201].contains(response.statusCode), request?.method != .head, let body, !body.isEmpty else { return nil }
        return try Self.decode(body, response: response)
    }

    static func decode(_ body: Data, response: HTTPResponse) throws(SluiceError) -> Parameters {
        var pairs: [Parameters] = []
        for line in try response.text(of: body).split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else {
                throw SluiceError("pairs.invalidLine", "\"\(line)\" is not key=value", response: response, body: body)
            }
            pairs.append(.string("\(parts[0]):\(parts[1])"))
        }
        return .array(pairs)
    }
}

/// Refuses everything.
struct ThrowingSerializer: ResponseSerializer {
    func serialize(request: HTTPRequest?, response: HTTPResponse, body: Data?) throws(SluiceError) -> Parameters? {
        throw SluiceError("pairs.invalidLine", "never decodes")
    }
}

/// Gives an empty dictionary where it should give nothing.
struct EmptyValueSerializer: ResponseSerializer {
    func serialize(request: HTTPRequest?, response: HTTPResponse, body: Data?) throws(SluiceError) -> Parameters? {
        guard let body, !body.isEmpty else { return .dictionary([:]) }
        return try PairsSerializer.decode(body, response: response)
    }
}

/// Blocks on a body that says `hang` until the test opens `gate`.
struct HangingSerializer: ResponseSerializer {
    let gate: DispatchSemaphore

    func serialize(request: HTTPRequest?, response: HTTPResponse, body: Data?) throws(SluiceError) -> Parameters? {
        if body == Data("hang=1".utf8) { gate.wait() }
        return try PairsSerializer().serialize(request: request, response: response, body: body)
    }
}

/// Decodes through one scratch buffer shared by every call, so concurrent calls read each other's bytes
/// (a raw buffer: the race garbles bytes but touches no reference count). With a `pause` between the copy
/// and the parse the race is wide; with none, the calls interleave only when they truly run together.
final class SharedScratchSerializer: ResponseSerializer, @unchecked Sendable {
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
    private let pause: useconds_t

    init(pause: useconds_t = 100) { self.pause = pause }

    deinit { scratch.deallocate() }

    func serialize(request: HTTPRequest?, response: HTTPResponse, body: Data?) throws(SluiceError) -> Parameters? {
        guard let body, !body.isEmpty, body.count <= scratch.count else { return nil }
        body.withUnsafeBytes { scratch.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        if pause > 0 { usleep(pause) }
        return try PairsSerializer.decode(Data(scratch.prefix(body.count)), response: response)
    }
}

/// Declares a media type and makes no serializer for it.
struct NoSerializerPlugin: SerializerPlugin {
    let name = "lazy"
    let version = "1.0.0"
    let responseMediaTypes = [MediaType("text/x-pairs")!]
}

/// A coding that passes bytes through and calls that an encoding: truncation and corruption go unnoticed.
struct CarelessCoding: ContentCoding {
    let name = "x-careless"
    var canEncode: Bool { true }
    func makeDecoder(limits: ContentCodingLimits) -> any ContentDecoder { IdentityCoding().makeDecoder(limits: limits) }
    func makeEncoder() throws(SluiceError) -> any ContentEncoder { try IdentityCoding().makeEncoder() }
}

/// A coding that can only decode (the identity coding, under another name).
struct DecodeOnlyCoding: ContentCoding {
    let name = "x-plain"
    func makeDecoder(limits: ContentCodingLimits) -> any ContentDecoder { IdentityCoding().makeDecoder(limits: limits) }
}

/// Reads at most 64 KiB of a body (up to its last whole line), as a plugin with a fixed read buffer does.
struct TruncatingSerializer: ResponseSerializer {
    func serialize(request: HTTPRequest?, response: HTTPResponse, body: Data?) throws(SluiceError) -> Parameters? {
        guard [200, 201].contains(response.statusCode), request?.method != .head, var body, !body.isEmpty else { return nil }
        if body.count > 1 << 16 {
            body = body.prefix(1 << 16)
            if let end = body.lastIndex(of: UInt8(ascii: "\n")) { body = body.prefix(through: end) }
        }
        return try PairsSerializer.decode(body, response: response)
    }
}

/// Reads every body as UTF-8, whatever charset its type declares.
struct UTF8OnlySerializer: ResponseSerializer {
    func serialize(request: HTTPRequest?, response: HTTPResponse, body: Data?) throws(SluiceError) -> Parameters? {
        guard [200, 201].contains(response.statusCode), request?.method != .head, let body, !body.isEmpty else { return nil }
        let lines = String(decoding: body, as: UTF8.self).split(separator: "\n")
        var pairs: [Parameters] = []
        for line in lines {
            let parts = line.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { throw SluiceError("pairs.invalidLine", "\"\(line)\" is not key=value") }
            pairs.append(.string("\(parts[0]):\(parts[1])"))
        }
        return .array(pairs)
    }
}
