import SluiceCore

/// The directives of a message's `Cache-Control` fields (RFC 9111 §5.2), read once: names lowercased,
/// values unquoted. A directive given twice keeps its first value (RFC 9111 §4.2.1 allows either the
/// first or treating the response as stale).
struct CacheControl: Equatable {
    /// Each directive's value, `nil` for one without a value.
    private(set) var directives: [String: String?] = [:]

    /// The directives of every `Cache-Control` field of `headers`; with none, a `Pragma: no-cache`
    /// counts as `no-cache` (RFC 9111 §5.4, for requests).
    init(_ headers: HTTPHeaders, pragmaCounts: Bool = false) {
        let fields = headers.values(for: "Cache-Control")
        for field in fields { parse(field) }
        if fields.isEmpty, pragmaCounts,
            headers.values(for: "Pragma").contains(where: { Self.lowercased($0).contains("no-cache") })
        {
            directives["no-cache"] = .some(nil)
        }
    }

    /// The directives of one field value.
    init(parsing value: String) { parse(value) }

    /// Whether `name` (lowercase) is present.
    func has(_ name: String) -> Bool { directives[name] != nil }

    /// The delta-seconds value of `name` (RFC 9111 §1.2.2): `nil` when absent or not a number. Values
    /// too large for 31 bits are 2^31, as the RFC asks.
    func seconds(_ name: String) -> Int? {
        guard let present = directives[name], let value = present else { return nil }
        return Self.deltaSeconds(value)
    }

    /// `value` read as delta-seconds (RFC 9111 §1.2.2; also the `Age` field's form): `nil` when not a
    /// number; 2^31 for anything larger.
    static func deltaSeconds(_ value: String) -> Int? {
        guard !value.isEmpty, value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        var result = 0
        for byte in value.utf8 {
            result = result * 10 + Int(byte - UInt8(ascii: "0"))
            if result >= 1 << 31 { return 1 << 31 }
        }
        return result
    }

    /// Whether `name` is present without a field list: `no-cache` and `private` with a list of field
    /// names apply to those fields only, which this cache treats as the directive absent (it stores
    /// and serves whole responses, RFC 9111 §5.2.2.4 and §5.2.2.7 allow that).
    func hasUnqualified(_ name: String) -> Bool {
        guard let present = directives[name] else { return false }
        return present == nil || present!.isEmpty
    }

    private mutating func parse(_ value: String) {
        var bytes = Array(value.utf8)[...]
        while !bytes.isEmpty {
            // name
            Self.skipSpaceAndCommas(&bytes)
            let nameEnd = bytes.firstIndex { $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: ",") } ?? bytes.endIndex
            let name = Self.lowercased(String(decoding: Self.trimmed(bytes[bytes.startIndex..<nameEnd]), as: UTF8.self))
            bytes = bytes[nameEnd...]
            var argument: String?
            if bytes.first == UInt8(ascii: "=") {
                bytes = bytes.dropFirst()
                while bytes.first == UInt8(ascii: " ") || bytes.first == UInt8(ascii: "\t") { bytes = bytes.dropFirst() }
                if bytes.first == UInt8(ascii: "\"") {
                    bytes = bytes.dropFirst()
                    var unquoted: [UInt8] = []
                    while let byte = bytes.first {
                        bytes = bytes.dropFirst()
                        if byte == UInt8(ascii: "\\"), let escaped = bytes.first {
                            unquoted.append(escaped)
                            bytes = bytes.dropFirst()
                        } else if byte == UInt8(ascii: "\"") {
                            break
                        } else {
                            unquoted.append(byte)
                        }
                    }
                    argument = String(decoding: unquoted, as: UTF8.self)
                    // Anything after the closing quote up to the next comma is ignored.
                    let next = bytes.firstIndex(of: UInt8(ascii: ",")) ?? bytes.endIndex
                    bytes = bytes[next...]
                } else {
                    let end = bytes.firstIndex(of: UInt8(ascii: ",")) ?? bytes.endIndex
                    argument = String(decoding: Self.trimmed(bytes[bytes.startIndex..<end]), as: UTF8.self)
                    bytes = bytes[end...]
                }
            }
            if !name.isEmpty, directives[name] == nil { directives[name] = .some(argument) }
        }
    }

    private static func skipSpaceAndCommas(_ bytes: inout ArraySlice<UInt8>) {
        while let byte = bytes.first, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: ",") {
            bytes = bytes.dropFirst()
        }
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let byte = slice.first, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { slice = slice.dropFirst() }
        while let byte = slice.last, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { slice = slice.dropLast() }
        return slice
    }

    /// ASCII lowercase only: directive names are tokens.
    static func lowercased(_ text: String) -> String {
        String(decoding: text.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
