import Foundation

/// One field of a form body: its name and its bytes. What ``RequestSerializer/formFields(from:)``
/// makes of parameters for a multipart form.
public struct FormField: Sendable, Hashable {
    /// The field name, as written in the part's `Content-Disposition` (`user[name]`).
    public var name: String
    /// The field's value.
    public var value: Data

    /// A field named `name` holding `value`.
    public init(name: String, value: Data) {
        self.name = name
        self.value = value
    }
}
