extension String {
    /// This string with each ASCII byte for which `replacement` gives a text replaced by that text.
    ///
    /// Byte by byte over the UTF-8 form, never `Character` by `Character`: a quote followed by a
    /// combining mark is one `Character` (`"'\u{301}"`), which `replacingOccurrences(of: "'", …)` and
    /// `firstIndex(of:)` do not see, so quoting built on them left such a quote bare. An ASCII byte in
    /// UTF-8 is always that character (multi-byte sequences use bytes of 0x80 and above only), so
    /// replacing bytes is exact.
    func replacingASCII(_ replacement: (UInt8) -> String?) -> String {
        guard utf8.contains(where: { $0 < 0x80 && replacement($0) != nil }) else { return self }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count + 16)
        for byte in utf8 {
            if byte < 0x80, let text = replacement(byte) { bytes.append(contentsOf: text.utf8) } else { bytes.append(byte) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
