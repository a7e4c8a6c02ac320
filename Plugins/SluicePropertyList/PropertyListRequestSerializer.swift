import Foundation
import SluiceCore

/// Writes parameters as a property-list body (`application/x-plist`), XML by default or binary, as
/// AFNetworking's `AFPropertyListRequestSerializer` does.
///
/// For methods whose parameters belong in the query (`GET`, `HEAD`, `DELETE`), the request goes to
/// ``querySerializer`` (an `HTTPRequestSerializer`, for example); without one, parameters for those
/// methods are refused with ``SluiceError/Code/propertyListParametersInURI``.
public struct PropertyListRequestSerializer: RequestSerializer {
    /// The format written: `.xml` (the default) or `.binary`; `.openStep` cannot be written, and
    /// serializing with it throws ``SluiceError/Code/propertyListInvalidValue``.
    public var format: PropertyListSerialization.PropertyListFormat
    /// Serializes requests of the query methods. Default `nil`.
    public var querySerializer: (any RequestSerializer)?

    /// Creates a serializer.
    public init(format: PropertyListSerialization.PropertyListFormat = .xml, querySerializer: (any RequestSerializer)? = nil) {
        self.format = format
        self.querySerializer = querySerializer
    }

    /// `application/x-plist`.
    public var contentType: MediaType? { MediaType("application/x-plist") }

    /// Returns `request` with `parameters` as a property-list body and `Content-Type: application/x-plist`
    /// (unless one is set). No parameters, no body.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/propertyListInvalidValue`` (null, a set, a
    ///   non-finite number, or the `.openStep` format, which cannot be written) or
    ///   ``SluiceError/Code/propertyListParametersInURI``.
    public func serialize(_ request: HTTPRequest, with parameters: Parameters?) throws(SluiceError) -> HTTPRequest {
        if ["GET", "HEAD", "DELETE"].contains(request.method.rawValue.uppercased()) {
            if let querySerializer { return try querySerializer.serialize(request, with: parameters) }
            guard parameters == nil else {
                throw SluiceError(.propertyListParametersInURI,
                                  "\(request.method) puts parameters in the query; give the serializer a querySerializer",
                                  request: request)
            }
            return request
        }
        guard let parameters else { return request }
        var request = request
        do {
            request.body = .bytes(try Self.data(for: parameters, format: format))
        } catch {
            var error = error
            error.request = request
            throw error
        }
        if !request.headers.contains("Content-Type") {
            try? request.headers.set(name: "Content-Type", value: "application/x-plist")
        }
        return request
    }

    /// The property-list bytes of `parameters`.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/propertyListInvalidValue`` for a value a
    ///   property list cannot hold, or for the `.openStep` format, which Foundation cannot write.
    public static func data(for parameters: Parameters, format: PropertyListSerialization.PropertyListFormat = .xml)
        throws(SluiceError) -> Data
    {
        // Foundation traps (instead of throwing) when asked to write OpenStep.
        guard format != .openStep else {
            throw SluiceError(.propertyListInvalidValue, "OpenStep property lists cannot be written; use .xml or .binary")
        }
        let object = try PropertyListConversion.object(from: parameters)
        do {
            return try PropertyListSerialization.data(fromPropertyList: object, format: format, options: 0)
        } catch {
            throw SluiceError(.propertyListInvalidValue, "cannot write a property list: \(error)", underlying: ForeignError(error))
        }
    }

    /// The property-list bytes of an `Encodable` value, through `PropertyListEncoder`.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/propertyListInvalidValue``.
    public static func data(for value: some Encodable, format: PropertyListSerialization.PropertyListFormat = .xml)
        throws(SluiceError) -> Data
    {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = format
        do {
            return try encoder.encode(value)
        } catch {
            throw SluiceError(.propertyListInvalidValue, "cannot encode \(type(of: value)) as a property list: \(error)",
                              underlying: ForeignError(error))
        }
    }
}
