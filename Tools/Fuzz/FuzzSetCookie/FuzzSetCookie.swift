import Foundation
import FuzzSupport
import SluiceCookies
import SluiceCore

/// libFuzzer's entry point: SluiceCookies' reading of `Set-Cookie` fields a server chose, the cookie-date
/// algorithm, and what a store then sends.
///
/// The input is a choice of response URL (http or https; a name, a name under a public suffix, an IP
/// address), up to four `Set-Cookie` values of up to 160 bytes, a date text of up to 60 bytes, and a choice
/// of request path.
///
/// A failure is a crash, a sanitizer report, a timeout, or one of these broken properties: a parsed cookie
/// has a lowercased domain without a leading dot, a path starting with `/`, a host-only domain equal to the
/// response's host and any other domain one the host domain-matches, `Secure` only from https, a finite
/// expiry; a parsed date lies between the years 1601 and 10000; a store sends a cookie to a URL only when its
/// domain and path match that URL and its `Secure` allows the scheme, and never sends another host's cookies.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let hosts = ["example.com", "www.example.co.uk", "127.0.0.1", "a.b.example.org", "localhost"]
    let host = hosts[input.int(in: 0...(hosts.count - 1))]
    let secure = input.bool()
    let url = URL(string: "\(secure ? "https" : "http")://\(host)/dir/page")!
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let store = CookieStore()
    for _ in 0..<input.int(in: 0...4) {
        let value = input.string(upTo: 160)
        if case .success(let cookie) = SetCookieParser.parse(value, for: url, at: now) {
            check(cookie, from: url, field: value)
        }
        _ = store.setCookie(value, for: url, at: now)
    }
    let dateText = input.string(upTo: 60)
    if let date = SetCookieParser.parseDate(dateText) {
        let year = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: date).year ?? 0
        guard (1601..<10_000).contains(year) else { propertyFailed("\(dateText.debugDescription) read as \(date)") }
    }
    let paths = ["/", "/dir", "/dir/", "/dir/page", "/dirt", "/other"]
    let path = paths[input.int(in: 0...(paths.count - 1))]
    for target in [URL(string: "\(secure ? "https" : "http")://\(host)\(path)")!, URL(string: "http://\(host)\(path)")!] {
        for cookie in store.cookies(for: target, at: now) {
            guard domainMatches(target.host ?? "", cookie), pathMatches(target.path.isEmpty ? "/" : target.path, cookie.path),
                !cookie.secure || target.scheme == "https"
            else { propertyFailed("\(cookie) (domain \(cookie.domain), path \(cookie.path)) sent to \(target)") }
        }
    }
    if !store.cookies(for: URL(string: "https://elsewhere.test\(path)")!, at: now).isEmpty {
        propertyFailed("a cookie of \(host) was sent to elsewhere.test")
    }
    return 0
}

func check(_ cookie: HTTPCookie, from url: URL, field: String) {
    let host = url.host ?? ""
    guard cookie.domain == cookie.domain.lowercased(), !cookie.domain.hasPrefix("."), cookie.path.hasPrefix("/") else {
        propertyFailed("\(field.debugDescription) gave domain \(cookie.domain.debugDescription), path \(cookie.path.debugDescription)")
    }
    if cookie.hostOnly ? cookie.domain != host : !domainMatches(host, cookie) {
        propertyFailed("\(field.debugDescription) from \(host) gave domain \(cookie.domain) (host-only \(cookie.hostOnly))")
    }
    if cookie.secure, url.scheme != "https" { propertyFailed("\(field.debugDescription) set Secure from \(url)") }
    if let expires = cookie.expires, !expires.timeIntervalSince1970.isFinite { propertyFailed("expiry \(expires)") }
}

/// RFC 6265 §5.1.3, by bytes.
func domainMatches(_ host: String, _ cookie: HTTPCookie) -> Bool {
    if cookie.hostOnly { return host == cookie.domain }
    if host == cookie.domain { return true }
    return host.utf8.count > cookie.domain.utf8.count && host.hasSuffix("." + cookie.domain)
        && host.utf8.contains(where: { !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) && $0 != UInt8(ascii: ".") })
}

/// RFC 6265 §5.1.4, by bytes.
func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
    if requestPath == cookiePath { return true }
    guard requestPath.hasPrefix(cookiePath) else { return false }
    return cookiePath.hasSuffix("/") || Array(requestPath.utf8)[cookiePath.utf8.count] == UInt8(ascii: "/")
}
