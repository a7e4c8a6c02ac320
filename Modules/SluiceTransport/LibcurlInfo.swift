import CCurl

/// What the libcurl that Sluice runs on can do: its version, TLS library and protocol features.
///
/// ```swift
/// let curl = LibcurlInfo.current
/// print(curl.version, curl.supportsHTTP2)   // "7.88.1" true
/// ```
public struct LibcurlInfo: Sendable, Hashable, Codable {
    /// libcurl's version, for example `7.88.1`.
    public let version: String
    /// The TLS library and its version, for example `OpenSSL/3.0.17`, or `nil` without TLS.
    public let tlsVersion: String?
    /// The nghttp2 version, or `nil` without HTTP/2 support.
    public let http2Version: String?
    /// Whether HTTP/2 is available.
    public let supportsHTTP2: Bool
    /// Whether HTTP/3 is available.
    public let supportsHTTP3: Bool
    /// The URL schemes libcurl handles (`http`, `https`, ...).
    public let protocols: [String]

    /// The libcurl linked into this process. Reading it initializes libcurl once.
    public static let current: LibcurlInfo = {
        CurlGlobal.ensureInitialized()
        guard let info = curl_version_info(SLUICE_CURLVERSION_NOW)?.pointee else {
            return LibcurlInfo(version: "unknown", tlsVersion: nil, http2Version: nil, supportsHTTP2: false,
                               supportsHTTP3: false, protocols: [])
        }
        var protocols: [String] = []
        if var cursor = info.protocols {
            while let name = cursor.pointee {
                protocols.append(String(cString: name))
                cursor += 1
            }
        }
        let features = info.features
        return LibcurlInfo(
            version: info.version.map { String(cString: $0) } ?? "unknown",
            tlsVersion: info.ssl_version.map { String(cString: $0) },
            http2Version: info.nghttp2_version.map { String(cString: $0) },
            supportsHTTP2: features & CURL_VERSION_HTTP2 != 0,
            supportsHTTP3: features & CURL_VERSION_HTTP3 != 0,
            protocols: protocols)
    }()
}
