import FuzzSupport
import SluiceCore

/// libFuzzer's entry point: media types (`Content-Type` values) and header fields, as SluiceCore parses
/// and checks them.
///
/// The input's first byte picks the driver. Media types: the bytes as a `Content-Type` value through
/// `MediaType(parsing:)` and through `HTTPResponse`. Header fields: a name and a value from the bytes
/// through `HTTPHeader(name:value:)`, `HTTPHeaders.set` and lookups.
///
/// A failure is a crash, a sanitizer report, a timeout, or one of these broken properties: a parse may
/// only throw `mediaType.invalid`; a parsed type has lowercase token type and subtype, matches itself,
/// and its `description` parses back to an equal type; a field accepted has a token name and a value
/// with no CR, LF or NUL and no outer white space, is found again under its name in any ASCII case, and
/// a field refused throws only `header.invalidName` or `header.invalidValue`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    if input.byte() & 1 == 0 {
        mediaType(String(decoding: input.rest(), as: UTF8.self))
    } else {
        header(name: input.string(upTo: 64), value: String(decoding: input.rest(), as: UTF8.self))
    }
    return 0
}

private func mediaType(_ text: String) {
    let type: MediaType
    do throws(SluiceError) {
        type = try MediaType(parsing: text)
    } catch {
        guard error.code == .invalidMediaType else { propertyFailed("MediaType threw \(error.code)") }
        return
    }
    for part in [type.type, type.subtype] + type.parameters.map(\.name) {
        guard !part.isEmpty, part == part.lowercased(), part.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            propertyFailed("part \(part.debugDescription) of \(text.debugDescription) is not a lowercase token")
        }
    }
    guard type.matches(type) else { propertyFailed("\(type) does not match itself") }
    let again: MediaType
    do throws(SluiceError) {
        again = try MediaType(parsing: type.description)
    } catch {
        propertyFailed("\(type.description.debugDescription) (from \(text.debugDescription)) does not parse: \(error.message)")
    }
    guard again == type, again.hashValue == type.hashValue else {
        propertyFailed("\(text.debugDescription) → \(type.description.debugDescription) → \(again.description.debugDescription)")
    }
    _ = (type.suffix, type.isWildcard, type.charset, MediaType.any.matches(type))

    // The same text as a received Content-Type: a response keeps the field and parses it the same way.
    guard let headers = try? HTTPHeaders(validating: [("Content-Type", text)]) else { return }
    let response = HTTPResponse(statusCode: 200, headers: headers)
    guard response.contentType == type else {
        propertyFailed("HTTPResponse read \(text.debugDescription) as \(String(describing: response.contentType))")
    }
    _ = (response.mimeType, response.textEncodingName, response.stringEncoding, response.expectedContentLength)
}

private func header(name: String, value: String) {
    let field: HTTPHeader
    do throws(SluiceError) {
        field = try HTTPHeader(name: name, value: value)
    } catch {
        guard error.code == .invalidHeaderName || error.code == .invalidHeaderValue else {
            propertyFailed("HTTPHeader threw \(error.code)")
        }
        var headers = HTTPHeaders()
        if (try? headers.set(name: name, value: value)) != nil { propertyFailed("set accepted what HTTPHeader refused") }
        return
    }
    guard !field.name.isEmpty, field.name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }) else {
        propertyFailed("accepted name \(field.name.debugDescription)")
    }
    guard !field.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
        propertyFailed("accepted value \(field.value.debugDescription)")
    }
    if let first = field.value.utf8.first, let last = field.value.utf8.last,
        [0x20, 0x09].contains(first) || [0x20, 0x09].contains(last)
    {
        propertyFailed("value \(field.value.debugDescription) keeps outer white space")
    }
    var headers = HTTPHeaders()
    do throws(SluiceError) {
        try headers.set(name: name, value: value)
        try headers.add(name: "X-Other", value: "1")
    } catch {
        propertyFailed("set refused what HTTPHeader accepted: \(error.message)")
    }
    for spelling in [name, name.lowercased(), name.uppercased()] {
        guard headers.value(for: spelling) == field.value || name.lowercased() == "x-other" else {
            propertyFailed("\(spelling.debugDescription) finds \(String(describing: headers.value(for: spelling)))")
        }
    }
    _ = (field.canonicalName, headers.canonicalized(), headers.wireFormat, headers.dictionary)
    headers.remove(name)
    guard !headers.contains(name) else { propertyFailed("\(name.debugDescription) is still there after remove") }
}
