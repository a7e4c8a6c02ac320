import Foundation

/// Where the real test servers listen: read from `SLUICE_*` environment variables, or from the
/// `servers.json` file that `Tools/testenv/start.sh` writes.
///
/// ```swift
/// let servers = try ServerEnvironment.load()
/// servers.url(for: .httpbin)   // http://127.0.0.1:41234
/// ```
public struct ServerEnvironment: Sendable, Codable, Hashable {
    /// A server the test environment runs.
    public enum Server: String, Sendable, CaseIterable, Codable {
        /// nginx over plain HTTP/1.1.
        case http = "SLUICE_HTTP_URL"
        /// nginx over TLS with HTTP/2, certificate from the test CA.
        case https = "SLUICE_HTTPS_URL"
        /// nginx over TLS requiring a client certificate from the test CA.
        case mutualTLS = "SLUICE_MTLS_URL"
        /// httpbin under gunicorn over plain HTTP.
        case httpbin = "SLUICE_HTTPBIN_URL"
        /// nginx over TLS that ends the handshake when the client sends no certificate.
        case mutualTLSStrict = "SLUICE_MTLS_STRICT_URL"
        /// nginx serving a root → intermediate → leaf chain from the test CA (the leaf has an RSA key).
        case chain = "SLUICE_CHAIN_URL"
        /// nginx serving a self-signed certificate for 127.0.0.1 and localhost.
        case selfSigned = "SLUICE_SELFSIGNED_URL"
        /// nginx serving a certificate from the test CA for another host name only.
        case wrongHost = "SLUICE_WRONGHOST_URL"
        /// nginx serving an expired certificate from the test CA.
        case expired = "SLUICE_EXPIRED_URL"
        /// nginx serving a certificate from the test CA that is not valid yet.
        case notYetValid = "SLUICE_NOTYETVALID_URL"
        /// nginx over HTTP/2 in clear text, with prior knowledge.
        case h2c = "SLUICE_H2C_URL"

        /// A name for people: `nginx (HTTP)`, `httpbin`.
        public var displayName: String {
            switch self {
            case .http: "nginx (HTTP)"
            case .https: "nginx (HTTPS, HTTP/2)"
            case .mutualTLS: "nginx (mutual TLS)"
            case .httpbin: "httpbin (gunicorn)"
            case .mutualTLSStrict: "nginx (mutual TLS, strict)"
            case .chain: "nginx (root → intermediate → leaf)"
            case .selfSigned: "nginx (self-signed)"
            case .wrongHost: "nginx (wrong host name)"
            case .expired: "nginx (expired certificate)"
            case .notYetValid: "nginx (certificate not yet valid)"
            case .h2c: "nginx (HTTP/2 in clear text)"
            }
        }
    }

    /// The raw values, keyed by variable name (`SLUICE_HTTP_URL`, `SLUICE_CA_FILE`, ...).
    public let values: [String: String]
    /// Where the values came from: `environment` or a file path.
    public let source: String

    /// Creates an environment from values.
    public init(values: [String: String], source: String) {
        self.values = values
        self.source = source
    }

    /// The base URL of `server`, or `nil` when it is not configured.
    public func url(for server: Server) -> URL? { values[server.rawValue].flatMap(URL.init(string:)) }

    /// The fault proxy's address for `fault` (`reset-mid-body` reads `SLUICE_FAULT_RESET_MID_BODY_URL`),
    /// or `nil` when it is not configured. The faults are listed in Tools/testenv/README.md.
    public func faultURL(_ fault: String) -> URL? {
        values["SLUICE_FAULT_\(fault.uppercased().replacingOccurrences(of: "-", with: "_"))_URL"].flatMap(URL.init(string:))
    }

    /// The test CA's PEM file (`SLUICE_CA_FILE`), or `nil`.
    public var caFile: String? { values["SLUICE_CA_FILE"] }
    /// The client certificate PEM for mutual TLS (`SLUICE_CLIENT_CERT`), or `nil`.
    public var clientCertificate: String? { values["SLUICE_CLIENT_CERT"] }
    /// The client private key PEM for mutual TLS (`SLUICE_CLIENT_KEY`), or `nil`.
    public var clientKey: String? { values["SLUICE_CLIENT_KEY"] }
    /// The directory nginx serves under `/files/` (`SLUICE_WWW_DIR`), or `nil`.
    public var wwwDirectory: String? { values["SLUICE_WWW_DIR"] }
    /// nginx's access log, one JSON object per request (`SLUICE_NGINX_ACCESS_LOG`), or `nil`.
    public var nginxAccessLog: String? { values["SLUICE_NGINX_ACCESS_LOG"] }

    /// The PEM certificate file a TLS server presents (leaf first, then any intermediates), or `nil`
    /// for servers without one of their own in the environment.
    public func certificateFile(for server: Server) -> String? {
        switch server {
        case .https, .mutualTLS, .mutualTLSStrict: values["SLUICE_SERVER_CERT"]
        case .chain: values["SLUICE_CHAIN_CERT"]
        case .selfSigned: values["SLUICE_SELFSIGNED_CERT"]
        case .wrongHost: values["SLUICE_WRONGHOST_CERT"]
        case .expired: values["SLUICE_EXPIRED_CERT"]
        case .notYetValid: values["SLUICE_NOTYETVALID_CERT"]
        case .http, .httpbin, .h2c: nil
        }
    }

    /// The command that starts the servers, for messages.
    public static let startCommand = "make servers (or Tools/testenv/start.sh)"

    /// Reads the environment: the process's `SLUICE_*` variables when `SLUICE_HTTP_URL` is set,
    /// otherwise `servers.json` at `file`, or found by walking up from `searchFrom` to a
    /// `.testenv/run/servers.json`.
    ///
    /// - Parameters:
    ///   - file: An explicit `servers.json`. Default `nil`.
    ///   - searchFrom: Where to start looking upward. Default: the current directory.
    /// - Throws: ``ConformanceError`` when nothing is configured or the file cannot be read.
    public static func load(file: String? = nil, searchFrom: String? = nil) throws -> ServerEnvironment {
        let environment = ProcessInfo.processInfo.environment
        if file == nil, environment[Server.http.rawValue] != nil {
            return ServerEnvironment(
                values: environment.filter { $0.key.hasPrefix("SLUICE_") }, source: "environment")
        }
        let path: String
        if let file {
            path = file
        } else if let found = FileLocator.findUpward(
            ".testenv/run/servers.json", from: searchFrom ?? FileManager.default.currentDirectoryPath)
        {
            path = found
        } else {
            throw ConformanceError(
                "the test servers are not running: no SLUICE_HTTP_URL in the environment and no "
                    + ".testenv/run/servers.json; start them with \(startCommand)")
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw ConformanceError("cannot read the servers file \(path): it does not exist or is not readable")
        }
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let values = try JSONDecoder().decode([String: String].self, from: data)
            return ServerEnvironment(values: values, source: path)
        } catch {
            throw ConformanceError("cannot read \(path): \(error)")
        }
    }
}
