import SluiceCore

/// AFNetworking's `AFJSONObjectByRemovingKeysWithNullValues`: drops null dictionary values and null
/// array elements, recursively.
enum NullRemoval {
    static func removingNulls(_ value: Parameters) -> Parameters {
        switch value {
        case .array(let elements):
            return .array(elements.filter { !$0.isNull }.map(removingNulls))
        case .dictionary(let dictionary):
            return .dictionary(dictionary.filter { !$0.value.isNull }.mapValues(removingNulls))
        default:
            return value
        }
    }
}
