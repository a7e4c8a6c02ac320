import Foundation
import SluiceCore

/// Converts between ``Parameters`` and Foundation's property-list objects.
enum PropertyListConversion {
    /// The property-list object for `value`.
    static func object(from value: Parameters, path: [String] = []) throws(SluiceError) -> Any {
        func invalid(_ what: String) -> SluiceError {
            let location = path.isEmpty ? "at the top level" : "at \(path.joined(separator: "."))"
            return SluiceError(.propertyListInvalidValue, "\(what) \(location) is not a property-list type")
        }
        switch value {
        case .string(let string): return string
        case .integer(let integer): return integer
        case .double(let double):
            guard double.isFinite else { throw invalid("the non-finite number \(double)") }
            return double
        case .bool(let bool): return bool
        case .data(let data): return data
        case .null: throw invalid("null")
        case .set: throw invalid("a set")
        case .array(let elements):
            var objects: [Any] = []
            for (index, element) in elements.enumerated() {
                objects.append(try object(from: element, path: path + ["[\(index)]"]))
            }
            return objects
        case .dictionary(let dictionary):
            var objects: [String: Any] = [:]
            for (key, element) in dictionary { objects[key] = try object(from: element, path: path + [key]) }
            return objects
        }
    }

    /// The ``Parameters`` for a property-list object; dates become ISO 8601 strings.
    static func parameters(from object: Any) throws(SluiceError) -> Parameters {
        switch object {
        case let bool as Bool where type(of: object) == Bool.self: return .bool(bool)
        case let string as String: return .string(string)
        case let data as Data: return .data(data)
        case let date as Date: return .string(date.formatted(.iso8601))
        case let number as NSNumber:
            let kind = String(cString: number.objCType)
            if kind == "c" || kind == "B" { return .bool(number.boolValue) }
            if kind == "d" || kind == "f" { return .double(number.doubleValue) }
            return .integer(number.intValue)
        case let array as [Any]:
            var elements: [Parameters] = []
            for element in array { elements.append(try parameters(from: element)) }
            return .array(elements)
        case let dictionary as [AnyHashable: Any]:
            var result = Parameters.dictionary([:])
            guard case .dictionary(var storage) = result else { return result }
            for key in dictionary.keys.sorted(by: { "\($0)" < "\($1)" }) {
                guard let name = key.base as? String else {
                    throw SluiceError(.propertyListInvalidData, "a dictionary key is not a string: \(key)")
                }
                storage[name] = try parameters(from: dictionary[key]!)
            }
            result = .dictionary(storage)
            return result
        default:
            throw SluiceError(.propertyListInvalidData, "unexpected property-list object \(type(of: object))")
        }
    }
}
