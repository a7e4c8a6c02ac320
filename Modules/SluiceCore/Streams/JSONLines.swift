import Foundation

/// A line of a JSON Lines body that is not a value of the type asked for: the ``SluiceError/underlying``
/// of a ``SluiceError/Code/malformedJSONLine`` error.
public struct MalformedJSONLine: Error, Sendable, CustomStringConvertible {
    /// The line's number, counting from 1 (empty lines count).
    public let lineNumber: Int
    /// The line, at most its first 1,024 bytes.
    public let line: String
    /// What the decoder said.
    public let reason: String

    /// `line N: reason`.
    public var description: String { "line \(lineNumber): \(reason)" }
}

/// The values of a JSON Lines (NDJSON) body, one per line, decoded as they arrive: each non-empty line
/// (trailing CR and spaces allowed) is one JSON value of `Value`. A line that is not fails the sequence
/// with ``SluiceError/Code/malformedJSONLine`` naming its number.
///
/// It reads one chunk at a time, as the caller asks for values, so a slow reader pauses the transfer.
public struct JSONLines<Base: AsyncSequence, Value: Decodable>: AsyncSequence where Base.Element == Data {
    /// A decoded line.
    public typealias Element = Value

    let base: Base
    let makeDecoder: @Sendable () -> JSONDecoder

    /// The iterator.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var lines: DataLines<Base>.AsyncIterator
        let decoder: JSONDecoder
        var lineNumber = 0

        /// The next value; `nil` after the last line.
        ///
        /// - Throws: ``SluiceError`` with code ``SluiceError/Code/malformedJSONLine``; what the body throws.
        public mutating func next() async throws -> Value? {
            while let line = try await lines.next() {
                lineNumber += 1
                guard line.utf8.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { continue }
                do {
                    return try decoder.decode(Value.self, from: Data(line.utf8))
                } catch {
                    let problem = MalformedJSONLine(lineNumber: lineNumber, line: String(line.utf8.prefix(1024)) ?? "", reason: "\(error)")
                    throw SluiceError(
                        .malformedJSONLine, "line \(lineNumber) of the JSON Lines body is not \(Value.self): \(error)",
                        underlying: problem)
                }
            }
            return nil
        }
    }

    /// Starts reading.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(lines: DataLines(base: base).makeAsyncIterator(), decoder: makeDecoder())
    }
}

extension JSONLines: Sendable where Base: Sendable {}

extension AsyncSequence where Element == Data {
    /// The body's lines decoded as JSON values of `type`, one per line (see ``JSONLines``).
    ///
    /// - Parameters:
    ///   - type: The type of each line.
    ///   - decoder: Makes the decoder, once per iteration. Default a new `JSONDecoder`.
    public func jsonLines<Value: Decodable>(
        of type: Value.Type, decoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() }
    ) -> JSONLines<Self, Value> {
        JSONLines(base: self, makeDecoder: decoder)
    }
}
