import Foundation
import Testing

@testable import SluiceCookies

/// RFC 6265 §5.1.1's cookie-date algorithm, as a table: every form it accepts and the dates it refuses.
@Suite("Cookie dates (RFC 6265 §5.1.1)")
struct CookieDateTests {
    @Test("accepted dates", arguments: [
        // RFC 1123, RFC 850 (two-digit year), asctime.
        ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777),
        ("Sunday, 06-Nov-94 08:49:37 GMT", 784_111_777),
        ("Sun Nov  6 08:49:37 1994", 784_111_777),
        // Two-digit years: 70-99 are 19xx, 0-69 are 20xx.
        ("Wed, 09-Jun-21 10:18:14 GMT", 1_623_233_894),
        ("Tue, 01-Jan-69 00:00:00 GMT", 3_124_224_000),
        ("Thu, 01-Jan-70 00:00:00 GMT", 0),
        ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
        // No weekday, no zone; the zone is ignored.
        ("06 Nov 1994 08:49:37", 784_111_777),
        ("Sun, 06 Nov 1994 08:49:37 +0100", 784_111_777),
        ("Sun, 06 Nov 1994 08:49:37 PST", 784_111_777),
        // Any order, one-digit fields, month names of any length and case.
        ("Nov 6 1994 8:49:37", 784_111_777),
        ("6 Nov 94 8:9:7", 784_109_347),
        ("  06 nOV 1994 08:49:37 ", 784_111_777),
        ("06 November 1994 08:49:37", 784_111_777),
        ("1994 Nov 06 08:49:37", 784_111_777),
        // Odd delimiters: every byte of %x20-2F, %x3B-40, %x5B-60, %x7B-7E separates tokens.
        ("Sun,06-Nov-1994/08:49:37", 784_111_777),
        ("06;Nov;1994;08:49:37", 784_111_777),
        ("06[Nov]1994{08:49:37}", 784_111_777),
        ("06\tNov\t1994\t08:49:37", 784_111_777),
        ("Sun, 06 Nov 1994 08:49:37 GMT;;;", 784_111_777),
        // A number may be followed by a non-digit and anything; the first token of each kind wins.
        ("06th Nov 1994 08:49:37GMT", 784_111_777),
        ("1994 11 06 08:49:37 Nov", 784_543_777),
        ("Sun, 06 Nov 1994 08:49:37 GMT 09:00:00 1995", 784_111_777),
        // Four-digit years are taken as numbers: 0070 is 70, hence 1970.
        ("06 Nov 0070 08:49:37", 26_729_377),
        // Calendar edges.
        ("Tue, 29 Feb 2000 00:00:00 GMT", 951_782_400),
        ("Mon, 01 Jan 1601 00:00:00 GMT", -11_644_473_600),
        ("Fri, 31 Dec 9999 23:59:59 GMT", 253_402_300_799),
    ])
    func accepted(text: String, seconds: Int) {
        #expect(SetCookieParser.parseDate(text) == Date(timeIntervalSince1970: TimeInterval(seconds)), "\(text)")
    }

    @Test("refused dates", arguments: [
        "",
        "GMT",
        // A part missing.
        "Sun, 06 Nov 1994",
        "08:49:37 1994",
        "Sun, 06 1994 08:49:37",
        "Sun, 06 Nov 08:49:37",
        // Out of range.
        "Sun, 00 Nov 1994 08:49:37 GMT",
        "Sun, 32 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sun, 06 Nov 1994 23:60:00 GMT",
        "Sun, 06 Nov 1994 23:59:60 GMT",
        "Sun, 06 Nov 1600 08:49:37 GMT",
        // Days that do not exist.
        "Sat, 30 Feb 2019 00:00:00 GMT",
        "Mon, 29 Feb 2100 00:00:00 GMT",
        "Thu, 31 Apr 2021 00:00:00 GMT",
        // Not a month, too many digits, digits glued to a field.
        "Sun, 06 Xyz 1994 08:49:37 GMT",
        "Sun, 06 No 1994 08:49:37 GMT",
        "Sun, 06 Nov 19945 08:49:37 GMT",
        "Sun, 123 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:371 GMT",
        "Sun, 06 Nov 1994 108:49:37 GMT",
        "Sun, 06 Nov 1994 08:49 GMT",
        // ':' is not a delimiter: "1994:08:49:37" is one token, a year, and there is no time.
        "06/Nov/1994:08:49:37",
        // No delimiter between day and month: "06Nov1994" is a day only.
        "Sun,06Nov1994 08:49:37GMT",
    ])
    func refused(text: String) {
        #expect(SetCookieParser.parseDate(text) == nil, "\(text)")
    }

    @Test("the delimiter set is exactly RFC 6265's")
    func delimiters() {
        let expected = Set<UInt8>([0x09] + Array(0x20...0x2F) + Array(0x3B...0x40) + Array(0x5B...0x60) + Array(0x7B...0x7E))
        for byte in UInt8(0)...UInt8(255) {
            #expect(CookieDate.isDelimiter(byte) == expected.contains(byte), "byte \(byte)")
        }
    }
}
