import Foundation
import SluiceCore
import Testing

/// RFC 9110 §5.6.7's three date forms, and what is not a date.
@Suite("HTTPDate")
struct HTTPDateTests {
    static let expected = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT

    @Test("the three forms of the RFC's example name the same instant", arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
        "sun, 06 nov 1994 08:49:37 gmt", "Sun, 06 Nov 1994 08:49:37 UTC",
    ])
    func forms(text: String) {
        #expect(HTTPDate.parse(text, now: Date(timeIntervalSince1970: 1_700_000_000)) == Self.expected)
    }

    @Test("not dates", arguments: [
        "", "0", "-1", "tomorrow", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 29 Feb 1995 08:49:37 GMT",
        "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49 GMT",
        "Sun, 06 Nov 1994 08:49:37 PST",
        // A run of digits longer than any part of a date (found by FuzzCacheHeaders: it overflowed).
        "37 99477777777777777777777777777777777777777777", "Sun, 06 Nov 19940 08:49:37 GMT",
    ])
    func invalid(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test("a two-digit year more than 50 years ahead is in the past century")
    func twoDigitYears() {
        let now = HTTPDate.parse("Fri, 27 Nov 2026 00:00:00 GMT")!
        #expect(HTTPDate.parse("Friday, 01-Jan-70 00:00:00 GMT", now: now) == HTTPDate.parse("Thu, 01 Jan 2070 00:00:00 GMT"))
        #expect(HTTPDate.parse("Friday, 01-Jan-99 00:00:00 GMT", now: now) == HTTPDate.parse("Fri, 01 Jan 1999 00:00:00 GMT"))
    }

    @Test("formatting gives the IMF-fixdate that parses back")
    func format() {
        #expect(HTTPDate.format(Self.expected) == "Sun, 06 Nov 1994 08:49:37 GMT")
        let early = HTTPDate.parse("Fri, 01 Jan 0900 00:00:00 GMT")!
        #expect(HTTPDate.format(early) == "Fri, 01 Jan 0900 00:00:00 GMT")
        for seconds in stride(from: -86_400 * 400, to: 86_400 * 40_000, by: 86_400 * 37 + 3_607) {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            #expect(HTTPDate.parse(HTTPDate.format(date)) == date)
        }
    }
}
