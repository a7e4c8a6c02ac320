import Foundation

/// HTTP dates (RFC 9110 §5.6.7): the IMF-fixdate form senders must use (`Sun, 06 Nov 1994 08:49:37 GMT`),
/// and the two obsolete forms recipients must accept, RFC 850's (`Sunday, 06-Nov-94 08:49:37 GMT`) and
/// asctime's (`Sun Nov  6 08:49:37 1994`). Read byte by byte, without a date formatter: a cache reads
/// three of them per response.
package enum HTTPDate {
    /// The date `text` names, or `nil` when it is none of the three forms (or names no real day).
    /// A two-digit year is the one in the past century nearest the present, as RFC 9110 asks.
    package static func parse(_ text: String, now: Date = Date()) -> Date? {
        var text = text
        return text.withUTF8 { parse(bytes: $0, now: now) }
    }

    /// The date the bytes name: tokens split at spaces, tabs, commas and dashes, read in place.
    private static func parse(bytes: UnsafeBufferPointer<UInt8>, now: Date) -> Date? {
        var fields = Fields()
        var start = -1
        for index in 0...bytes.count {
            if index < bytes.count {
                let byte = bytes[index]
                let separates = byte == UInt8(ascii: " ") || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: "\t")
                if !separates {
                    if start < 0 { start = index }
                    continue
                }
            }
            if start >= 0 {
                guard fields.take(UnsafeBufferPointer(rebasing: bytes[start..<index])) else { return nil }
                start = -1
            }
        }
        return fields.date(now: now)
    }

    /// `date` as an IMF-fixdate.
    package static func format(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let inDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][((days % 7) + 7) % 7]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        // Four digits, as the grammar asks (a year before 1000 too).
        let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        return "\(weekday), \(two(day)) \(monthNames[month - 1]) \(yearText) \(two(inDay / 3600)):\(two(inDay / 60 % 60)):\(two(inDay % 60)) GMT"
    }

    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Three lowercase letters packed in one number.
    private static func packed(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt32 {
        UInt32(a | 0x20) << 16 | UInt32(b | 0x20) << 8 | UInt32(c | 0x20)
    }

    private static let packedMonths: [UInt32] = monthNames.map { name in
        let bytes = Array(name.utf8)
        return packed(bytes[0], bytes[1], bytes[2])
    }
    private static let packedWeekdays: [UInt32] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].map { name in
        let bytes = Array(name.utf8)
        return packed(bytes[0], bytes[1], bytes[2])
    }
    private static let longWeekdays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    /// The parts of a date, filled token by token in whichever of the three orders they come.
    private struct Fields {
        var weekday = false
        var month: Int?
        var day: Int?
        var year: Int?
        var twoDigitYear = false
        var time: (Int, Int, Int)?
        var zone = false

        /// Takes one token; `false` when it fits nowhere.
        mutating func take(_ token: UnsafeBufferPointer<UInt8>) -> Bool {
            if token.contains(UInt8(ascii: ":")) {
                guard time == nil, let parsed = Self.time(token) else { return false }
                time = parsed
                return true
            }
            if token.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
                // No part of a date has more than four digits; a longer run would overflow the sum below.
                guard token.count <= 4 else { return false }
                let value = token.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
                // The day comes before the year in every form; a 4-digit number is always the year.
                if day == nil, token.count <= 2, year == nil {
                    day = value
                } else if year == nil, token.count == 4 || token.count == 2 {
                    year = value
                    twoDigitYear = token.count == 2
                } else {
                    return false
                }
                return true
            }
            guard token.allSatisfy({ ($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "z") }) else { return false }
            if token.count == 3 {
                let key = HTTPDate.packed(token[0], token[1], token[2])
                if !weekday, month == nil, day == nil, HTTPDate.packedWeekdays.contains(key) {
                    weekday = true
                    return true
                }
                if month == nil, let index = HTTPDate.packedMonths.firstIndex(of: key) {
                    month = index + 1
                    return true
                }
                if !zone, key == HTTPDate.packed(UInt8(ascii: "g"), UInt8(ascii: "m"), UInt8(ascii: "t"))
                    || key == HTTPDate.packed(UInt8(ascii: "u"), UInt8(ascii: "t"), UInt8(ascii: "c"))
                {
                    zone = true
                    return true
                }
                return false
            }
            if !weekday, month == nil, day == nil,
                HTTPDate.longWeekdays.contains(where: { token.lazy.map { $0 | 0x20 }.elementsEqual($0.utf8) })
            {
                weekday = true
                return true
            }
            return false
        }

        func date(now: Date) -> Date? {
            guard let month, let day, var year, let (hour, minute, second) = time else { return nil }
            if twoDigitYear {
                let current = HTTPDate.civil(fromDays: Int(now.timeIntervalSince1970 / 86_400)).year
                year += current / 100 * 100
                if year > current + 50 { year -= 100 }
            }
            guard (1...31).contains(day), hour < 24, minute < 60, second < 61, day <= HTTPDate.daysIn(month: month, year: year)
            else { return nil }
            let days = HTTPDate.days(year: year, month: month, day: day)
            return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3600 + minute * 60 + min(second, 59)))
        }

        /// `hh:mm:ss`, two digits each.
        static func time(_ token: UnsafeBufferPointer<UInt8>) -> (Int, Int, Int)? {
            guard token.count == 8, token[2] == UInt8(ascii: ":"), token[5] == UInt8(ascii: ":") else { return nil }
            func two(_ at: Int) -> Int? {
                let (a, b) = (token[at], token[at + 1])
                guard a >= 48, a <= 57, b >= 48, b <= 57 else { return nil }
                return Int(a - 48) * 10 + Int(b - 48)
            }
            guard let hour = two(0), let minute = two(3), let second = two(6) else { return nil }
            return (hour, minute, second)
        }
    }

    /// The number of days in `month` (1–12) of `year` in the proleptic Gregorian calendar.
    package static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    package static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a count of days since 1970-01-01.
    static func civil(fromDays count: Int) -> (year: Int, month: Int, day: Int) {
        let z = count + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
