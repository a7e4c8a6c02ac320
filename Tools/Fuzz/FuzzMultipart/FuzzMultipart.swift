import Foundation
import FuzzSupport
import SluiceCore
import SluiceMultipart

/// A rewindable stream over bytes, for stream parts.
private final class BytesStream: BodyStream, @unchecked Sendable {
    let bytes: [UInt8]
    var offset = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    var contentLength: Int64? { Int64(bytes.count) }
    var isRewindable: Bool { true }
    func rewind() throws(SluiceError) { offset = 0 }
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
        let count = min(buffer.count, bytes.count - offset)
        buffer.copyBytes(from: bytes[offset..<offset + count])
        offset += count
        return count
    }
}

/// What a part was built from, to check the body against.
private struct Expected {
    var body: [UInt8]
    var declaredLength: Int
}

private let boundary = MultipartBoundary("fuzz+boundary")!

/// libFuzzer's entry point: SluiceMultipart's form builder and body stream, with hostile field names,
/// file names, MIME types, header fields and bodies from the input (up to eight parts: form fields,
/// data parts, stream parts whose declared length may be wrong, parts with their own header fields),
/// read back in chunks of sizes from the input, then again after a rewind.
///
/// A failure is a crash, a sanitizer report, a timeout, or one of these broken properties: appending
/// throws only `header.invalidName`, `header.invalidValue` or `multipart.invalidLength`; reading throws
/// only `multipart.partEndedEarly` or `multipart.partTooLong`, and does exactly when a stream part's
/// length is wrong; the body has exactly `contentLength` bytes and the documented layout (each part
/// `--boundary` CRLF, header lines without CR or LF in them, a blank line, its body, and the closing
/// boundary), with quoted `name` and `filename` values holding no quote and no control character but
/// tab; reading after a rewind gives the same bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let form = StreamingMultipartFormData(boundary: boundary, mimeTypes: .builtIn)
    var expected: [Expected] = []
    let readSize = max(1, Int(input.byte()))
    for _ in 0..<Int(input.byte() % 9) {
        let kind = input.byte() % 4
        let name = input.string(upTo: 32)
        let body = input.bytes(upTo: 64)
        do throws(SluiceError) {
            switch kind {
            case 0:
                form.appendPart(formData: Data(body), name: name)
                expected.append(Expected(body: body, declaredLength: body.count))
            case 1:
                try form.appendPart(data: Data(body), name: name, fileName: input.string(upTo: 32), mimeType: input.string(upTo: 24))
                expected.append(Expected(body: body, declaredLength: body.count))
            case 2:
                let declared = Int(Int8(bitPattern: input.byte())) % 8 + body.count
                try form.appendPart(stream: BytesStream(body), length: Int64(declared), name: name, fileName: input.string(upTo: 16), mimeType: "application/octet-stream")
                expected.append(Expected(body: body, declaredLength: declared))
            default:
                let headers = try HTTPHeaders(validating: [("X-" + name, input.string(upTo: 32)), ("Content-Disposition", "form-data; name=\"x\"")])
                try form.appendPart(headers: headers, body: .bytes(Data(body)))
                expected.append(Expected(body: body, declaredLength: body.count))
            }
        } catch {
            let allowed: Set<SluiceError.Code> = [.invalidHeaderName, .invalidHeaderValue, .multipartInvalidLength]
            guard allowed.contains(error.code) else { propertyFailed("appending threw \(error.code): \(error.message)") }
        }
    }
    guard form.partCount == expected.count else { propertyFailed("\(form.partCount) parts, \(expected.count) appended") }

    let stream = form.makeBodyStream()
    let lengthsRight = expected.allSatisfy { $0.body.count == $0.declaredLength }
    let first: [UInt8]
    switch read(stream, chunk: readSize) {
    case .failure(let error):
        guard error.code == .multipartPartEndedEarly || error.code == .multipartPartTooLong else {
            propertyFailed("reading threw \(error.code): \(error.message)")
        }
        guard !lengthsRight else { propertyFailed("a form with right lengths threw \(error.code)") }
        return 0
    case .success(let bytes):
        guard lengthsRight else { propertyFailed("a stream part of the wrong length was sent") }
        first = bytes
    }
    guard Int64(first.count) == form.contentLength, Int64(first.count) == stream.length else {
        propertyFailed("\(first.count) bytes, contentLength \(form.contentLength)")
    }
    checkLayout(first, parts: expected)
    do throws(SluiceError) {
        try stream.rewind()
    } catch {
        propertyFailed("rewind threw \(error.code)")
    }
    guard case .success(let second) = read(stream, chunk: 4096), second == first else { propertyFailed("a rewind changed the body") }
    return 0
}

private func read(_ stream: MultipartBodyStream, chunk: Int) -> Result<[UInt8], SluiceError> {
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: chunk)
    while true {
        let count: Int
        do throws(SluiceError) {
            count = try buffer.withUnsafeMutableBytes { bytes in Result { () throws(SluiceError) in try stream.read(into: bytes) } }.get()
        } catch {
            return .failure(error)
        }
        if count == 0 { return .success(result) }
        guard count <= chunk else { propertyFailed("read \(count) bytes into \(chunk)") }
        result += buffer[..<count]
    }
}

private func checkLayout(_ body: [UInt8], parts: [Expected]) {
    var at = 0
    func expect(_ text: String) {
        let bytes = Array(text.utf8)
        guard body.count >= at + bytes.count, Array(body[at..<at + bytes.count]) == bytes else {
            propertyFailed("expected \(text.debugDescription) at \(at)")
        }
        at += bytes.count
    }
    for (index, part) in parts.enumerated() {
        expect(index == 0 ? "--\(boundary.value)\r\n" : "\r\n--\(boundary.value)\r\n")
        // Header lines up to the blank line: no CR or LF inside a line.
        while true {
            guard let end = body[at...].firstIndex(of: 0x0A), end > at, body[end - 1] == 0x0D else {
                propertyFailed("a header line without CRLF at \(at)")
            }
            let line = Array(body[at..<end - 1])
            at = end + 1
            if line.isEmpty { break }
            guard !line.contains(0x0D), !line.contains(0x00) else { propertyFailed("a header line holds CR or NUL") }
            let text = String(decoding: line, as: UTF8.self)
            if text.hasPrefix("Content-Disposition: form-data; ") { checkDisposition(text) }
        }
        guard body.count >= at + part.body.count, Array(body[at..<at + part.body.count]) == part.body else {
            propertyFailed("part \(index)'s body differs")
        }
        at += part.body.count
    }
    expect("\r\n--\(boundary.value)--\r\n")
    guard at == body.count else { propertyFailed("\(body.count - at) bytes after the closing boundary") }
}

/// `name="…"` and `filename="…"` hold no quote and no control character but tab.
private func checkDisposition(_ line: String) {
    let scalars = Array(line.unicodeScalars.dropFirst("Content-Disposition: form-data; ".count))
    var index = 0
    var quotes = 0
    while index < scalars.count {
        let scalar = scalars[index]
        if scalar == "\"" { quotes += 1 }
        if quotes % 2 == 1, scalar != "\"", scalar.value < 0x20 && scalar != "\t" || scalar.value == 0x7F {
            propertyFailed("a control character in a quoted value: \(line.debugDescription)")
        }
        index += 1
    }
    guard quotes == 2 || quotes == 4 else { propertyFailed("\(quotes) quotes in \(line.debugDescription)") }
}
