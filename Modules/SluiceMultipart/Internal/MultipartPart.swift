import Foundation
import SluiceCore

/// One part of a form: its header lines and where its body comes from.
struct MultipartPart: Sendable {
    /// Where a part's body bytes come from.
    enum Body: Sendable {
        /// Bytes held in memory.
        case data(Data)
        /// The first `length` bytes of the file at `path` (its size when the part was added).
        case file(path: String, length: UInt64)
        /// A stream that must produce exactly `length` bytes.
        case stream(any BodyStream, length: Int64)

        var length: Int64 {
            switch self {
            case .data(let data): Int64(data.count)
            case .file(_, let length): Int64(length)
            case .stream(_, let length): length
            }
        }
    }

    /// The part's `Name: value\r\n` lines and the blank line after them, as sent.
    let headerBytes: [UInt8]
    let body: Body
    /// The part's field name, for error messages.
    let name: String

    init(headers: HTTPHeaders, body: Body) {
        var bytes: [UInt8] = []
        for header in headers {
            bytes.append(contentsOf: header.name.utf8)
            bytes.append(contentsOf: ": ".utf8)
            bytes.append(contentsOf: header.value.utf8)
            bytes.append(contentsOf: "\r\n".utf8)
        }
        bytes.append(contentsOf: "\r\n".utf8)
        self.headerBytes = bytes
        self.body = body
        self.name = headers["Content-Disposition"].flatMap(Self.fieldName(inDisposition:)) ?? "(unnamed part)"
    }

    /// The `name="…"` of a `Content-Disposition` value, for messages.
    private static func fieldName(inDisposition value: String) -> String? {
        guard let start = value.range(of: "name=\"") else { return nil }
        let rest = value[start.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    /// `name` or `filename` made safe for a quoted `Content-Disposition` parameter, as the HTML
    /// form-submission rules require: `"` → `%22`, CR → `%0D`, LF → `%0A`. The other control
    /// characters a header cannot carry (all of C0 but tab, and DEL) are percent-encoded the same
    /// way; everything else, UTF-8 included, is written as is.
    static func escapedDispositionValue(_ value: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            let code = scalar.value
            if scalar == "\"" || (code < 0x20 && code != 0x09) || code == 0x7F {
                let hex = String(code, radix: 16, uppercase: true)
                result.append(contentsOf: ("%" + (hex.count < 2 ? "0" : "") + hex).unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// `form-data; name="…"` plus `; filename="…"` when there is a file name, both escaped.
    static func disposition(name: String, fileName: String?) -> String {
        var value = "form-data; name=\"\(escapedDispositionValue(name))\""
        if let fileName { value += "; filename=\"\(escapedDispositionValue(fileName))\"" }
        return value
    }
}
