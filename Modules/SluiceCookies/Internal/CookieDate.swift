import Foundation

/// RFC 6265 §5.1.1's cookie-date algorithm, on bytes.
///
/// The text is cut into tokens at delimiters (HTAB, `%x20-2F`, `%x3B-40`, `%x5B-60`, `%x7B-7E`); each token is
/// tried, in order, as a time (`h:m:s`, one or two digits each), a day of the month (one or two digits), a month
/// (its first three letters, any case) and a year (two to four digits), each taken once. A number may be followed by
/// a non-digit and anything. Years 70–99 become 1970–1999 and 0–69 become 2000–2069. The date is refused when a part
/// is missing, the day is outside 1–31 or does not exist in its month, the year is before 1601, or the hour, minute or
/// second is past 23, 59 or 59. RFC 1123 (`Sun, 06 Nov 1994 08:49:37 GMT`), RFC 850 (`Sunday, 06-Nov-94 08:49:37
/// GMT`) and asctime (`Sun Nov  6 08:49:37 1994`) dates all pass; the zone is ignored (every cookie date is UTC).
enum CookieDate {
    /// The date `text` names, or `nil` when the algorithm refuses it.
    static func parse(_ text: some Collection<UInt8>) -> Date? {
        var time: (hour: Int, minute: Int, second: Int)?
        var dayOfMonth: Int?
        var month: Int?
        var year: Int?
        for token in tokens(Array(text)) {
            if time == nil, let found = parseTime(token) {
                time = found
            } else if dayOfMonth == nil, let found = leadingNumber(token, minDigits: 1, maxDigits: 2) {
                dayOfMonth = found
            } else if month == nil, let found = parseMonth(token) {
                month = found
            } else if year == nil, let found = leadingNumber(token, minDigits: 2, maxDigits: 4) {
                year = found
            }
        }
        guard let time, let dayOfMonth, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(dayOfMonth), year >= 1601, time.hour <= 23, time.minute <= 59, time.second <= 59,
            dayOfMonth <= HTTPDate.daysIn(month: month, year: year)
        else { return nil }
        let days = HTTPDate.days(year: year, month: month, day: dayOfMonth)
        let seconds = days * 86_400 + time.hour * 3600 + time.minute * 60 + time.second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// §5.1.1's delimiter: HTAB, `%x20-2F`, `%x3B-40`, `%x5B-60`, `%x7B-7E`.
    static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte) || (0x5B...0x60).contains(byte)
            || (0x7B...0x7E).contains(byte)
    }

    /// The date-tokens of `bytes`: the runs of non-delimiters.
    static func tokens(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        bytes.split(whereSeparator: isDelimiter)
    }

    /// `time = hms-time ( non-digit *OCTET )`, `hms-time = time-field ":" time-field ":" time-field`,
    /// `time-field = 1*2DIGIT`.
    static func parseTime(_ token: ArraySlice<UInt8>) -> (hour: Int, minute: Int, second: Int)? {
        var index = token.startIndex
        var fields: [Int] = []
        for field in 0..<3 {
            let start = index
            var value = 0
            while index < token.endIndex, index - start < 2, CookieBytes.isDigit(token[index]) {
                value = value * 10 + Int(token[index] - 0x30)
                index += 1
            }
            guard index > start else { return nil }
            fields.append(value)
            if field < 2 {
                guard index < token.endIndex, token[index] == CookieBytes.colon else { return nil }
                index += 1
            }
        }
        if index < token.endIndex, CookieBytes.isDigit(token[index]) { return nil }
        return (fields[0], fields[1], fields[2])
    }

    /// `minDigits*maxDigits DIGIT ( non-digit *OCTET )`: the leading number of `token`.
    static func leadingNumber(_ token: ArraySlice<UInt8>, minDigits: Int, maxDigits: Int) -> Int? {
        let digits = token.prefix { CookieBytes.isDigit($0) }
        guard digits.count >= minDigits, digits.count <= maxDigits else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// `month = ( "jan" / ... / "dec" ) *OCTET`, case-insensitive: 1–12.
    static func parseMonth(_ token: ArraySlice<UInt8>) -> Int? {
        guard token.count >= 3 else { return nil }
        let prefix = token.prefix(3)
        guard let index = months.firstIndex(where: { CookieBytes.equalsIgnoringCase(prefix, $0) }) else { return nil }
        return index + 1
    }
}
