import Foundation
import SluiceGzip
import SluicePropertyList
import SluiceXML
import Testing

@Suite("Plugin system libraries")
struct SystemLibraryTests {
    @Test("zlib and libxml2 link and report their versions")
    func versions() {
        #expect(Zlib.version.hasPrefix("1."))
        #expect(Int(LibXML2.version).map { $0 >= 20900 } == true, "libxml2 \(LibXML2.version)")
    }

    @Test("property-list formats are told apart by their first bytes")
    func propertyListFormats() throws {
        let xml = try PropertyListSerialization.data(fromPropertyList: ["a": 1], format: .xml, options: 0)
        let binary = try PropertyListSerialization.data(fromPropertyList: ["a": 1], format: .binary, options: 0)
        #expect(PropertyListFormatDetector.format(of: xml) == .xml)
        #expect(PropertyListFormatDetector.format(of: binary) == .binary)
        #expect(PropertyListFormatDetector.format(of: Data("{\"json\": true}".utf8)) == .openStep)
        #expect(PropertyListFormatDetector.format(of: Data("hello".utf8)) == nil)
    }
}
