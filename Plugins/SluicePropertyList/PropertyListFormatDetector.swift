import Foundation

/// Tells the format of property-list bytes from their first bytes, without parsing them.
public enum PropertyListFormatDetector {
    /// The format of `data`: `.binary` for data starting `bplist00`, `.xml` for data whose first
    /// non-space bytes (after an optional UTF-8 byte-order mark) are `<?xml`, `<!DOCTYPE plist` or
    /// `<plist`, `.openStep` for data starting `{` or `(`; `nil` otherwise.
    public static func format(of data: Data) -> PropertyListSerialization.PropertyListFormat? {
        var bytes = data[...]
        if bytes.starts(with: Array("bplist00".utf8)) { return .binary }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        bytes = bytes.drop { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
        for marker in ["<?xml", "<!DOCTYPE plist", "<plist"] where bytes.starts(with: Array(marker.utf8)) {
            return .xml
        }
        if let first = bytes.first, first == UInt8(ascii: "{") || first == UInt8(ascii: "(") { return .openStep }
        return nil
    }
}
