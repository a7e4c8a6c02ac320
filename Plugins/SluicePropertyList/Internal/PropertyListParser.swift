import Foundation
import SluiceCore

/// Reads property-list bytes (binary, XML or OpenStep, told apart by ``PropertyListFormatDetector``) into a
/// ``PropertyListValue`` with Sluice's own bounded parsers, never Foundation's: a hostile body is a
/// ``SluiceError/Code/propertyListInvalidData`` error, never a crash, a hang or an unbounded allocation.
///
/// Limits:
/// - arrays and dictionaries nest at most ``maximumDepth`` (512) deep, in every format;
/// - a binary plist of `n` bytes holds at most ``maximumValueCount(byteCount:)`` values (`max(4096, 2n)`),
///   counted as the tree a reader walks: an object reached through two references counts twice, so
///   shared containers cannot expand into a tree far larger than the body (each reference takes at least
///   one byte, so a body whose objects are each referred to once stays under the limit);
/// - and at most ``maximumPayloadCount(byteCount:)`` bytes of strings and data (`max(64 MiB, 16n)`),
///   counted the same way: a string reached through a thousand references counts a thousand times, since
///   a reader decoding it into its own values copies it that often.
///
/// Text plists (XML, OpenStep) cannot share values: every value takes bytes of its own, so they never
/// come near the last two limits.
enum PropertyListParser {
    /// The deepest nesting of arrays and dictionaries accepted: 512 (the top-level value is depth 0).
    static let maximumDepth = 512

    /// The most values a body of `byteCount` bytes may hold: `max(4096, 2 × byteCount)`.
    static func maximumValueCount(byteCount: Int) -> Int {
        let (double, overflow) = byteCount.multipliedReportingOverflow(by: 2)
        return overflow ? Int.max : max(4096, double)
    }

    /// The most bytes of strings and data a binary body of `byteCount` bytes may expand to:
    /// `max(64 MiB, 16 × byteCount)`.
    static func maximumPayloadCount(byteCount: Int) -> Int {
        let (scaled, overflow) = byteCount.multipliedReportingOverflow(by: 16)
        return overflow ? Int.max : max(64 << 20, scaled)
    }

    /// The value of `body`.
    ///
    /// JSON objects look like OpenStep dictionaries to the format sniffer: a body starting `{` (after
    /// white space) whose first 4096 bytes hold `":` or `" :` is refused as JSON, as before.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/propertyListInvalidData``, whose message says
    ///   what is wrong and at which byte, for a body that is not a property list Sluice reads.
    static func parse(_ body: Data) throws(SluiceError) -> PropertyListValue {
        guard let format = PropertyListFormatDetector.format(of: body) else {
            throw SluiceError(.propertyListInvalidData, "the body is not a property list")
        }
        if format == .openStep, body.first != UInt8(ascii: "("), looksLikeJSON(body) {
            throw SluiceError(.propertyListInvalidData, "the body is not a property list (it looks like JSON)")
        }
        let bytes = [UInt8](body)
        let name = format == .binary ? "binary" : format == .xml ? "XML" : "OpenStep"
        do {
            if format == .binary {
                var parser = BinaryPropertyListParser(bytes: bytes)
                return try parser.parse()
            }
            if format == .xml {
                var parser = XMLPropertyListParser(bytes: bytes)
                return try parser.parse()
            }
            var parser = OpenStepPropertyListParser(bytes: bytes)
            return try parser.parse()
        } catch {
            throw SluiceError(.propertyListInvalidData, "invalid \(name) property list at byte \(error.offset): \(error.reason)")
        }
    }

    /// Why a parser refused its bytes, and where. The parsers throw this small value rather than a
    /// ``SluiceError`` (a large struct) to keep their recursive frames small; ``parse(_:)`` converts it.
    struct Failure: Error {
        /// The byte offset of the fault.
        var offset: Int
        /// What is wrong.
        var reason: String
    }

    /// JSON objects look like OpenStep dictionaries to a format sniffer; `"key":` gives them away.
    static func looksLikeJSON(_ body: Data) -> Bool {
        guard let text = String(data: body.prefix(4096), encoding: .utf8) else { return false }
        return text.contains("\":") || text.contains("\" :")
    }

    /// `name` (an element name) for an error message, cut to its first 40 characters.
    static func shortened(_ name: String) -> String {
        name.count > 40 ? name.prefix(40) + "…" : name
    }

    /// `text` quoted for an error message, cut to its first 40 characters.
    static func quoted(_ text: String) -> String {
        text.count > 40 ? String(reflecting: String(text.prefix(40))) + "…" : String(reflecting: text)
    }
}
