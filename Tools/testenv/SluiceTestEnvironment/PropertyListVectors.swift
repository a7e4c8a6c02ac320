import Foundation

/// `response/plist-hostile.json`: hostile and edge-case property-list bodies with what each must give,
/// read by the `security.parsers` suite and by the tests.
public struct PropertyListVectors: Decodable, Sendable {
    /// One body and its outcome.
    public struct Case: Decodable, Sendable {
        /// The case's name.
        public let id: String
        /// The body as hex, or `nil` when ``text`` gives it.
        public let hex: String?
        /// The body as UTF-8 text, or `nil` when ``hex`` gives it.
        public let text: String?
        /// `ok` (a value) or `error`.
        public let expect: String
        /// The error code expected, for `error`.
        public let code: String?
        /// Text the error's message contains, for `error`.
        public let reason: String?
        /// The value expected, for `ok`.
        public let value: VectorParameters?

        /// The body's bytes, or `nil` when the vector gives none.
        public var body: Data? { hex.map(Self.bytes(hex:)) ?? text.map { Data($0.utf8) } }

        /// Bytes from pairs of hex digits (a pair that is not hex reads as 0).
        public static func bytes(hex: String) -> Data {
            var data = Data()
            var index = hex.startIndex
            while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
                data.append(UInt8(hex[index..<next], radix: 16) ?? 0)
                index = next
            }
            return data
        }
    }

    /// Every case.
    public let cases: [Case]
}
