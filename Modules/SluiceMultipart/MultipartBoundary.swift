/// The boundary that separates the parts of a multipart/form-data body.
///
/// Sluice writes boundaries as AFNetworking does: `Boundary+` followed by 16 random uppercase
/// hexadecimal digits, for example `Boundary+0F3A9C2E7B1D4A65`.
public struct MultipartBoundary: Sendable, Hashable, CustomStringConvertible {
    /// The boundary text, without the leading `--`.
    public let value: String

    /// A new random boundary.
    public static func random() -> MultipartBoundary {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// A new boundary drawn from `generator` (a seeded generator gives reproducible bodies).
    public static func random(using generator: inout some RandomNumberGenerator) -> MultipartBoundary {
        let high = UInt32.random(in: .min ... .max, using: &generator)
        let low = UInt32.random(in: .min ... .max, using: &generator)
        return MultipartBoundary(unchecked: "Boundary+" + hex8(high) + hex8(low))
    }

    /// Uses `value` as the boundary after checking it against RFC 2046: 1 to 70 characters from its
    /// allowed set, not ending in a space.
    ///
    /// - Returns: `nil` when `value` is not a valid boundary.
    public init?(_ value: String) {
        let allowed = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=? ")
        guard (1...70).contains(value.count), value.allSatisfy(allowed.contains), value.last != " " else {
            return nil
        }
        self.value = value
    }

    private init(unchecked value: String) { self.value = value }

    /// The boundary text.
    public var description: String { value }

    private static func hex8(_ number: UInt32) -> String {
        let digits = String(number, radix: 16, uppercase: true)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
