import CCurl
import Foundation

/// One plain libcurl GET, without any of Sluice's transport: the check that the C library links and
/// that a server answers.
public enum ServerProbe {
    /// What a probe saw.
    public struct Result: Sendable {
        /// The `CURLcode` (0 for success).
        public let curlCode: Int
        /// libcurl's message for ``curlCode`` and any detail it gave.
        public let curlMessage: String
        /// The response status, 0 when none arrived.
        public let status: Int
        /// The negotiated HTTP version: `1.0`, `1.1`, `2`, `3`, or `?`.
        public let httpVersion: String
        /// The body received.
        public let body: Data

        /// Whether the transfer succeeded at the libcurl level.
        public var succeeded: Bool { curlCode == 0 }
    }

    /// TLS material for a probe.
    public struct TLS: Sendable {
        /// A PEM file of trusted CAs.
        public var caFile: String?
        /// A client certificate PEM for mutual TLS.
        public var clientCertificate: String?
        /// The client certificate's private key PEM.
        public var clientKey: String?

        /// Creates TLS material.
        public init(caFile: String? = nil, clientCertificate: String? = nil, clientKey: String? = nil) {
            self.caFile = caFile
            self.clientCertificate = clientCertificate
            self.clientKey = clientKey
        }
    }

    /// GETs `url` with libcurl's easy interface, preferring HTTP/2 over TLS, with a 10 second limit.
    public static func get(_ url: URL, tls: TLS = TLS(), timeoutSeconds: Int = 10) -> Result {
        _ = curl_global_init(SLUICE_CURL_GLOBAL_ALL)
        guard let easy = curl_easy_init() else {
            return Result(curlCode: -1, curlMessage: "curl_easy_init failed", status: 0, httpVersion: "?", body: Data())
        }
        defer { curl_easy_cleanup(easy) }
        let sink = Sink()
        let context = Unmanaged.passRetained(sink)
        defer { context.release() }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)

        _ = sluice_easy_setopt_string(easy, CURLOPT_URL, url.absoluteString)
        _ = sluice_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, SLUICE_CURL_HTTP_VERSION_2TLS)
        _ = sluice_easy_setopt_long(easy, CURLOPT_TIMEOUT, timeoutSeconds)
        _ = sluice_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = sluice_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION) { buffer, size, count, context in
            let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
            let length = size * count
            if let buffer, length > 0 { sink.data.append(UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self), count: length) }
            return length
        }
        _ = sluice_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context.toOpaque())
        if let caFile = tls.caFile { _ = sluice_easy_setopt_string(easy, CURLOPT_CAINFO, caFile) }
        if let certificate = tls.clientCertificate { _ = sluice_easy_setopt_string(easy, CURLOPT_SSLCERT, certificate) }
        if let key = tls.clientKey { _ = sluice_easy_setopt_string(easy, CURLOPT_SSLKEY, key) }

        let code = errorBuffer.withUnsafeMutableBufferPointer { buffer in
            _ = sluice_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, buffer.baseAddress)
            return curl_easy_perform(easy)
        }
        _ = sluice_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, nil)
        var status = 0
        _ = sluice_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        var version = 0
        _ = sluice_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let message = String(cString: curl_easy_strerror(code)) + (detail.isEmpty ? "" : ": \(detail)")
        return Result(
            curlCode: Int(code.rawValue), curlMessage: message, status: status,
            httpVersion: Self.versionName(version), body: sink.data)
    }

    private static func versionName(_ version: Int) -> String {
        switch version {
        case CURL_HTTP_VERSION_1_0: "1.0"
        case CURL_HTTP_VERSION_1_1: "1.1"
        case CURL_HTTP_VERSION_2_0: "2"
        case CURL_HTTP_VERSION_3: "3"
        default: "?"
        }
    }

    private final class Sink {
        var data = Data()
    }
}
