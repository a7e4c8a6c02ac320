import CCurl
import Foundation
import SluiceCore

/// The CA bundle a transfer hands libcurl as `CURLOPT_CAINFO_BLOB`.
///
/// libcurl ignores its default CA file once a blob is set, so certificates *added* to the system store
/// travel in one blob with the system bundle (read once per process). A session builds its blob once,
/// when it turns its TLS settings into libcurl's terms (``CurlTLSOptions``).
enum SystemTrustStore {
    /// libcurl's default CA bundle file (`/etc/ssl/certs/ca-certificates.crt` on Debian), or `nil`
    /// when libcurl names none or it cannot be read.
    static let systemBundle: Data? = {
        CurlGlobal.ensureInitialized()
        guard let info = curl_version_info(SLUICE_CURLVERSION_NOW)?.pointee, let path = info.cainfo else { return nil }
        return FileManager.default.contents(atPath: String(cString: path))
    }()

    /// The blob for a configuration: `replacing` (or the system bundle) followed by `adding`; `nil`
    /// when neither is set, so libcurl uses its defaults.
    static func caBundle(replacing: Data?, adding: Data?) -> Data? {
        guard let adding else { return replacing }
        var bundle = replacing ?? systemBundle ?? Data()
        if let last = bundle.last, last != UInt8(ascii: "\n") { bundle.append(UInt8(ascii: "\n")) }
        bundle.append(adding)
        return bundle
    }
}
