extension Encoder {
    /// Encodes `value` as this encoder's single value: how the enum-shaped trees of the package
    /// (`Parameters`, the conformance vectors) write a scalar case.
    package func encodeSingleValue<Value: Encodable>(_ value: Value) throws {
        var container = singleValueContainer()
        try container.encode(value)
    }
}
