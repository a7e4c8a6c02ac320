import Foundation
import SluiceCore

/// Tries several serializers in order: the first that produces a value without error wins;
/// otherwise the last one's error is thrown (AFNetworking's `AFCompoundResponseSerializer`).
public struct CompoundResponseSerializer: ResponseSerializer {
    /// The members, in order.
    public let serializers: [any ResponseSerializer]

    /// Creates a compound of `serializers`.
    public init(_ serializers: [any ResponseSerializer]) { self.serializers = serializers }

    /// Every member's acceptable types, or `nil` when one accepts any.
    public var acceptableMediaTypes: [MediaType]? {
        var types: [MediaType] = []
        for serializer in serializers {
            guard let accepted = serializer.acceptableMediaTypes else { return nil }
            types += accepted
        }
        return types
    }

    /// The first member's value that succeeds (a member that returns `nil` does not win).
    ///
    /// - Returns: The first non-`nil` value; `nil` when every member succeeded without one.
    /// - Throws: The last member's error when no member produced a value.
    public func serialize(request: HTTPRequest?, response: HTTPResponse, body: Data?) throws(SluiceError) -> (any Sendable)? {
        var lastError: SluiceError?
        for serializer in serializers {
            do {
                let value = try serializer.serialize(request: request, response: response, body: body)
                if let optional = value as? OptionalProtocol, optional.isNone { continue }
                return value
            } catch {
                lastError = error
            }
        }
        if let lastError { throw lastError }
        return nil
    }
}

/// Lets the compound see through `Optional` values produced by its members.
private protocol OptionalProtocol {
    var isNone: Bool { get }
}

extension Optional: OptionalProtocol {
    fileprivate var isNone: Bool { self == nil }
}
