import Foundation
import SluiceCore

/// Writes a ``Parameters`` tree as JSON (RFC 8259), refusing values JSON cannot hold.
struct JSONWriter {
    let options: JSONWritingOptions
    private var output: [UInt8] = []

    init(options: JSONWritingOptions) { self.options = options }

    /// The JSON text of `value`.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/jsonInvalidValue`` for a set, data or a
    ///   non-finite number (a decimal NaN included), naming where in the tree it is.
    static func write(_ value: Parameters, options: JSONWritingOptions) throws(SluiceError) -> Data {
        var writer = JSONWriter(options: options)
        try writer.write(value, depth: 0, path: [])
        return Data(writer.output)
    }

    private mutating func write(_ value: Parameters, depth: Int, path: [String]) throws(SluiceError) {
        switch value {
        case .string(let string): writeString(string)
        case .integer(let integer): output += Array(String(integer).utf8)
        case .double(let double):
            guard double.isFinite else { throw invalid("the non-finite number \(double)", path) }
            output += Array(QueryStringSerialization.numberText(double).utf8)
        case .decimal(let decimal):
            // A decimal's description is plain notation (`-12.5`, `0.001`), which is JSON's number syntax.
            guard !decimal.isNaN else { throw invalid("the decimal NaN", path) }
            output += Array(decimal.description.utf8)
        case .bool(let bool): output += Array((bool ? "true" : "false").utf8)
        case .null: output += Array("null".utf8)
        case .data: throw invalid("data", path)
        case .set: throw invalid("a set", path)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newline(depth + 1)
                try write(element, depth: depth + 1, path: path + ["[\(index)]"])
            }
            if !elements.isEmpty { newline(depth) }
            output.append(UInt8(ascii: "]"))
        case .dictionary(let dictionary):
            output.append(UInt8(ascii: "{"))
            let keys = options.contains(.sortedKeys) ? dictionary.keys.sorted() : Array(dictionary.keys)
            for (index, key) in keys.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newline(depth + 1)
                writeString(key)
                output += Array((options.contains(.prettyPrinted) ? " : " : ":").utf8)
                try write(dictionary[key]!, depth: depth + 1, path: path + [key])
            }
            if !dictionary.isEmpty { newline(depth) }
            output.append(UInt8(ascii: "}"))
        }
    }

    private mutating func newline(_ depth: Int) {
        guard options.contains(.prettyPrinted) else { return }
        output.append(UInt8(ascii: "\n"))
        output += [UInt8](repeating: UInt8(ascii: " "), count: depth * 2)
    }

    private mutating func writeString(_ string: String) {
        output.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): output += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case UInt8(ascii: "/") where !options.contains(.withoutEscapingSlashes):
                output += [UInt8(ascii: "\\"), UInt8(ascii: "/")]
            case 0x08: output += Array("\\b".utf8)
            case 0x0C: output += Array("\\f".utf8)
            case 0x0A: output += Array("\\n".utf8)
            case 0x0D: output += Array("\\r".utf8)
            case 0x09: output += Array("\\t".utf8)
            case 0x00..<0x20:
                let hex = String(byte, radix: 16)
                output += Array(("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    private func invalid(_ what: String, _ path: [String]) -> SluiceError {
        let location = path.isEmpty ? "at the top level" : "at \(path.joined(separator: "."))"
        return SluiceError(.jsonInvalidValue, "\(what) \(location) cannot be written as JSON")
    }
}
