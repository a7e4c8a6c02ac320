import Foundation
import OrderedCollections
import SluiceCore

/// ``Parameters`` written in JSON vector files. Plain JSON maps as expected (objects keep their
/// order); values JSON cannot say are written as one-key objects: `{"$set": [...]}`, `{"$data":
/// "base64"}`, `{"$double": 1}` (or `"inf"`, `"-inf"`, `"nan"`), `{"$decimal": "1.123456"}` (a
/// ``Parameters/decimal(_:)`` from that text), and a dictionary whose key order matters as
/// `{"$ordered": [["key", value], ...]}` (JSON objects lose their order when decoded). `{"$encodable":
/// value}` is the parameters ``ParametersEncoder`` (with its defaults) makes from the Swift value
/// ``VectorEncodable`` reads from `value`, so a case can go through the encoder as a caller's model does.
public struct VectorParameters: Decodable, Sendable {
    /// The parameters.
    public let value: Parameters

    /// Decodes vector JSON.
    public init(from decoder: any Decoder) throws {
        let plain = try Parameters(from: decoder)
        value = try Self.resolve(plain)
    }

    private static func resolve(_ value: Parameters) throws -> Parameters {
        switch value {
        case .dictionary(let dictionary):
            if dictionary.count == 1, let (key, inner) = dictionary.elements.first {
                switch key {
                case "$set":
                    guard case .array(let elements) = inner else { break }
                    return .set(Set(try elements.map(resolve)))
                case "$ordered":
                    // JSON objects do not keep their key order through JSONDecoder; this form does.
                    guard case .array(let entries) = inner else { break }
                    var ordered = OrderedDictionary<String, Parameters>()
                    for entry in entries {
                        guard case .array(let pair) = entry, pair.count == 2, case .string(let key) = pair[0] else {
                            throw ConformanceError("$ordered holds [key, value] pairs")
                        }
                        ordered[key] = try resolve(pair[1])
                    }
                    return .dictionary(ordered)
                case "$data":
                    guard case .string(let base64) = inner, let data = Data(base64Encoded: base64) else {
                        throw ConformanceError("$data must hold base64 text")
                    }
                    return .data(data)
                case "$decimal":
                    guard case .string(let text) = inner,
                        let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
                    else { throw ConformanceError("$decimal must hold decimal text") }
                    return .decimal(decimal)
                case "$encodable":
                    return try ParametersEncoder().encode(try VectorEncodable(inner))
                case "$double":
                    switch inner {
                    case .string("inf"): return .double(.infinity)
                    case .string("-inf"): return .double(-.infinity)
                    case .string("nan"): return .double(.nan)
                    default:
                        guard let number = inner.doubleValue else {
                            throw ConformanceError("$double must hold a number, \"inf\", \"-inf\" or \"nan\"")
                        }
                        return .double(number)
                    }
                default:
                    break
                }
            }
            return .dictionary(try dictionary.mapValues(resolve))
        case .array(let elements):
            return .array(try elements.map(resolve))
        default:
            return value
        }
    }
}
