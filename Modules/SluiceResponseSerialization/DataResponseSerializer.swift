import Foundation
import SluiceCore

/// A response serializer that returns the body bytes as they arrived, without validation.
///
/// A response with no body gives an empty `Data`.
public struct DataResponseSerializer: ResponseSerializer {
    /// Creates the serializer.
    public init() {}

    /// Returns `body`, or an empty `Data` when there is none. Never throws.
    public func serialize(request: HTTPRequest?, response: HTTPResponse, body: Data?) throws(SluiceError) -> Data {
        body ?? Data()
    }
}
