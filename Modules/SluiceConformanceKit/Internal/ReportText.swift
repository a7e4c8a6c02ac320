/// Keeps a report readable whatever the plugin answered: long values are shown as a bounded excerpt,
/// and two values that differ are shown around their first difference.
enum ReportText {
    /// `text` when it is at most `limit` characters, else its start and how long it is.
    static func excerpt(_ text: String, limit: Int = 160) -> String {
        guard text.count > limit else { return text }
        return "\(text.prefix(limit))… (\(text.count) characters in all)"
    }

    /// Where `expected` and `actual` first differ, with a bounded excerpt of each around that place;
    /// `nil` when they are equal.
    static func firstDifference(expected: String, actual: String, context: Int = 40) -> String? {
        guard expected != actual else { return nil }
        let lhs = Array(expected)
        let rhs = Array(actual)
        var index = 0
        while index < lhs.count, index < rhs.count, lhs[index] == rhs[index] { index += 1 }
        func around(_ characters: [Character]) -> String {
            let start = max(0, index - context)
            let end = min(characters.count, index + context)
            guard start < end else { return "(ends here)" }
            return (start > 0 ? "…" : "") + String(characters[start..<end]) + (end < characters.count ? "…" : "")
        }
        var text = "first difference at character \(index): expected \(around(lhs).debugDescription), got \(around(rhs).debugDescription)"
        if lhs.count != rhs.count { text += " (expected \(lhs.count) characters, got \(rhs.count))" }
        return text
    }
}
