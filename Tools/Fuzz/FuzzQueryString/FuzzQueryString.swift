import Foundation
import FuzzSupport
import SluiceCore
import SluiceRequestSerialization

/// libFuzzer's entry point: the query-string writer and the form encoder of SluiceRequestSerialization,
/// on `Parameters` trees built from the input (strings, integers, doubles, Booleans, nulls, data,
/// arrays, sets and dictionaries, six levels deep at most) with options chosen by the input.
///
/// A failure is a crash, a sanitizer report, a timeout, or one of these broken properties:
/// - the one-pass writer (`serialize`) gives the same text as the pairs it is documented to equal
///   (`pairs(from:options:)`, each escaped, joined by `&`);
/// - the text holds only unreserved bytes, `%XX` escapes, `&`, `=` and (with `plusReplaced`) `+`;
/// - splitting the text at `&` and the first `=` and unescaping gives the pairs back;
/// - `URLEncodedFormEncoder` throws only `request.formEncodingFailed`, and for a dictionary of strings,
///   integers, Booleans, arrays and dictionaries gives what `serialize` gives.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    var options = QueryStringSerialization.Options()
    let choices = input.byte()
    options.arrayEncoding = [.brackets, .noBrackets, .indexInBrackets][Int(choices % 3)]
    options.boolEncoding = choices & 4 == 0 ? .numeric : .literal
    options.spaceEncoding = choices & 8 == 0 ? .percentEscaped : .plusReplaced
    options.nilEncoding = [.bareKey, .dropKey, .dropValue, .null][Int(choices >> 4 & 3)]
    options.keyOrdering = choices & 64 == 0 ? .alphabetized : .insertionOrder
    options.keyEncoding = [.useDefaultKeys, .convertToSnakeCase, .convertToKebabCase][Int(input.byte() % 3)]
    let parameters = tree(&input, depth: 0)

    let text = QueryStringSerialization.serialize(parameters, options: options)
    let pairs = QueryStringSerialization.pairs(from: parameters, options: options)
    let isContainer = QueryStringSerialization.scalarText(parameters, options: options) == nil
    if isContainer {
        let joined = pairs.map { $0.encoded(spaces: options.spaceEncoding) }.joined(separator: "&")
        guard joined == text else { propertyFailed("serialize gave \(text.debugDescription), the pairs \(joined.debugDescription)") }
        checkAlphabet(text, plus: options.spaceEncoding == .plusReplaced)
        checkRoundTrip(text, pairs: pairs, plus: options.spaceEncoding == .plusReplaced)
    }

    // The same tree through the form encoder, which encodes it as an Encodable value.
    do throws(SluiceError) {
        let form = try URLEncodedFormEncoder().encode(parameters)
        if isPlain(parameters), form != QueryStringSerialization.serialize(parameters) {
            propertyFailed("the form encoder gave \(form.debugDescription), serialize \(QueryStringSerialization.serialize(parameters).debugDescription)")
        }
    } catch {
        guard error.code == .formEncodingFailed else { propertyFailed("URLEncodedFormEncoder threw \(error.code)") }
        if case .dictionary = parameters, isPlain(parameters) { propertyFailed("a plain dictionary was refused: \(error.message)") }
    }
    return 0
}

/// A tree from the input; containers hold at most four elements.
private func tree(_ input: inout FuzzInput, depth: Int) -> Parameters {
    switch input.byte() % (depth >= 6 ? 6 : 9) {
    case 0: return .string(input.string(upTo: 24))
    case 1: return .integer(Int(truncatingIfNeeded: input.uint64()))
    case 2: return .double(Double(bitPattern: input.uint64()))
    case 3: return .bool(input.bool())
    case 4: return .null
    case 5: return .data(Data(input.bytes(upTo: 16)))
    case 6: return .array((0..<Int(input.byte() % 5)).map { _ in tree(&input, depth: depth + 1) })
    case 7: return .set(Set((0..<Int(input.byte() % 5)).map { _ in tree(&input, depth: depth + 1) }))
    default:
        var dictionary: [(String, Parameters)] = []
        for _ in 0..<Int(input.byte() % 5) { dictionary.append((input.string(upTo: 12), tree(&input, depth: depth + 1))) }
        var ordered = Parameters.dictionary([:])
        if case .dictionary(var values) = ordered {
            for (key, value) in dictionary { values[key] = value }
            ordered = .dictionary(values)
        }
        return ordered
    }
}

/// Whether the tree is a dictionary built only of strings, integers, Booleans, arrays and dictionaries
/// (the values the form encoder and the writer write alike).
private func isPlain(_ value: Parameters, top: Bool = true) -> Bool {
    switch value {
    case .dictionary(let values): return values.values.allSatisfy { isPlain($0, top: false) }
    case .array(let values): return !top && values.allSatisfy { isPlain($0, top: false) }
    case .string, .integer, .bool: return !top
    case .double, .decimal, .null, .data, .set: return false
    }
}

private func checkAlphabet(_ text: String, plus: Bool) {
    let bytes = Array(text.utf8)
    var index = 0
    while index < bytes.count {
        let byte = bytes[index]
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"), UInt8(ascii: "?"),
            UInt8(ascii: "&"), UInt8(ascii: "="):
            index += 1
        case UInt8(ascii: "+") where plus:
            index += 1
        case UInt8(ascii: "%"):
            guard index + 2 < bytes.count, hexValue(bytes[index + 1]) != nil, hexValue(bytes[index + 2]) != nil else {
                propertyFailed("a bad escape at \(index) in \(text.debugDescription)")
            }
            index += 3
        default:
            propertyFailed("byte \(byte) written as it is in \(text.debugDescription)")
        }
    }
}

private func checkRoundTrip(_ text: String, pairs: [QueryStringSerialization.Pair], plus: Bool) {
    if pairs.isEmpty {
        guard text.isEmpty else { propertyFailed("no pairs, but text \(text.debugDescription)") }
        return
    }
    let read = text.split(separator: "&", omittingEmptySubsequences: false).map { piece in
        let parts = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        return QueryStringSerialization.Pair(
            field: unescape(parts[0], plus: plus), value: parts.count > 1 ? unescape(parts[1], plus: plus) : nil)
    }
    guard read == pairs else { propertyFailed("\(text.debugDescription) reads back as \(read), not \(pairs)") }
}

private func unescape(_ text: Substring, plus: Bool) -> String {
    var bytes: [UInt8] = []
    var iterator = Array(text.utf8).makeIterator()
    while let byte = iterator.next() {
        if byte == UInt8(ascii: "%"), let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) {
            bytes.append(high << 4 | low)
        } else if plus && byte == UInt8(ascii: "+") {
            bytes.append(UInt8(ascii: " "))
        } else {
            bytes.append(byte)
        }
    }
    return String(decoding: bytes, as: UTF8.self)
}

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}
