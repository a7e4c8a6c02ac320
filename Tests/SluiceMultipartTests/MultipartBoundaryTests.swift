import SluiceMultipart
import Testing

@Suite("MultipartBoundary")
struct MultipartBoundaryTests {
    @Test("random boundaries are Boundary+ and 16 uppercase hex digits, and differ")
    func format() {
        let boundaries = (0..<100).map { _ in MultipartBoundary.random().value }
        for boundary in boundaries {
            #expect(boundary.hasPrefix("Boundary+"))
            let digits = boundary.dropFirst("Boundary+".count)
            #expect(digits.count == 16)
            #expect(digits.allSatisfy { $0.isHexDigit && !$0.isLowercase })
        }
        #expect(Set(boundaries).count == 100)
    }

    @Test("explicit boundaries follow RFC 2046")
    func explicit() {
        #expect(MultipartBoundary("simple-boundary") != nil)
        #expect(MultipartBoundary("") == nil)
        #expect(MultipartBoundary(String(repeating: "a", count: 71)) == nil)
        #expect(MultipartBoundary("ends with space ") == nil)
        #expect(MultipartBoundary("bad\"quote") == nil)
    }
}
