import Foundation
import SluiceCore

/// A response body a plugin author knows the answer for: what the plugin must make of it.
///
/// Give the contract at least one sample that decodes for every media type the plugin declares, and
/// some that it must refuse; ``PluginContract`` runs each one through the registry as a session would.
///
/// ```swift
/// let samples = [
///     PluginSample("two rows", mediaType: "text/csv", body: "name,count\nsluice,3\n",
///                  decodesTo: [["name", "count"], ["sluice", "3"]] as Parameters),
///     PluginSample("unclosed quote", mediaType: "text/csv", body: "a,\"b\n", failsWith: ["csv.unclosedQuote"]),
///     PluginSample("not UTF-8", mediaType: "text/csv", body: Data([0xFF, 0xFE]), expectation: .fails(codes: [.stringDecodingFailed])),
/// ]
/// ```
public struct PluginSample: Sendable, CustomStringConvertible {
    /// What the plugin must make of a sample.
    public enum Expectation: Sendable, CustomStringConvertible {
        /// The body decodes, and `check` accepts the value (`nil`: it is right; otherwise what is wrong).
        case decodes(description: String, check: @Sendable (Any) -> String?)
        /// The body is refused with a ``SluiceError`` whose code is one of `codes` (any code when empty).
        case fails(codes: Set<SluiceError.Code>)
        /// The answer gives no value and no error (an `Optional` that is `nil`).
        case noValue

        /// The body decodes to a value equal to `expected` (compared as `T`).
        public static func decodes<T: Equatable & Sendable>(to expected: T) -> Expectation {
            .decodes(description: "\(expected)") { value in
                let unwrapped = Self.unwrap(value)
                guard let actual = unwrapped as? T else {
                    return "decoded \(unwrapped.map { ReportText.excerpt("\($0)", limit: 80) } ?? "nil") (\(unwrapped.map { "\(type(of: $0))" } ?? "no value")), not a \(T.self)"
                }
                if actual == expected { return nil }
                let (wanted, got) = ("\(expected)", "\(actual)")
                guard let difference = ReportText.firstDifference(expected: wanted, actual: got) else {
                    return "decoded a value that is not equal to the expected one but reads the same: \(ReportText.excerpt(got))"
                }
                return "decoded \(ReportText.excerpt(got, limit: 80)); \(difference)"
            }
        }

        /// `value` without its `Optional` wrappers, or `nil` when one of them is empty.
        static func unwrap(_ value: Any) -> Any? {
            let mirror = Mirror(reflecting: value)
            guard mirror.displayStyle == .optional else { return value }
            guard let child = mirror.children.first else { return nil }
            return unwrap(child.value)
        }

        /// `decodes to …`, `fails with …` or `no value`.
        public var description: String {
            switch self {
            case .decodes(let description, _): "decodes to \(ReportText.excerpt(description, limit: 120))"
            case .fails(let codes) where codes.isEmpty: "fails with a SluiceError"
            case .fails(let codes): "fails with \(codes.map(\.rawValue).sorted().joined(separator: " or "))"
            case .noValue: "no value"
            }
        }
    }

    /// The sample's name in reports.
    public var name: String
    /// The response's `Content-Type` (parameters allowed).
    public var mediaType: String
    /// The response's status code. Default 200.
    public var statusCode: Int
    /// The request's method. Default `GET`.
    public var method: HTTPMethod
    /// The body as received.
    public var body: Data
    /// What the plugin must make of it.
    public var expectation: Expectation

    /// Creates a sample.
    ///
    /// - Parameters:
    ///   - name: The name in reports.
    ///   - mediaType: The response's `Content-Type`.
    ///   - statusCode: Default 200.
    ///   - method: Default `GET`.
    ///   - body: The body as received.
    ///   - expectation: What the plugin must make of it.
    public init(
        _ name: String, mediaType: String, statusCode: Int = 200, method: HTTPMethod = .get, body: Data,
        expectation: Expectation
    ) {
        self.name = name
        self.mediaType = mediaType
        self.statusCode = statusCode
        self.method = method
        self.body = body
        self.expectation = expectation
    }

    /// A body that must decode to `value`.
    public init<T: Equatable & Sendable>(_ name: String, mediaType: String, body: String, decodesTo value: T) {
        self.init(name, mediaType: mediaType, body: Data(body.utf8), expectation: .decodes(to: value))
    }

    /// A body that must be refused with one of `codes` (any ``SluiceError`` when empty; default).
    public init(_ name: String, mediaType: String, body: String, failsWith codes: Set<SluiceError.Code> = []) {
        self.init(name, mediaType: mediaType, body: Data(body.utf8), expectation: .fails(codes: codes))
    }

    /// `name (media type, status): expectation`.
    public var description: String { "\(ReportText.excerpt(name, limit: 80)) (\(mediaType), \(method) \(statusCode)): \(expectation)" }

    /// Whether the sample expects a decoded value.
    var isValid: Bool {
        if case .decodes = expectation { return true }
        return false
    }
}
