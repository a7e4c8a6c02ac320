/// An ordered list of HTTP header fields with case-insensitive lookup.
///
/// Fields keep the order in which they were added, and a name may appear more than once (as
/// `Set-Cookie` or `Via` do). Lookups ignore the case of names. Every name and value is checked when
/// it is added: a name must be an HTTP token and a value must not hold CR, LF, NUL or other control
/// characters, so a header can never inject another header or end the header block early.
///
/// ```swift
/// var headers = HTTPHeaders()
/// try headers.add(name: "Accept", value: "application/json")
/// try headers.set(name: "accept", value: "text/plain")   // replaces the field above
/// headers["ACCEPT"]                                       // "text/plain"
/// ```
public struct HTTPHeaders: Sendable, Hashable, CustomStringConvertible {
    private var fields: [HTTPHeader]

    /// Creates an empty list.
    public init() { fields = [] }

    /// Creates a list from fields that were already checked.
    public init(_ fields: [HTTPHeader]) { self.fields = fields }

    /// Creates a list from name-value pairs, in order, checking each.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/invalidHeaderName`` or
    ///   ``SluiceError/Code/invalidHeaderValue`` for the first invalid pair; no list is made.
    public init(validating pairs: some Sequence<(String, String)>) throws(SluiceError) {
        fields = []
        for (name, value) in pairs { try add(name: name, value: value) }
    }

    /// Creates a list from a dictionary, checking each pair. Names are added in ascending order so
    /// the result does not depend on the dictionary's order.
    ///
    /// - Throws: ``SluiceError`` as ``init(validating:)-(Sequence<(String,String)>)``.
    public init(validating dictionary: [String: String]) throws(SluiceError) {
        try self.init(validating: dictionary.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    // MARK: Reading

    /// The number of fields, counting repeated names separately.
    public var count: Int { fields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// Whether a field with this name exists (case-insensitive).
    public func contains(_ name: String) -> Bool { fields.contains { Self.namesMatch($0.name, name) } }

    /// The values of every field with this name, in order (case-insensitive). Empty when none.
    public func values(for name: String) -> [String] {
        fields.filter { Self.namesMatch($0.name, name) }.map(\.value)
    }

    /// The value of the first field with this name, or `nil`.
    public func first(_ name: String) -> String? {
        fields.first { Self.namesMatch($0.name, name) }?.value
    }

    /// The combined value of every field with this name, joined by `", "` as RFC 9110 allows, or `nil`
    /// when there is none. (For `Set-Cookie`, whose values may contain commas, use ``values(for:)``.)
    public func value(for name: String) -> String? {
        let values = values(for: name)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// The combined value for `name`, as ``value(for:)``.
    public subscript(name: String) -> String? { value(for: name) }

    /// The fields as a dictionary keyed by canonical name, repeated fields combined as ``value(for:)``.
    public var dictionary: [String: String] {
        var result: [String: String] = [:]
        for field in fields {
            let key = field.canonicalName
            result[key] = result[key].map { "\($0), \(field.value)" } ?? field.value
        }
        return result
    }

    // MARK: Writing

    /// Appends a field, keeping any others of the same name.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/invalidHeaderName`` or
    ///   ``SluiceError/Code/invalidHeaderValue``; the list is left unchanged.
    public mutating func add(name: String, value: String) throws(SluiceError) {
        fields.append(try HTTPHeader(name: name, value: value))
    }

    /// Appends a field that was already checked.
    public mutating func add(_ field: HTTPHeader) { fields.append(field) }

    /// Makes room for `count` fields in all.
    package mutating func reserveCapacity(_ count: Int) { fields.reserveCapacity(count) }

    /// Sets the one value of `name`: the first field of that name takes the new value and the other
    /// fields of that name are removed; when there is none the field is appended. A `nil` value removes
    /// every field of that name.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/invalidHeaderName`` or
    ///   ``SluiceError/Code/invalidHeaderValue``; the list is left unchanged.
    public mutating func set(name: String, value: String?) throws(SluiceError) {
        guard let value else {
            remove(name)
            return
        }
        replace(with: try HTTPHeader(name: name, value: value))
    }

    /// Sets a checked field as ``set(name:value:)`` does.
    public mutating func replace(with field: HTTPHeader) {
        if let index = fields.firstIndex(where: { Self.namesMatch($0.name, field.name) }) {
            fields[index] = field
            var position = fields.index(after: index)
            while position < fields.endIndex {
                if Self.namesMatch(fields[position].name, field.name) {
                    fields.remove(at: position)
                } else {
                    position = fields.index(after: position)
                }
            }
        } else {
            fields.append(field)
        }
    }

    /// Removes every field with this name (case-insensitive).
    public mutating func remove(_ name: String) {
        fields.removeAll { Self.namesMatch($0.name, name) }
    }

    /// This list with `other`'s fields applied on top: for each name in `other`, its fields replace all
    /// fields of that name here; other fields keep their place.
    public func merging(_ other: HTTPHeaders) -> HTTPHeaders {
        var result = self
        var replaced = Set<String>()
        for field in other.fields {
            let key = Self.lowercased(field.name)
            if replaced.insert(key).inserted {
                result.replace(with: field)
            } else {
                result.add(field)
            }
        }
        return result
    }

    // MARK: Output

    /// The list with every name in canonical form (`content-type` → `Content-Type`), order kept.
    public func canonicalized() -> HTTPHeaders {
        HTTPHeaders(fields.map { field in
            // A canonical name is still a token and the value was checked already.
            (try? HTTPHeader(name: field.canonicalName, value: field.value)) ?? field
        })
    }

    /// The header block as sent in HTTP/1.1: one `Name: value\r\n` line per field, in order.
    public var wireFormat: String {
        fields.map { "\($0.name): \($0.value)\r\n" }.joined()
    }

    /// One `Name: value` line per field.
    public var description: String { fields.map(\.description).joined(separator: "\n") }

    // MARK: Equality

    /// Two lists are equal when they hold the same fields in the same order, names compared
    /// case-insensitively and values exactly.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { namesMatch($0.name, $1.name) && $0.value == $1.value }
    }

    /// Hashes names case-insensitively, consistent with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(fields.count)
        for field in fields {
            hasher.combine(Self.lowercased(field.name))
            hasher.combine(field.value)
        }
    }

    // MARK: Names

    /// The canonical spelling of a field name: each dash-separated word with an uppercase first letter
    /// and lowercase rest.
    public static func canonicalName(_ name: String) -> String {
        var result = ""
        result.reserveCapacity(name.utf8.count)
        var startOfWord = true
        for character in name {
            result.append(startOfWord ? character.uppercased() : character.lowercased())
            startOfWord = character == "-"
        }
        return result
    }

    /// Whether two names are equal ignoring ASCII case. Token names are ASCII.
    static func namesMatch(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        var left = lhs, right = rhs
        return left.withUTF8 { left in
            right.withUTF8 { right in
                for index in 0..<left.count where left[index] != right[index] {
                    if asciiLower(left[index]) != asciiLower(right[index]) { return false }
                }
                return true
            }
        }
    }

    static func asciiLower(_ byte: UInt8) -> UInt8 {
        (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) ? byte | 0x20 : byte
    }

    private static func lowercased(_ name: String) -> String {
        String(decoding: name.utf8.map(asciiLower), as: UTF8.self)
    }
}

extension HTTPHeaders: RandomAccessCollection {
    /// The first field's position.
    public var startIndex: Int { fields.startIndex }
    /// The position after the last field.
    public var endIndex: Int { fields.endIndex }
    /// The field at `position`.
    public subscript(position: Int) -> HTTPHeader { fields[position] }
}

extension HTTPHeaders: ExpressibleByDictionaryLiteral {
    /// Creates a list from a literal such as `["Accept": "application/json"]`, in the literal's order.
    ///
    /// A literal with an invalid name or value is a programming error and stops the program with a
    /// message; for names and values that come from input use ``add(name:value:)``, which throws.
    public init(dictionaryLiteral elements: (String, String)...) {
        do {
            try self.init(validating: elements)
        } catch {
            preconditionFailure("HTTPHeaders literal: \(error.message)")
        }
    }
}
