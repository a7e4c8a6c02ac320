import Foundation
import SluiceCore

/// Converts ``Parameters`` to Foundation's property-list objects (for writing), and parsed property lists
/// (``PropertyListValue``) to ``Parameters`` and to Foundation's objects.
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
        case .decimal(let decimal):
            // Property lists have no decimal type: a real, the nearest double.
            guard !decimal.isNaN else { throw invalid("the decimal NaN") }
            return Parameters.decimal(decimal).doubleValue ?? NSDecimalNumber(decimal: decimal).doubleValue
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

    /// The ``Parameters`` for a parsed property list.
    ///
    /// Dates become ISO 8601 strings (`Date(timeIntervalSinceReferenceDate:).formatted(.iso8601)`);
    /// integers above `Int.max` become doubles, as the JSON serializer reads them; dictionary keys are
    /// sorted (by `String`'s `<`).
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/propertyListInvalidData`` for a date that is
    ///   not finite (the parsers refuse those already; formatting one would trap).
    static func parameters(from value: PropertyListValue) throws(SluiceError) -> Parameters {
        switch value {
        case .string(let string): return .string(string)
        case .integer(let integer): return .integer(Int(integer))
        case .unsignedInteger(let integer): return .double(Double(integer))
        case .real(let real): return .double(real)
        case .bool(let bool): return .bool(bool)
        case .date(let seconds):
            guard seconds.isFinite else {
                throw SluiceError(.propertyListInvalidData, "a date of \(seconds) seconds is not a finite time")
            }
            return .string(Date(timeIntervalSinceReferenceDate: seconds).formatted(.iso8601))
        case .data(let data): return .data(data)
        case .array(let elements):
            var result: [Parameters] = []
            result.reserveCapacity(elements.count)
            for element in elements { result.append(try parameters(from: element)) }
            return .array(result)
        case .dictionary(let entries):
            // OrderedDictionary is SluiceCore's dependency, not this module's: start from an empty one.
            guard case .dictionary(var storage) = Parameters.dictionary([:]) else { return .dictionary([:]) }
            storage.reserveCapacity(entries.count)
            for entry in entries.sorted(by: { $0.key < $1.key }) { storage[entry.key] = try parameters(from: entry.value) }
            return .dictionary(storage)
        }
    }

    /// The Foundation property-list object for a parsed property list (`String`, `Int64`, `UInt64`,
    /// `Double`, `Bool`, `Date`, `Data`, `[Any]`, `[String: Any]`), for Foundation to write.
    static func foundationObject(from value: PropertyListValue) -> Any {
        switch value {
        case .string(let string): return string
        case .integer(let integer): return integer
        case .unsignedInteger(let integer): return integer
        case .real(let real): return real
        case .bool(let bool): return bool
        case .date(let seconds): return Date(timeIntervalSinceReferenceDate: seconds)
        case .data(let data): return data
        case .array(let elements): return elements.map(foundationObject(from:))
        case .dictionary(let entries):
            var dictionary: [String: Any] = [:]
            dictionary.reserveCapacity(entries.count)
            for entry in entries { dictionary[entry.key] = foundationObject(from: entry.value) }
            return dictionary
        }
    }
}
