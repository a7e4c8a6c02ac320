import CCurl
import SluiceCore

/// Maps libcurl's result codes to Sluice's stable error codes.
enum CurlErrorMapping {
    /// The code and a message for a failed transfer.
    ///
    /// - Parameters:
    ///   - code: curl's result.
    ///   - message: curl's error-buffer text.
    ///   - connected: whether the connection had been made (tells a connect timeout from the others).
    ///   - elapsed: seconds the attempt ran.
    ///   - resourceTimeout: the whole-transfer limit, if any.
    static func code(
        for code: CURLcode, message: String, connected: Bool, elapsed: Double, resourceTimeout: Double?
    ) -> (code: SluiceError.Code, message: String) {
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return (.cannotResolveHost, "cannot resolve the host name")
        case CURLE_COULDNT_CONNECT:
            return (.cannotConnect, "cannot connect to the host")
        case CURLE_OPERATION_TIMEDOUT:
            if !connected { return (.connectTimedOut, "the connection was not made in time") }
            if let resourceTimeout, elapsed >= resourceTimeout * 0.98, !message.contains("too slow") {
                return (.resourceTimedOut, "the transfer took longer than \(resourceTimeout) s")
            }
            return (.idleTimedOut, "no bytes moved for longer than the idle timeout")
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return (.pinnedKeyMismatch, "the server's public key matches no pinned key")
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_CRL_BADFILE, CURLE_SSL_INVALIDCERTSTATUS,
            CURLE_USE_SSL_FAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_SHUTDOWN_FAILED:
            return (.tlsFailed, "the TLS handshake failed")
        case CURLE_TOO_MANY_REDIRECTS:
            return (.tooManyRedirects, "too many redirects")
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING, CURLE_HTTP2,
            CURLE_HTTP2_STREAM, CURLE_HTTP3, CURLE_WEIRD_SERVER_REPLY:
            return (.connectionLost, "the connection ended before the response was complete")
        case CURLE_ABORTED_BY_CALLBACK:
            return (.cancelled, "the task was cancelled")
        case CURLE_READ_ERROR:
            return (.bodyStreamFailed, "the request body could not be read")
        case CURLE_RANGE_ERROR, CURLE_BAD_DOWNLOAD_RESUME:
            return (.downloadFailed, "the server refused to resume the download")
        default:
            return (.transportFailed, "the transfer failed")
        }
    }
}
