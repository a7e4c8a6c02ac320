import Foundation

extension Parameters {
    /// The deepest nesting of arrays and objects ``init(json:maximumDepth:)`` accepts by default: 128.
    ///
    /// Decoding `Parameters` through `Decodable` tries each scalar type before the containers, and each
    /// failed try costs more the deeper it is: the time grows with the cube of the depth (400 levels,
    /// an 800-byte body, took 0.8 s in a debug build, 13 s under AddressSanitizer). The bound keeps a
    /// small hostile body from costing more than a few milliseconds; real documents stay far below it.
    public static let maximumJSONDepth = 128

    /// The JSON document `data` as a tree, refused before decoding when it nests arrays and objects
    /// deeper than `maximumDepth`.
    ///
    /// A number whose value is a whole number that `Int` holds is ``integer(_:)``, however it is
    /// written (`15`, `15.0`, `1.5e1`, or a long fraction that rounds to a whole `Double`); any other
    /// number is ``double(_:)``. So a value written back as JSON and read again keeps its case.
    ///
    /// - Parameters:
    ///   - data: A JSON document (a bare scalar allowed).
    ///   - maximumDepth: The deepest nesting accepted. Default ``maximumJSONDepth`` (128).
    /// - Throws: `DecodingError.dataCorrupted` when the document nests deeper than `maximumDepth`, or
    ///   what `JSONDecoder` throws for a document that is not JSON.
    public init(json data: Data, maximumDepth: Int = Parameters.maximumJSONDepth) throws {
        let depth = Self.jsonNestingDepth(data, stoppingAbove: maximumDepth)
        guard depth <= maximumDepth else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: [], debugDescription: "the JSON document nests arrays and objects deeper than \(maximumDepth) levels"))
        }
        self = try JSONDecoder().decode(Parameters.self, from: data)
    }

    /// How deep `data` nests `[` and `{` outside strings, counting no further than one past `limit`:
    /// a linear scan that does not check the syntax (the decoder does).
    static func jsonNestingDepth(_ data: Data, stoppingAbove limit: Int) -> Int {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        for byte in data {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > deepest {
                    deepest = depth
                    if deepest > limit { return deepest }
                }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth = max(0, depth - 1)
            default:
                break
            }
        }
        return deepest
    }
}
