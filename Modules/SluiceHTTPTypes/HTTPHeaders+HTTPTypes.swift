import HTTPTypes
import SluiceCore

extension SluiceCore.HTTPHeaders {
    /// The fields of `fields`, in their order, repeated fields kept, each name spelled as it was given
    /// (swift-http-types' `rawName`).
    ///
    /// - Throws: ``SluiceError/Code/invalidHeaderValue`` for a value SluiceCore does not send (a control
    ///   character other than tab, which a field made with swift-http-types' lenient initializer may hold).
    public init(_ fields: HTTPFields) throws(SluiceError) {
        var headers: [HTTPHeader] = []
        headers.reserveCapacity(fields.count)
        for field in fields {
            headers.append(try HTTPHeader(name: field.name.rawName, value: field.value))
        }
        self.init(headers)
    }
}

extension HTTPFields {
    /// The fields of `headers`, in their order, repeated fields kept, names spelled as given.
    ///
    /// Every field of `HTTPHeaders` was checked when it was made (a token name, a value without control
    /// characters), so each one is a valid `HTTPField` and nothing is lost.
    public init(_ headers: SluiceCore.HTTPHeaders) {
        self.init()
        reserveCapacity(headers.count)
        for header in headers {
            // A checked HTTPHeader's name is a token, which HTTPField.Name accepts.
            guard let name = HTTPField.Name(header.name) else { continue }
            append(HTTPField(name: name, value: header.value))
        }
    }
}
