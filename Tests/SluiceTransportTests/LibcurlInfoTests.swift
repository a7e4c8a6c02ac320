import SluiceTransport
import Testing

@Suite("LibcurlInfo")
struct LibcurlInfoTests {
    @Test("the linked libcurl speaks HTTP and HTTPS over OpenSSL with HTTP/2")
    func capabilities() {
        let curl = LibcurlInfo.current
        #expect(curl.version.split(separator: ".").count == 3, "version \(curl.version)")
        #expect(curl.protocols.contains("http"))
        #expect(curl.protocols.contains("https"))
        #expect(curl.tlsVersion?.hasPrefix("OpenSSL") == true, "TLS \(curl.tlsVersion ?? "none")")
        #expect(curl.supportsHTTP2)
        #expect(curl.http2Version != nil)
    }
}
