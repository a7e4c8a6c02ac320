import Foundation
import OrderedCollections

/// The mutable tree an encoding builds: each container writes into a node it shares with its parent.
final class ParametersNode {
    enum Content {
        case unset
        case value(Parameters)
        case array([ParametersNode])
        case dictionary(OrderedDictionary<String, ParametersNode>)
    }

    var content: Content = .unset

    /// The finished value; a node no container ever wrote to is an empty dictionary (an empty struct).
    func finish() -> Parameters {
        switch content {
        case .unset: .dictionary([:])
        case .value(let value): value
        case .array(let nodes): .array(nodes.map { $0.finish() })
        case .dictionary(let nodes): .dictionary(nodes.mapValues { $0.finish() })
        }
    }

    func makeArrayIfNeeded() {
        if case .array = content { return }
        content = .array([])
    }

    func makeDictionaryIfNeeded() {
        if case .dictionary = content { return }
        content = .dictionary([:])
    }

    func append(_ node: ParametersNode) {
        guard case .array(var nodes) = content else { return }
        content = .unset  // keep the array uniquely referenced while it grows
        nodes.append(node)
        content = .array(nodes)
    }

    func set(_ node: ParametersNode, for key: String) {
        guard case .dictionary(var nodes) = content else { return }
        content = .unset
        nodes[key] = node
        content = .dictionary(nodes)
    }

    var arrayCount: Int {
        if case .array(let nodes) = content { return nodes.count }
        return 0
    }
}

/// The `Encoder` behind ``ParametersEncoder``.
struct ParametersEncodingState: Encoder {
    let options: ParametersEncoder
    let node: ParametersNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(options: ParametersEncoder, node: ParametersNode = ParametersNode(), codingPath: [any CodingKey] = []) {
        self.options = options
        self.node = node
        self.codingPath = codingPath
    }

    func encodeTopLevel(_ value: some Encodable) throws -> Parameters {
        try encode(value, into: node, path: codingPath)
        return node.finish()
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.makeDictionaryIfNeeded()
        return KeyedEncodingContainer(KeyedContainer<Key>(state: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.makeArrayIfNeeded()
        return UnkeyedContainer(state: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleValueContainer(state: self) }

    /// Encodes `value` into `target`, applying the date, data and special-type strategies.
    func encode(_ value: some Encodable, into target: ParametersNode, path: [any CodingKey]) throws {
        switch value {
        case let parameters as Parameters:
            target.content = .value(parameters)
        case let date as Date:
            switch options.dateEncoding {
            case .deferredToDate: try date.encode(to: child(target, path))
            case .secondsSince1970: target.content = .value(.double(date.timeIntervalSince1970))
            case .millisecondsSince1970: target.content = .value(.double(date.timeIntervalSince1970 * 1000))
            case .iso8601: target.content = .value(.string(date.formatted(.iso8601)))
            case .custom(let closure): target.content = .value(try closure(date))
            }
        case let data as Data:
            switch options.dataEncoding {
            case .raw: target.content = .value(.data(data))
            case .base64: target.content = .value(.string(data.base64EncodedString()))
            case .deferredToData: try data.encode(to: child(target, path))
            case .custom(let closure): target.content = .value(try closure(data))
            }
        case let url as URL:
            target.content = .value(.string(url.absoluteString))
        case let decimal as Decimal:
            target.content = .value(.decimal(decimal))
        default:
            try value.encode(to: child(target, path))
        }
    }

    private func child(_ target: ParametersNode, _ path: [any CodingKey]) -> ParametersEncodingState {
        ParametersEncodingState(options: options, node: target, codingPath: path)
    }

    func encodedKey(_ key: some CodingKey) -> String { options.keyEncoding.apply(to: key.stringValue) }

    static func integer<T: BinaryInteger>(_ value: T, path: [any CodingKey]) throws -> Parameters {
        guard let integer = Int(exactly: value) else {
            throw SluiceError(
                .parametersEncodingFailed,
                "\(value) at \(path.map(\.stringValue).joined(separator: ".")) does not fit in Int")
        }
        return .integer(integer)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let state: ParametersEncodingState
    var codingPath: [any CodingKey] { state.codingPath }

    private func put(_ value: Parameters, _ key: Key) {
        let node = ParametersNode()
        node.content = .value(value)
        state.node.set(node, for: state.encodedKey(key))
    }

    mutating func encodeNil(forKey key: Key) throws { put(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { put(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { put(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { put(.double(value), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { put(.double(Double(value)), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { put(.integer(value), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { put(.integer(Int(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { put(.integer(Int(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { put(.integer(Int(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { put(.integer(Int(value)), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws {
        put(try ParametersEncodingState.integer(value, path: codingPath + [key]), key)
    }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { put(.integer(Int(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { put(.integer(Int(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { put(.integer(Int(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        put(try ParametersEncodingState.integer(value, path: codingPath + [key]), key)
    }

    // `nil` optionals: left out, or null when the encoder keeps them.
    private mutating func encodeOptional<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value {
            try encode(value, forKey: key)
        } else if state.options.encodesNilOptionals {
            put(.null, key)
        }
    }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        try encodeOptional(value, forKey: key)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        // A nil optional written with `encode` (a `[String: T?]`'s entries, hand-written conformances):
        // left out, or null, exactly as one written with `encodeIfPresent`.
        if let optional = value as? any NilTestable, optional.isNil {
            if state.options.encodesNilOptionals { put(.null, key) }
            return
        }
        let node = ParametersNode()
        try state.encode(value, into: node, path: codingPath + [key])
        state.node.set(node, for: state.encodedKey(key))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        nestedState(key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        nestedState(key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { nestedState(AnyCodingKey("super")) }

    mutating func superEncoder(forKey key: Key) -> any Encoder { nestedState(key) }

    private func nestedState(_ key: some CodingKey) -> ParametersEncodingState {
        let node = ParametersNode()
        state.node.set(node, for: state.encodedKey(key))
        return ParametersEncodingState(options: state.options, node: node, codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let state: ParametersEncodingState
    var codingPath: [any CodingKey] { state.codingPath }
    var count: Int { state.node.arrayCount }

    private var nextPath: [any CodingKey] { codingPath + [AnyCodingKey(intValue: count)] }

    private func put(_ value: Parameters) {
        let node = ParametersNode()
        node.content = .value(value)
        state.node.append(node)
    }

    mutating func encodeNil() throws { put(.null) }
    mutating func encode(_ value: Bool) throws { put(.bool(value)) }
    mutating func encode(_ value: String) throws { put(.string(value)) }
    mutating func encode(_ value: Double) throws { put(.double(value)) }
    mutating func encode(_ value: Float) throws { put(.double(Double(value))) }
    mutating func encode(_ value: Int) throws { put(.integer(value)) }
    mutating func encode(_ value: Int8) throws { put(.integer(Int(value))) }
    mutating func encode(_ value: Int16) throws { put(.integer(Int(value))) }
    mutating func encode(_ value: Int32) throws { put(.integer(Int(value))) }
    mutating func encode(_ value: Int64) throws { put(.integer(Int(value))) }
    mutating func encode(_ value: UInt) throws { put(try ParametersEncodingState.integer(value, path: nextPath)) }
    mutating func encode(_ value: UInt8) throws { put(.integer(Int(value))) }
    mutating func encode(_ value: UInt16) throws { put(.integer(Int(value))) }
    mutating func encode(_ value: UInt32) throws { put(.integer(Int(value))) }
    mutating func encode(_ value: UInt64) throws { put(try ParametersEncodingState.integer(value, path: nextPath)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let node = ParametersNode()
        try state.encode(value, into: node, path: nextPath)
        state.node.append(node)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        nestedState().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { nestedState().unkeyedContainer() }

    mutating func superEncoder() -> any Encoder { nestedState() }

    private func nestedState() -> ParametersEncodingState {
        let path = nextPath
        let node = ParametersNode()
        state.node.append(node)
        return ParametersEncodingState(options: state.options, node: node, codingPath: path)
    }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
    let state: ParametersEncodingState
    var codingPath: [any CodingKey] { state.codingPath }

    private func put(_ value: Parameters) { state.node.content = .value(value) }

    mutating func encodeNil() throws { put(.null) }
    mutating func encode(_ value: Bool) throws { put(.bool(value)) }
    mutating func encode(_ value: String) throws { put(.string(value)) }
    mutating func encode(_ value: Double) throws { put(.double(value)) }
    mutating func encode(_ value: Float) throws { put(.double(Double(value))) }
    mutating func encode(_ value: Int) throws { put(.integer(value)) }
    mutating func encode(_ value: Int8) throws { put(.integer(Int(value))) }
    mutating func encode(_ value: Int16) throws { put(.integer(Int(value))) }
    mutating func encode(_ value: Int32) throws { put(.integer(Int(value))) }
    mutating func encode(_ value: Int64) throws { put(.integer(Int(value))) }
    mutating func encode(_ value: UInt) throws { put(try ParametersEncodingState.integer(value, path: codingPath)) }
    mutating func encode(_ value: UInt8) throws { put(.integer(Int(value))) }
    mutating func encode(_ value: UInt16) throws { put(.integer(Int(value))) }
    mutating func encode(_ value: UInt32) throws { put(.integer(Int(value))) }
    mutating func encode(_ value: UInt64) throws { put(try ParametersEncodingState.integer(value, path: codingPath)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try state.encode(value, into: state.node, path: codingPath)
    }
}

/// An `Optional` seen through a generic `Encodable`, to tell a nil one.
private protocol NilTestable {
    /// Whether the value is `nil`, or an optional whose wrapped value is (`.some(nil)`).
    var isNil: Bool { get }
}

extension Optional: NilTestable {
    fileprivate var isNil: Bool {
        switch self {
        case .none: true
        case .some(let wrapped): (wrapped as? any NilTestable)?.isNil ?? false
        }
    }
}

/// Converts camelCase keys to snake_case or kebab-case, splitting words as `JSONEncoder` does:
/// before an uppercase letter that follows a lowercase one, and before the last capital of an
/// acronym followed by lowercase (`myURLValue` → `my_url_value`).
enum KeyCase {
    static func convert(_ key: String, separator: Character) -> String {
        guard !key.isEmpty else { return key }
        var words: [String] = []
        var current = ""
        let characters = Array(key)
        for (index, character) in characters.enumerated() {
            if character.isUppercase, !current.isEmpty {
                let previous = characters[index - 1]
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && next?.isLowercase == true) {
                    words.append(current)
                    current = ""
                }
            }
            current.append(character)
        }
        words.append(current)
        return words.map { $0.lowercased() }.joined(separator: String(separator))
    }
}
