import CCurl
import Foundation
import SluiceMultipart

/// `environment.system`: what Sluice relies on from the machine, checked without servers — libcurl's
/// version and features (HTTP/2, a TLS backend, asynchronous DNS, Unix sockets), a readable system CA store,
/// a netlink socket for reachability, and the system MIME table. Each failed check says what breaks and how
/// to fix it.
struct SystemEnvironmentSuite: ConformanceSuite {
    let name = "environment.system"
    let summary = "libcurl features (HTTP/2, TLS, async DNS, Unix sockets), system CA store, netlink, MIME table"

    /// Where Debian, Fedora/RHEL, openSUSE and Alpine keep the system CA bundle.
    static let caBundles = [
        "/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/ca-bundle.pem",
        "/etc/ssl/cert.pem",
    ]

    func run(in context: ConformanceContext) throws -> [CaseResult] {
        _ = curl_global_init(SLUICE_CURL_GLOBAL_ALL)
        guard let info = curl_version_info(SLUICE_CURLVERSION_NOW)?.pointee else {
            return [CaseResult(id: "libcurl answers curl_version_info", passed: false,
                               detail: "libcurl gave no version information; reinstall libcurl4 (apt-get install libcurl4)")]
        }
        let version = info.version.map { String(cString: $0) } ?? "unknown"
        let features = info.features
        let install = "install a libcurl built with it (Debian: apt-get install libcurl4-openssl-dev libnghttp2-14)"
        func feature(_ id: String, _ bit: Int32, breaks: String) -> CaseResult {
            features & bit != 0
                ? CaseResult(id: id, passed: true, detail: "libcurl \(version)")
                : CaseResult(id: id, passed: false, detail: "libcurl \(version) lacks it: \(breaks); \(install)")
        }
        var results = [
            // curl_multi_poll (7.66) and curl_multi_wakeup (7.68) run the engine thread.
            info.version_num >= 0x07_44_00
                ? CaseResult(id: "libcurl 7.68 or later", passed: true, detail: "libcurl \(version)")
                : CaseResult(
                    id: "libcurl 7.68 or later", passed: false,
                    detail: "libcurl \(version) has no curl_multi_wakeup, which the transport engine needs to hear of new work; upgrade libcurl to 7.68 or later"),
            feature("HTTP/2", CURL_VERSION_HTTP2, breaks: "requests stay on HTTP/1.1 and cannot be multiplexed"),
            feature("TLS backend", CURL_VERSION_SSL, breaks: "https:// URLs, SecurityPolicy and pinning fail"),
            feature("asynchronous DNS", CURL_VERSION_ASYNCHDNS,
                    breaks: "a slow name lookup blocks every transfer of the session and timeouts cannot interrupt it"),
            feature("Unix domain sockets", CURL_VERSION_UNIX_SOCKETS,
                    breaks: "requests to a Unix socket (a local daemon's API) are refused"),
        ]
        if let tls = info.ssl_version.map({ String(cString: $0) }) {
            results.append(CaseResult(id: "TLS backend named", passed: true, detail: tls))
        }
        results.append(Self.caStore())
        results.append(Self.netlink())
        results.append(Self.mimeTable())
        return results
    }

    static func caStore() -> CaseResult {
        let id = "system CA store readable"
        for path in caBundles where FileManager.default.isReadableFile(atPath: path) {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            if text.contains("-----BEGIN CERTIFICATE-----") { return CaseResult(id: id, passed: true, detail: path) }
        }
        return CaseResult(
            id: id, passed: false,
            detail: "no readable CA bundle at \(caBundles.joined(separator: ", ")): every HTTPS request with the default "
                + "trust fails verification; install the CA certificates (Debian: apt-get install ca-certificates)")
    }

    static func netlink() -> CaseResult {
        let id = "netlink route socket"
        let descriptor = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue), 0 /* NETLINK_ROUTE */)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            return CaseResult(
                id: id, passed: false,
                detail: "socket(AF_NETLINK) failed (\(reason)): NetworkReachabilityManager cannot see network changes; "
                    + "allow netlink sockets (a container's seccomp profile or --network none can forbid them)")
        }
        close(descriptor)
        return CaseResult(id: id, passed: true)
    }

    static func mimeTable() -> CaseResult {
        let id = "system MIME table"
        // The built-in table has common types only; OpenDocument comes from the system's.
        let type = MIMETypeTable(contentsOfFile: "/etc/mime.types").mimeType(forPathExtension: "odt")
        return type == "application/vnd.oasis.opendocument.text"
            ? CaseResult(id: id, passed: true, detail: "/etc/mime.types")
            : CaseResult(
                id: id, passed: false,
                detail: "/etc/mime.types is missing or incomplete (odt is \(type)): multipart parts of less common "
                    + "file types are sent as application/octet-stream; install it (Debian: apt-get install media-types)")
    }
}
